"""Model shapes: Llama-3-8B by default, any Llama-style shape, or a Hugging Face config.json."""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import LedgerError, check_positive_int

# Hugging Face config keys the ledger reads, and the ModelShape field each fills.
HF_KEYS = {
    "num_hidden_layers": "n_layers",
    "hidden_size": "hidden",
    "num_attention_heads": "n_heads",
    "num_key_value_heads": "n_kv_heads",
    "intermediate_size": "intermediate",
    "vocab_size": "vocab",
}
# Architectures whose blocks are exactly the Llama block the ledger counts.
LLAMA_STYLE_MODEL_TYPES = ("llama", "mistral")
# Keys that mark a mixture-of-experts MLP, which the ledger cannot count as one dense MLP.
MOE_KEYS = ("num_local_experts", "num_experts", "n_routed_experts", "moe_intermediate_size")
# Hugging Face's defaults for keys a config may leave out, where they differ by architecture
# (transformers' LlamaConfig and MistralConfig): no grouping for Llama, 8 key/value heads and a
# sliding window of 4,096 tokens for Mistral.
HF_DEFAULT_KV_HEADS = {"mistral": 8}
HF_DEFAULT_SLIDING_WINDOW = {"mistral": 4096}
# Boolean keys of a Llama config that add weights the ledger's block does not have (false by default).
BIAS_KEYS = ("attention_bias", "mlp_bias")


@dataclass(frozen=True)
class ModelShape:
    """A Llama-style decoder: attention with grouped key/value heads and a SwiGLU MLP."""

    n_layers: int = 32
    hidden: int = 4096
    n_heads: int = 32
    n_kv_heads: int = 8
    intermediate: int = 14336
    vocab: int = 128256
    tied_embeddings: bool = False
    name: str = "Llama-3-8B"

    def __post_init__(self) -> None:
        for field in ("n_layers", "hidden", "n_heads", "n_kv_heads", "intermediate", "vocab"):
            check_positive_int(field, getattr(self, field))
        if self.hidden % self.n_heads:
            raise LedgerError(
                f"n_heads = {self.n_heads} does not divide hidden = {self.hidden}: "
                "the head dimension must be a whole number")
        if self.n_heads % self.n_kv_heads:
            raise LedgerError(
                f"n_kv_heads = {self.n_kv_heads} does not divide n_heads = {self.n_heads}: "
                "each key/value head must serve a whole group of query heads")
        if not isinstance(self.tied_embeddings, bool):
            raise LedgerError(f"tied_embeddings = {self.tied_embeddings!r}: must be true or false")

    @property
    def head_dim(self) -> int:
        return self.hidden // self.n_heads

    @property
    def kv_dim(self) -> int:
        """Width of the key and value projections: n_kv_heads * head_dim."""
        return self.n_kv_heads * self.head_dim

    @property
    def attention_matrix_params(self) -> int:
        """q, k, v and o projections of one layer."""
        return 2 * self.hidden * self.hidden + 2 * self.hidden * self.kv_dim

    @property
    def mlp_matrix_params(self) -> int:
        """gate, up and down matrices of one SwiGLU MLP."""
        return 3 * self.hidden * self.intermediate

    @property
    def embedding_params(self) -> int:
        return self.vocab * self.hidden

    @property
    def matrix_params(self) -> int:
        """All weight matrices, norms left out; the LM head counted unless tied to the embedding (then the
        shared table is counted once)."""
        heads = 1 if self.tied_embeddings else 2
        return self.n_layers * (self.attention_matrix_params + self.mlp_matrix_params) + heads * self.embedding_params

    @property
    def input_table_share(self) -> float:
        """Fraction (0-1) of the weight matrices (`matrix_params`, the shared table once if tied) that the
        input embedding table holds: parameters memory stores that no FLOP per token multiplies."""
        return self.embedding_params / self.matrix_params

    @property
    def norm_params(self) -> int:
        """RMSNorm weights: two per layer and a final one, `hidden` each."""
        return (2 * self.n_layers + 1) * self.hidden

    @property
    def total_params(self) -> int:
        """Every parameter the model stores (and the optimizer updates): matrices, the embedding table
        once if tied, and the norm weights. What memory counts; FLOPs count N."""
        return self.matrix_params + self.norm_params

    @property
    def N(self) -> int:
        """Parameters that multiply activations: every matrix but the input embedding (a lookup)."""
        layers = self.n_layers * (self.attention_matrix_params + self.mlp_matrix_params)
        return layers + self.embedding_params  # the LM head, dense, tied or not

    @classmethod
    def from_hf_config(cls, config: Mapping[str, Any] | str | Path, name: str | None = None) -> ModelShape:
        """Read a Hugging Face config.json (a path or an already-parsed dict) of a Llama-style model."""
        if not isinstance(config, Mapping):
            path = Path(config)
            config = read_config(path)
            name = name or path.parent.name or path.stem
        model_type = config.get("model_type")
        if model_type is not None and model_type not in LLAMA_STYLE_MODEL_TYPES:
            raise LedgerError(
                f"model_type = {model_type!r}: the ledger counts Llama-style decoders only "
                f"({', '.join(LLAMA_STYLE_MODEL_TYPES)})")
        for key in MOE_KEYS:
            if config.get(key):
                raise LedgerError(
                    f"{key} = {config[key]!r}: mixture-of-experts models are not supported "
                    "(the ledger counts one dense SwiGLU MLP per layer)")
        check_counted_as_llama(config)
        values: dict[str, Any] = {}
        for key, field in HF_KEYS.items():
            if key not in config:
                if key == "num_key_value_heads":  # Hugging Face's default: 8 for Mistral, no grouping for Llama
                    continue
                raise LedgerError(f"config is missing {key!r}: a Llama-style config needs {', '.join(HF_KEYS)}")
            values[field] = check_positive_int(key, config[key])
        values.setdefault("n_kv_heads", HF_DEFAULT_KV_HEADS.get(model_type, values["n_heads"]))
        head_dim = config.get("head_dim")
        if head_dim is not None and head_dim * values["n_heads"] != values["hidden"]:
            raise LedgerError(
                f"head_dim = {head_dim!r}: the ledger needs head_dim * num_attention_heads = hidden_size")
        tied = config.get("tie_word_embeddings", False)
        if not isinstance(tied, bool):
            raise LedgerError(f"tie_word_embeddings = {tied!r}: must be true or false")
        return cls(**values, tied_embeddings=tied, name=name or config.get("_name_or_path", "custom"))


def check_counted_as_llama(config: Mapping[str, Any]) -> None:
    """Refuse, with a LedgerError naming the key, a config whose other keys make its step differ from
    the Llama block the ledger counts (full causal attention in every layer, no biases, an LM head):
    a sliding attention window (`sliding_window`, which Hugging Face's MistralConfig sets to 4,096
    when the key is absent), layers other than full attention (`layer_types`), biases
    (`attention_bias`, `mlp_bias`), and a head other than the causal LM's (`architectures`)."""
    model_type = config.get("model_type")
    window = config.get("sliding_window", HF_DEFAULT_SLIDING_WINDOW.get(model_type))
    if window is not None:
        given = "sliding_window" in config
        raise LedgerError(
            f"sliding_window = {window!r}{'' if given else ' (Hugging Face default for ' + repr(model_type) + ', absent)'}"
            ": the ledger counts full attention only (no window on the keys); allowed: null")
    layer_types = config.get("layer_types")
    if layer_types is not None and (isinstance(layer_types, (str, bytes)) or not hasattr(layer_types, "__iter__")
                                    or any(t != "full_attention" for t in layer_types)):
        raise LedgerError(f"layer_types = {layer_types!r}: the ledger counts full attention in every layer; "
                          "allowed: only \"full_attention\"")
    for key in BIAS_KEYS:
        if config.get(key, False) is not False:
            raise LedgerError(f"{key} = {config[key]!r}: the ledger's Llama block has no biases; allowed: false")
    architectures = config.get("architectures")
    if architectures is not None and (isinstance(architectures, (str, bytes)) or not hasattr(architectures, "__iter__")
                                      or not all(isinstance(a, str) and a.endswith("ForCausalLM")
                                                 for a in architectures)):
        raise LedgerError(f"architectures = {architectures!r}: the ledger counts a causal LM's head over the "
                          "vocabulary; allowed: ...ForCausalLM")


def read_config(path: Path) -> Mapping[str, Any]:
    """A config.json's object; a LedgerError naming the file if it is missing, not JSON or not an object."""
    try:
        config = json.loads(path.read_text())
    except FileNotFoundError:
        raise LedgerError(f"config {str(path)!r}: no such file") from None
    except json.JSONDecodeError as err:
        raise LedgerError(f"config {str(path)!r}: not valid JSON ({err.msg}, line {err.lineno})") from None
    if not isinstance(config, Mapping):
        raise LedgerError(f"config {str(path)!r}: must hold a JSON object")
    return config


def position_limits(config: Mapping[str, Any] | str | Path) -> dict[str, int | None]:
    """The position fields of a Hugging Face config: max_position_embeddings (the longest context the
    position encoding is set up for) and, under RoPE scaling, rope_scaling.original_max_position_embeddings
    (the context before scaling). Neither is the length of the sequences the model was trained on."""
    if not isinstance(config, Mapping):
        config = read_config(Path(config))
    scaling = config.get("rope_scaling") or {}
    return {"max_position_embeddings": config.get("max_position_embeddings"),
            "original_max_position_embeddings": scaling.get("original_max_position_embeddings")}


LLAMA3_8B = ModelShape()
