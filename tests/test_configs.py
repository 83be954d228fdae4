"""The shipped Hugging Face configs load; mixture-of-experts, non-Llama and sliding-window configs, and keys that
change what a step executes, are refused."""
import json
from pathlib import Path

import pytest

import ledger
from ledger import LedgerError, ModelShape

CONFIGS = sorted(Path(__file__).resolve().parent.parent.glob("data/configs/*/config.json"))
# Published parameter counts (model cards), matrices only: norms are a few hundred thousand more.
PUBLISHED = {"TinyLlama-1.1B": 1.1e9, "Llama-3.2-1B": 1.24e9, "SmolLM-135M": 135e6}


def test_three_configs_shipped():
    assert {p.parent.name for p in CONFIGS} == set(PUBLISHED)


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.parent.name)
def test_config_loads_and_counts(path):
    shape = ModelShape.from_hf_config(path)
    assert shape.name == path.parent.name
    assert abs(shape.matrix_params / PUBLISHED[shape.name] - 1) < 0.02
    row = ledger.step_row(variant="transformer", seq_len=2048, shape=shape)
    assert abs(row.six_n_ratio - 1) < 1e-12


def test_tied_embeddings_read():
    tied = ModelShape.from_hf_config(Path("data/configs/Llama-3.2-1B/config.json"))
    assert tied.tied_embeddings and tied.N == tied.matrix_params
    untied = ModelShape.from_hf_config(Path("data/configs/TinyLlama-1.1B/config.json"))
    assert not untied.tied_embeddings and untied.matrix_params - untied.N == 32000 * 2048


# Hugging Face's exact counts (safetensors metadata of the model repositories), norms included.
PUBLISHED_EXACT = {"Llama-3.2-1B": 1_235_814_400, "SmolLM-135M": 134_515_008}


@pytest.mark.parametrize("name", sorted(PUBLISHED_EXACT))
def test_tied_models_count_the_shared_table_once(name):
    """A tied model stores its table once: matrices plus norms are the published count, and the table's
    share of the weights divides by that single count (chapter 11's table printed it counted twice)."""
    shape = ModelShape.from_hf_config(Path(f"data/configs/{name}/config.json"))
    assert shape.tied_embeddings and shape.total_params == PUBLISHED_EXACT[name]
    assert shape.input_table_share == shape.embedding_params / (shape.total_params - shape.norm_params)
    assert 0.21 < shape.input_table_share < 0.22


MIXTRAL = {"model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
           "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000,
           "num_local_experts": 8, "num_experts_per_tok": 2}


def test_moe_refused_with_what_is_supported():
    with pytest.raises(LedgerError, match="llama, mistral"):
        ModelShape.from_hf_config(MIXTRAL)
    llama_moe = dict(MIXTRAL, model_type="llama")
    with pytest.raises(LedgerError, match="mixture-of-experts models are not supported"):
        ModelShape.from_hf_config(llama_moe)


def test_non_llama_refused(tmp_path):
    gpt2 = tmp_path / "gpt2" / "config.json"
    gpt2.parent.mkdir()
    gpt2.write_text(json.dumps({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12,
                                "vocab_size": 50257}))
    with pytest.raises(LedgerError, match="Llama-style decoders only"):
        ModelShape.from_hf_config(gpt2)


def test_missing_key_refused():
    broken = {k: v for k, v in MIXTRAL.items() if k not in ("num_local_experts", "num_experts_per_tok",
                                                               "intermediate_size")}
    broken["model_type"] = "llama"
    with pytest.raises(LedgerError, match="missing 'intermediate_size'"):
        ModelShape.from_hf_config(broken)


MISTRAL_7B_V01 = {"architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 4096,
                  "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
                  "num_key_value_heads": 8, "vocab_size": 32000, "max_position_embeddings": 32768,
                  "sliding_window": 4096, "tie_word_embeddings": False}
"""Mistral-7B-v0.1's config.json (the fields the ledger reads, and its 4,096-token sliding window)."""


def test_sliding_window_refused_naming_the_field():
    """The ledger prices full attention; a window of 4,096 would cost far less at long S, so a config that
    sets one is refused, not priced as if it attended every earlier key."""
    with pytest.raises(LedgerError, match=r"^sliding_window = 4096: the ledger counts full attention only.*allowed: null$"):
        ModelShape.from_hf_config(MISTRAL_7B_V01)
    # Hugging Face's MistralConfig gives an absent window 4,096: refused too, saying so
    absent = {k: v for k, v in MISTRAL_7B_V01.items() if k != "sliding_window"}
    with pytest.raises(LedgerError, match=r"sliding_window = 4096 \(Hugging Face default for 'mistral', absent\)"):
        ModelShape.from_hf_config(absent)
    # a window on a Llama-typed config is refused as well: the config says its attention is windowed
    with pytest.raises(LedgerError, match="sliding_window = 2048"):
        ModelShape.from_hf_config(dict(MISTRAL_7B_V01, model_type="llama", sliding_window=2048))
    # no window (Mistral-7B-v0.2 and later: null): full attention, counted as Llama-3-8B's block
    full = ModelShape.from_hf_config(dict(MISTRAL_7B_V01, sliding_window=None))
    assert (full.n_layers, full.hidden, full.n_heads, full.n_kv_heads, full.intermediate, full.vocab) == \
        (32, 4096, 32, 8, 14336, 32000)


def test_mistral_without_kv_heads_gets_hugging_faces_default_of_eight():
    """MistralConfig defaults num_key_value_heads to 8, LlamaConfig to num_attention_heads."""
    config = {k: v for k, v in MISTRAL_7B_V01.items() if k != "num_key_value_heads"}
    config["sliding_window"] = None
    assert ModelShape.from_hf_config(config).n_kv_heads == 8
    assert ModelShape.from_hf_config(dict(config, model_type="llama")).n_kv_heads == 32


@pytest.mark.parametrize("change, words", [
    ({"layer_types": ["full_attention", "sliding_attention"]}, "layer_types = \\['full_attention', 'sliding_attention'\\]"),
    ({"attention_bias": True}, "attention_bias = True: the ledger's Llama block has no biases; allowed: false"),
    ({"mlp_bias": True}, "mlp_bias = True"),
    ({"architectures": ["LlamaForSequenceClassification"]}, "architectures = \\['LlamaForSequenceClassification'\\]"),
])
def test_fields_that_change_the_count_refused(change, words):
    llama = dict(MISTRAL_7B_V01, model_type="llama", architectures=["LlamaForCausalLM"], sliding_window=None)
    assert ModelShape.from_hf_config(dict(llama, layer_types=["full_attention"] * 32, attention_bias=False))
    with pytest.raises(LedgerError, match=words):
        ModelShape.from_hf_config(dict(llama, **change))

