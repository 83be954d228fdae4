"""Changes of the model under which a claim's sentence would be false: the claims' `fails_when`.

A claim's check protects the sentence only if some change of the model can make it fail. Each claim
therefore names one such change: a `Change`, a one-line description ("the FFT were priced 10x
higher") and the patches that make it. A patch replaces, through `unittest.mock.patch`, something
the model computes from:

- `default(owner, name, value)`: a default of the model, a dataclass field's (`Costs.fft_constant`,
  `Settings.recompute`) or a function argument's (`article.data_parallel_traffic`'s weight_bytes);
- `constant(module, name, value)`: a module constant (`article.H100_NODES`), rebound in every loaded
  `ledger` module that imported the same object under the same name;
- `wrapped(owner, name, wrap)`: a library function or method replaced by `wrap(original)` (an FFT
  priced as Bluestein's algorithm runs it, a flash kernel that keeps its scores);
- `entries(mapping, **values)`: entries of a library table (a peer's switches).

Every target is the library's, outside the claims package: a change moves what the ledger computes
(a claim module that imported the object by name sees the new one, as every other module does),
never a check or a value of a claim module, and the check, unchanged, must then return False
(tests/test_claims_fail.py). `with change.applied():` makes the change and undoes it on leaving, on
an error too. A view the library caches (the joint view of ledger.assumptions) does not see a change
by itself: `recounting_joint_view(change)` recounts it under the change and leaves the cache as it was. The named changes below are the ones the claims use; a new claim may compose its own
from the four patches.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import sys
import types
from dataclasses import dataclass, replace
from typing import Any, Callable, ContextManager, Iterator, Mapping
from unittest import mock

from .. import article, assumptions, engine, hardware, layers, memory, reconcile, schedule, shapes, spectral, step
from ..costs import Costs
from ..engine import MODULATORS, Engine
from ..errors import LedgerError
from ..settings import Settings


@dataclass(frozen=True)
class Patch:
    """One replacement: `target` names what is replaced (dotted), `make` returns the context manager."""

    target: str
    make: Callable[[], ContextManager]


@dataclass(frozen=True)
class Change:
    """A change of the model, in words (`text`) and as patches a test can apply (`applied`)."""

    text: str
    patches: tuple[Patch, ...]

    def __post_init__(self) -> None:
        if not self.text or not self.patches:
            raise LedgerError("a change needs a description and at least one patch")

    @property
    def targets(self) -> tuple[str, ...]:
        """The dotted names of what the change replaces."""
        return tuple(p.target for p in self.patches)

    @contextlib.contextmanager
    def applied(self) -> Iterator["Change"]:
        """Make the change for the duration of a `with` block; every patch is undone on leaving."""
        with contextlib.ExitStack() as stack:
            for p in self.patches:
                stack.enter_context(p.make())
            yield self


def change(text: str, *patches: Patch) -> Change:
    """A change described by `text` and made by `patches` (all of them, in order)."""
    return Change(text, tuple(patches))


def _name(owner: Any) -> str:
    return f"{getattr(owner, '__module__', '?')}.{getattr(owner, '__qualname__', getattr(owner, '__name__', owner))}"


# --- the patches ---------------------------------------------------------------------------------

def default(owner: Any, name: str, value: Any) -> Patch:
    """Replace the default of field `name` of dataclass `owner` (what `owner()` builds it with), or of
    argument `name` of function `owner`. A field built by a default factory has no default to replace
    (change what the factory builds instead)."""
    fn = owner.__init__ if isinstance(owner, type) else owner
    if not isinstance(fn, types.FunctionType):
        raise LedgerError(f"{_name(owner)} has no Python signature whose defaults could change")
    field = None
    if isinstance(owner, type) and dataclasses.is_dataclass(owner):
        field = owner.__dataclass_fields__.get(name)
        if field is not None and field.default is dataclasses.MISSING:
            raise LedgerError(f"{_name(owner)}.{name} has no plain default (it is built by a factory or required)")
    params = inspect.signature(fn).parameters
    param = params.get(name)
    if param is None or param.default is inspect.Parameter.empty:
        raise LedgerError(f"{_name(owner)} has no argument {name!r} with a default")
    keyword_only = param.kind is inspect.Parameter.KEYWORD_ONLY
    positional = [p for p in params.values()
                  if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]

    @contextlib.contextmanager
    def make():
        with contextlib.ExitStack() as stack:
            if keyword_only:
                stack.enter_context(mock.patch.dict(fn.__kwdefaults__, {name: value}))
            else:
                defaults = list(fn.__defaults__)
                defaults[[p.name for p in positional[len(positional) - len(defaults):]].index(name)] = value
                stack.enter_context(mock.patch.object(fn, "__defaults__", tuple(defaults)))
            if field is not None:  # what introspection of the dataclass reads, kept in step with __init__
                stack.enter_context(mock.patch.object(field, "default", value))
                stack.enter_context(mock.patch.object(owner, name, value))
            yield
    return Patch(f"{_name(owner)}({name}=...) default", make)


def constant(owner: Any, name: str, value: Any) -> Patch:
    """Replace `owner.name` (a module constant or function, a class attribute) by `value`; a module's
    object is rebound too in every loaded `ledger` module that imported the same object under `name`."""
    if not hasattr(owner, name):
        raise LedgerError(f"{_name(owner)} has no attribute {name!r}")

    @contextlib.contextmanager
    def make():
        original = getattr(owner, name)
        owners = [owner]
        if isinstance(owner, types.ModuleType):
            owners += [m for key, m in sorted(sys.modules.items())
                       if (key == "ledger" or key.startswith("ledger.")) and m is not owner
                       and getattr(m, name, None) is original]
        try:
            with contextlib.ExitStack() as stack:
                for o in owners:
                    stack.enter_context(mock.patch.object(o, name, value))
                yield
        finally:  # a module first imported during the change took the changed object: give it the original
            for key, m in list(sys.modules.items()):
                if (key == "ledger" or key.startswith("ledger.")) and getattr(m, name, None) is value \
                        and m not in owners:
                    setattr(m, name, original)
    where = owner.__name__ if isinstance(owner, types.ModuleType) else _name(owner)
    return Patch(f"{where}.{name}", make)


def wrapped(owner: Any, name: str, wrap: Callable[[Callable], Callable]) -> Patch:
    """Replace the function or method `owner.name` by `wrap(original)` (rebound as `constant` does)."""
    if not callable(getattr(owner, name, None)):
        raise LedgerError(f"{_name(owner)}.{name} is not a function")

    @contextlib.contextmanager
    def make():
        with constant(owner, name, wrap(getattr(owner, name))).make():
            yield
    return Patch(constant(owner, name, None).target, make)


def entries(mapping: Mapping, where: str, **values: Any) -> Patch:
    """Set `values` in the library's dict `mapping` (named `where`), restored on leaving."""
    return Patch(where, lambda: mock.patch.dict(mapping, values))


# --- the changes the claims use ------------------------------------------------------------------

def fft_priced(factor: float) -> Change:
    """Every real FFT priced `factor` times the book's 2.5 n log2 n (the count's convention)."""
    how = f"{factor:g}x higher" if factor > 1 else f"at {factor:g}x the book's price"
    return change(f"the FFT were priced {how} ({factor * 2.5:g} n log2 n per real FFT)",
                  default(Costs, "fft_constant", factor * Costs().fft_constant))


def complex_multiply_priced(flops: float) -> Change:
    """A complex multiply priced `flops` FLOPs (the book's 6: four real multiplies and two adds)."""
    return change(f"a complex multiply were priced {flops:g} FLOPs, not 6", default(Costs, "complex_mul_flops", flops))


CAUSAL_HALVED = change("the model count halved QK^T and AV for the causal mask (Megatron-LM's 2025 count) by default",
                       default(Costs, "causal_attention", True))
FMA_ONE_FLOP = change("a multiply-add were counted as one FLOP, not two", default(Costs, "flops_per_mac", 1.0))
RECOMPUTE_FULL = change("every block's forward were run again in the backward by default (full recomputation)",
                        default(Settings, "recompute", "full"))


def attention_tiles(rows: int) -> Change:
    """Settings' default tile of the causal FlashAttention kernel at `rows` rows and columns."""
    return change(f"the causal kernel's tiles were {rows:,} rows by default, not 128",
                  default(Settings, "attention_tile", rows))


def model_shape(text: str, **fields: Any) -> Change:
    """The book's model (Llama-3-8B, `shapes.LLAMA3_8B` and `Settings`' default shape) with `fields` changed."""
    new = replace(shapes.LLAMA3_8B, **fields)
    return change(text, constant(shapes, "LLAMA3_8B", new), default(Settings, "shape", new))


def _circulant_head(original: Callable) -> Callable:
    def weight_matrices(s: Settings) -> list[step.WeightMatrix]:
        *matrices, head = original(s)
        return [*matrices, replace(head, circulant=True, block=s.block)]
    return weight_matrices


LM_HEAD_CIRCULANT = change("the LM head were block-circulant (blocks of the variant's b) in every variant",
                           wrapped(step, "weight_matrices", _circulant_head))


def _keeps_scores(original: Callable) -> Callable:
    def attention_core_items(s: Settings, n_layers: int | None = None):
        return [i for i in original(s, n_layers) if i.op != hardware.KERNEL_RECOMPUTE_OP]
    return attention_core_items


FLASH_KEEPS_SCORES = change("a flash kernel's backward kept the scores instead of recomputing QK^T",
                            wrapped(hardware, "attention_core_items", _keeps_scores))


def _recomputes_both(original: Callable) -> Callable:
    def attention_core_items(s: Settings, n_layers: int | None = None):
        items = original(s, n_layers)
        return items + [i for i in items if i.op == hardware.KERNEL_RECOMPUTE_OP]  # A V, of QK^T's size
    return attention_core_items


FLASH_RECOMPUTES_AV = change("a flash kernel's backward recomputed A V as well as QK^T",
                             wrapped(hardware, "attention_core_items", _recomputes_both))


def _no_document_mask(original: Callable) -> Callable:
    def packed_causal_score_entries(doc_lengths, tile: int) -> int:
        original(doc_lengths, tile)  # its refusals of bad input stay
        return hardware.causal_score_entries(sum(doc_lengths), tile)
    return packed_causal_score_entries


NO_DOCUMENT_MASK = change("a packed row's kernel skipped only the tiles above the diagonal, none across documents",
                          wrapped(hardware, "packed_causal_score_entries", _no_document_mask))


def _row_not_documents(original: Callable) -> Callable:
    def model_score_entries(s: Settings) -> int:
        original(s)
        return s.seq_len * s.seq_len
    return model_score_entries


DOCUMENTS_COUNTED_AS_ROW = change("the documents count priced attention over the whole row, S^2, like the sequence count",
                                  wrapped(layers, "model_score_entries", _row_not_documents))


def _bluestein(original: Callable) -> Callable:
    def rfft(self: Costs, n: int) -> float:
        if n & (n - 1) == 0:
            return original(self, n)
        m = 1 << (2 * n - 2).bit_length()  # Bluestein: three FFTs of a power of two m >= 2n - 1
        return 3 * original(self, m)
    return rfft


FFT_BLUESTEIN = change("an FFT of a length that is not a power of two were priced as Bluestein's algorithm runs "
                       "it (three FFTs of a power of two of at least 2n - 1)", wrapped(Costs, "rfft", _bluestein))


def _unpadded(original: Callable) -> Callable:
    def fft_length(length: int) -> int:
        original(length)  # its refusals of bad input stay
        return 1 << (int(length) - 1).bit_length()
    return fft_length


FFT_UNPADDED = change("the spectral products were taken at the smallest power of two n >= L, not >= 2L "
                      "(circular convolution: the lags wrap around)", wrapped(spectral, "fft_length", _unpadded))


def network(text: str, nvlink: float | None = None, nic: float | None = None) -> Change:
    """The H100 nodes (`article.H100_NODES`) with NVLink and/or NIC bandwidth (bytes/s each way) changed."""
    nodes = article.H100_NODES
    new = replace(nodes, nvlink_bandwidth=nvlink or nodes.nvlink_bandwidth, nic_bandwidth=nic or nodes.nic_bandwidth)
    return change(text, constant(article, "H100_NODES", new))


def memory_bandwidth(factor: float) -> Change:
    """The illustrative accelerator (article.ILLUSTRATIVE_BANDWIDTH's, 1,000 TFLOP/s and 3.35 TB/s) with `factor` x the bandwidth."""
    new = factor * article.ILLUSTRATIVE_BANDWIDTH
    return change(f"the illustrative accelerator's memory moved {factor:g}x the bytes ({new / 1e12:g} TB/s)",
                  constant(article, "ILLUSTRATIVE_BANDWIDTH", new))


WEIGHTS_GATHERED_FP32 = change(
    "the data-parallel weight all-gathers moved fp32 weights (4 bytes), not bf16",
    *(default(f, "weight_bytes", 4.0) for f in (article.data_parallel_traffic, article.data_parallel_bytes,
                                                 article.data_parallel_seconds)))


def recipe_micro_batch_tokens(tokens: int) -> Change:
    """torchtitan's llama3_8b recipe with micro-batches of `tokens` tokens per data-parallel rank."""
    return change(f"torchtitan's llama3_8b recipe ran micro-batches of {tokens:,} tokens, not 8,192",
                  constant(article, "TORCHTITAN_LLAMA3_8B_MICROBATCH_TOKENS", tokens))


HYENA_TOOLS_COUNT_PRODUCTS = change(
    "the Hyena tools counted each long convolution's spectral products, not its transforms alone",
    *(entries(spec["switches"], f"ledger.reconcile.SOURCES[{source!r}]['switches']", elementwise="counted")
      for source, spec in reconcile.SOURCES.items() if spec["variant"] == "hyena2"))



def _dh_per_sequence(original: Callable) -> Callable:
    def long_convolutions(s: Settings, n_layers: int) -> list[layers.LineItem]:
        return [replace(i, per="sequence", count=i.count * s.sequences, flops=i.flops * s.sequences,
                        moved=i.moved * s.sequences) if i.op == "long conv: inverse rFFT of dH" else i
                for i in original(s, n_layers)]
    return long_convolutions


DH_PER_SEQUENCE = change("a long convolution's weight gradient dH were inverse-transformed for every sequence, "
                         "not once per step from a spectrum accumulated over the step",
                         wrapped(layers, "long_convolutions", _dh_per_sequence))


# --- the engine, the cluster and the run -----------------------------------------------------------

def modulator(name: str, text: str, **fields: Any) -> Change:
    """The modulator mode `name` of ledger.engine.MODULATORS with `fields` changed (a rate, an alphabet)."""
    return change(text, entries(MODULATORS, f"ledger.engine.MODULATORS[{name!r}]",
                                **{name: replace(MODULATORS[name], **fields)}))


def modulator_rate(name: str, factor: float) -> Change:
    """The mode `name` at `factor` times its frame rate."""
    mode = MODULATORS[name]
    what = "the idealised device" if mode.idealised else f"the {name} mode ({mode.device})"
    return modulator(name, f"{what} ran at {factor * mode.frame_rate_hz:,.0f} frames/s, {factor:g}x its "
                           f"{mode.frame_rate_hz:,.0f}", frame_rate_hz=factor * mode.frame_rate_hz)


IDEAL_10X = modulator_rate("ideal", 10)


def _lazy_entry(name: str, make: Callable[[], Any]) -> Patch:
    """A MODULATORS entry built only when the change is applied (an alphabet counted by enumeration)."""
    @contextlib.contextmanager
    def apply():
        with mock.patch.dict(MODULATORS, {name: make()}):
            yield
    return Patch(f"ledger.engine.MODULATORS[{name!r}]", apply)


LCOS_10_BIT = change(
    "the video-rate liquid-crystal device had 10-bit phase (1,024 levels), not 8-bit: its double-phase hologram "
    "then gives 9.5 bits per quadrature",
    _lazy_entry("lcos-double-phase", lambda: replace(MODULATORS["lcos-double-phase"],
                                                     distinct_values=engine.double_phase_values(1024))))
IDEAL_10_BITS = modulator("ideal", "the idealised device resolved 10 bits per quadrature (4^10 complex values), "
                                   "not 8", distinct_values=4 ** 10)


def engine_default(text: str, **fields: Any) -> Change:
    """Defaults of ledger.engine.Engine (the device every Settings builds) changed: pixels, rates, the cluster."""
    return change(text, *(default(Engine, k, v) for k, v in fields.items()))


def settings_default(text: str, **fields: Any) -> Change:
    """Defaults of ledger.settings.Settings changed: the block, the step size, the run policy."""
    return change(text, *(default(Settings, k, v) for k, v in fields.items()))


def step_size(tokens: int, text: str) -> Change:
    """The optimizer step of `tokens` tokens by default (the book's 1,048,576)."""
    return settings_default(f"one optimizer step were {tokens:,} tokens ({text}), not 1,048,576", step_tokens=tokens)


FAST_IO = engine_default("the input plane and detector took 10^12 numbers per second each (a fast converter bank), "
                         "not the mask device's rates", input_rate=1e12)
FILTERS_PER_MICRO_BATCH = settings_default("every GPU built the filter and weight-block spectra once per micro-batch "
                                           "(a real run), not once per step", filter_build="micro-batch")


def hbm_per_gpu(nbytes: float, text: str) -> Change:
    """Every GPU with `nbytes` of HBM (the book's 80 GB), wherever the ledger sets it."""
    return change(f"each GPU had {nbytes / 1e9:,.0f} GB of HBM ({text}), not 80",
                  default(memory.rank_activations, "hbm_bytes_per_gpu", nbytes),
                  default(schedule.held_activations, "hbm_bytes_per_gpu", nbytes),
                  constant(schedule, "HBM_BYTES_PER_GPU", nbytes))


def _uncached(original: Callable) -> Callable:
    return functools.lru_cache(maxsize=4)(original.__wrapped__)


JOINT_VIEW_RECOUNTED = wrapped(assumptions, "_joint_view", _uncached)
"""The joint view with a cache of its own for the duration of a change: ledger.assumptions caches the grid
per length (seconds of step ledgers), so a change that should move it must recount it, and the cached grid
of the defaults is back on leaving."""


def recounting_joint_view(c: Change) -> Change:
    """`c` with the joint view recounted under it (and its cached grid back on leaving)."""
    return Change(c.text, c.patches + (JOINT_VIEW_RECOUNTED,))


CONVOLUTION_UNPADDED = change("the long convolutions' FFTs were of length S, not 2S (no zero padding: circular "
                              "convolutions, whose lags wrap around)",
                              constant(Settings, "fft_len", property(lambda s: s.seq_len)))


def _dense_mlp(original: Callable) -> Callable:
    def weight_matrices(s: Settings) -> list[step.WeightMatrix]:
        return [replace(m, circulant=False, block=1) if m.layer == "mlp" else m for m in original(s)]
    return weight_matrices


CIRCULANT_MLP_DENSE = change("the block-circulant model kept its MLP matrices dense (only its Hyena projections "
                             "block-circulant)", wrapped(step, "weight_matrices", _dense_mlp))
