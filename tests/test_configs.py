"""The shipped Hugging Face configs load; mixture-of-experts and non-Llama configs are refused."""
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
