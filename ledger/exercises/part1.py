"""Part 1's exercises (chapters 00-10): each label's answer computed from the ledger, or marked as
an explanation with a marking rubric. An exercise that asks for several numbers has one label per
number; an explanation part is the exercise's label with `-why`. The labels are those named in the
`{exercise}` blocks of notebooks/00_*.ipynb ... 10_*."""
from __future__ import annotations

from .. import assumptions
from .. import hidden_costs as _hidden
from .. import schedule as _schedule
from ..breakdown import per_step_terms
from ..engine import MODULATORS
from ..explore import DEFAULTS
from ..passes import group_by_kind, long_conv_per_channel, valid_blocks
from ..settings import Settings
from ..shapes import LLAMA3_8B
from ..shares import group_flops
from ..spectral import check_length
from ..step import step_items
from ..table import make_settings, step_row
from .registry import REGISTRY, explained, model_shape, numeric


def _pct(value: float) -> float:
    return 100 * value


# 00 What a training step adds to inference
explained("intro-4f-inversion",
          hint="what do two forward transforms in a row do to the input?")
def _forward_share(step_tokens: int = 2_097_152) -> float:
    return _pct(step_row(variant="hyena2", seq_len=2048, step_tokens=step_tokens).forward_share)


numeric("intro-bigger-step", _forward_share, rel_tol=0.0002, unit="%",
        traps=[(_forward_share(1_048_576), "the forward share at the default step, unchanged")],
        hint="which part of the step's work does not grow with the number of tokens?")
numeric("intro-bigger-step-sequences",
        lambda step_tokens=2_097_152: step_row(variant="hyena2", seq_len=2048, step_tokens=step_tokens).sequences,
        rel_tol=1e-9,
        traps=[(512, "the sequences of the default step, unchanged")],
        hint="the step's tokens over the tokens of one sequence.")
explained("intro-bigger-step-why")

# 01 The 6N rule, reproduced
def _attention_over_rest(seq_len: int) -> float:
    kinds = group_by_kind(step_items(make_settings(variant="transformer", seq_len=seq_len)))
    return kinds["attention scores"] / (sum(kinds.values()) - kinds["attention scores"])


numeric("sixn-long-context", lambda seq_len=32768: _attention_over_rest(seq_len), rel_tol=0.005,
        variants={"seq_len": (16384, 65536, 131072)},
        hint="compare the attention scores with the rest of the step, not with the whole step.")
numeric("sixn-long-context-short", lambda seq_len=2048: _attention_over_rest(seq_len), rel_tol=0.005,
        variants={"seq_len": (1024, 4096, 8192)},
        hint="the same ratio at the short length; it is linear in the sequence length.")
explained("sixn-long-context-why")
def _six_n_causal(seq_len: int = 8192, model: str = "Llama-3-8B") -> float:
    return step_row(variant="transformer", seq_len=seq_len, shape=model_shape(model), causal_attention=True).six_n_ratio


# Another model at a length it admits: Llama-3.2-1B up to its 131,072-token context, TinyLlama-1.1B
# and SmolLM-135M up to their 2,048.
SIXN_CAUSAL_ROWS = {"model": ("Llama-3.2-1B",) * 7 + ("TinyLlama-1.1B",) * 3 + ("SmolLM-135M",) * 2,
                    "seq_len": (1024, 2048, 4096, 16384, 32768, 65536, 131072, 512, 1024, 2048, 1024, 2048)}
numeric("sixn-causal", _six_n_causal, rel_tol=0.0002, variants=SIXN_CAUSAL_ROWS,
        hint="causal masking halves one term of the step only; write the ratio with both terms before dividing.")
explained("sixn-causal-why")
numeric("sixn-recompute",
        lambda seq_len=8192: _pct(step_row(variant="hyena2", seq_len=seq_len, recompute="full").step_share),
        rel_tol=0.003, unit="%", variants={"seq_len": (1024, 16384, 32768)},
        hint="the recomputed forward work carries its transforms and products too, so the share rises.")
explained("sixn-recompute-why")

# 02 The gradient of a convolution is a correlation
def _channel_backward_flops(seq_len: int) -> float:
    per_channel = long_conv_per_channel(make_settings(variant="hyena2", seq_len=seq_len))
    return sum(c.flops for c in per_channel if c.per == "sequence" and c.phase != "forward")


def _channel_backward_transform_share(seq_len: int = 8192) -> float:
    per_channel = long_conv_per_channel(make_settings(variant="hyena2", seq_len=seq_len))
    backward = [c for c in per_channel if c.per == "sequence" and c.phase != "forward"]
    return _pct(sum(c.flops for c in backward if c.cls == "transform") / sum(c.flops for c in backward))


def _fd_growth(seed: int = 0) -> float:
    """The growth of the input gradient's finite-difference error at length 1,000 when the step shrinks
    from 1e-3 to 1e-6, for one stated seed: a ratio of two rounding-error draws, so another seed gives
    another value (a few hundred to about two thousand), of the order of the factor 1,000."""
    return check_length(1000, seed=seed, fd_step=1e-6).input_grad_vs_fd / check_length(1000, seed=seed).input_grad_vs_fd


explained("corr-conj-reversal",
          hint="what is the DFT of a reversed real signal?")
# Hyena's long convolutions are built for long sequences: every power of two from 128 to 1,048,576
# tokens but the book's, 4,096 and 65,536 (chapters 04 and 08 print shares within the tolerance of
# theirs): 11 rows.
LONG_CHANNEL_ROWS = {"seq_len": (2048, 32768, 16384, 256, 512, 1024, 128, 131072, 262144, 524288, 1_048_576)}
numeric("corr-long-channel", lambda seq_len=8192: _channel_backward_flops(seq_len), rel_tol=1e-9, unit="FLOPs",
        variants=LONG_CHANNEL_ROWS,
        hint="dX has two transforms and a product; dW only a product and a complex add per bin, at n = 2S.")
# A close band of twice the tolerance: the share creeps up by 0.3-1.4% per doubling of the length.
numeric("corr-long-channel-transforms", _channel_backward_transform_share, rel_tol=0.001, close_factor=2.0, unit="%",
        variants=LONG_CHANNEL_ROWS,
        hint="only dX transforms: the spectrum of g in, and the inverse out.")
numeric("corr-fd-step", _fd_growth, rel_tol=0.05,
        formative="two calls of spectral.check_length with the stated seed give it; a rounding-noise ratio, not a derivation",
        hint="divide the error at the smaller step by the error at the default; only the finite-difference "
             "columns move.")
explained("corr-fd-step-why")

# 03 Three 4f passes
def _hybrid_step_share(fraction: float) -> float:
    return _pct(step_row(variant="hybrid", seq_len=4096, hybrid_attention_fraction=fraction).step_share)


def _dw_mask_values(seq_len: int = 2048) -> float:
    items = step_items(make_settings(variant="hyena2", seq_len=seq_len))
    return sum(i.mask_values for i in items if i.op == "long conv: G . conj(U)")


def _weight_mask_values(seq_len: int) -> float:
    items = step_items(make_settings(variant="hyena2", seq_len=seq_len))
    return sum(i.mask_values for i in items if i.cls == "weight_product")


numeric("passes-hybrid", lambda fraction=0.5: _hybrid_step_share(fraction), rel_tol=0.005, unit="%",
        variants={"fraction": (0.25, 0.75, 0.375, 0.625)},
        hint="the layers that keep attention lose their long convolutions.")
numeric("passes-hybrid-static",
        lambda fraction=0.5: _pct(step_row(variant="hybrid", seq_len=4096, hybrid_attention_fraction=fraction).static_share),
        rel_tol=0.005, unit="%", variants={"fraction": (0.25, 0.75, 0.375, 0.625)},
        hint="the static share leaves out the data-by-data products.")
explained("passes-hybrid-why")
MASK_COUNT_ROWS = {"seq_len": (1024, 8192, 16384, 128, 256, 512, 1_048_576, 32768, 65536, 131072, 262144, 524288)}
numeric("passes-mask-count", lambda seq_len=2048: _weight_mask_values(seq_len), rel_tol=1e-9, unit="complex values",
        variants=MASK_COUNT_ROWS,
        hint="count the bins of one filter's one-sided spectrum, the filters per channel, and the visits per step.")
numeric("passes-mask-count-dw", _dw_mask_values, rel_tol=1e-9, unit="complex values",
        variants=MASK_COUNT_ROWS,
        hint="the dW masks hold a spectrum of the input for every sequence of the step.")
explained("passes-mask-count-why")

# 04 Block-circulant weights in training
def _gate_dx_per_token(block: int = 256, model: str = "Llama-3-8B") -> float:
    s = make_settings(variant="hyena2_circulant", seq_len=4096, block=block, shape=model_shape(model))
    flops = sum(i.flops for i in step_items(s) if i.op.startswith("mlp gate") and i.phase == "dX")
    return flops / (s.step_tokens * s.shape.n_layers)


def _best_static_share() -> float:
    rows = [step_row(variant="hyena2_circulant", seq_len=4096, block=b) for b in valid_blocks(LLAMA3_8B, 64, 2048)]
    return _pct(max(r.static_share for r in rows))


# Blocks that tile each model's matrices (powers of two dividing H and the MLP width I).
CIRC_DX_ROWS = {"model": ("Llama-3.2-1B",) * 6 + ("TinyLlama-1.1B",) * 4 + ("SmolLM-135M",) * 2,
                "block": (32, 64, 128, 512, 1024, 2048, 32, 64, 128, 512, 32, 64)}
numeric("circ-dx-derivation", _gate_dx_per_token, rel_tol=1e-9, unit="FLOPs per token", variants=CIRC_DX_ROWS,
        hint="count the transforms of the gradient blocks, the spectral products, the sums over blocks and the "
             "inverse transforms, each at b/2 + 1 bins.")
explained("circ-dx-derivation-why")
numeric("circ-sequence", lambda: _pct(step_row(variant="hyena2_circulant", seq_len=16384).step_share),
        rel_tol=0.0005, unit="%",
        hint="keep the block at 256; only the long convolutions depend on the sequence length.")
numeric("circ-sequence-short", lambda: _pct(step_row(variant="hyena2_circulant", seq_len=1024).step_share),
        rel_tol=0.0005, unit="%", hint="the same share at the shorter length.")
numeric("circ-sequence-data", lambda: _pct(step_row(variant="hyena2_circulant", seq_len=16384).data_part),
        rel_tol=0.001, unit="%", hint="the data-by-data products' part of the optical work.")
explained("circ-sequence-why")
numeric("circ-static-block", _best_static_share, rel_tol=0.0005, unit="%",
        hint="the static share leaves out the data-by-data products; compare every block from 64 to 2,048.")
explained("circ-static-block-why")

# 05 The training-step Amdahl table
numeric("amdahl-fft-constant",
        lambda: _pct(step_row(variant="hyena2_circulant", seq_len=4096, fft_constant=5).step_share),
        rel_tol=0.0005, unit="%",
        hint="the new constant changes every transform's price; products and digital sums keep theirs.")
numeric("amdahl-fft-constant-hyena",
        lambda: _pct(step_row(variant="hyena2", seq_len=4096, fft_constant=5).step_share),
        rel_tol=0.0005, unit="%", hint="Hyena-2's optical work is almost all transforms.")
explained("amdahl-fft-constant-why")
numeric("amdahl-block-size",
        lambda block=1024: _pct(step_row(variant="hyena2_circulant", seq_len=4096, block=block).static_share),
        rel_tol=0.001, unit="%", variants={"block": (32, 512, 8)},
        hint="the static share leaves out the data-by-data products, which change with the block.")
def _block_row(block: int):
    return step_row(variant="hyena2_circulant", seq_len=4096, block=block)


numeric("amdahl-block-size-step", lambda block=1024: _pct(_block_row(block).step_share), rel_tol=0.001, unit="%",
        variants={"block": (32, 512, 8)}, hint="the optical work over the whole step.")
numeric("amdahl-block-size-data", lambda block=1024: _pct(_block_row(block).data_part), rel_tol=0.001, unit="%",
        variants={"block": (32, 512, 8)}, hint="the data-by-data products' part of the optical work.")
numeric("amdahl-block-size-amdahl", lambda block=1024: _block_row(block).amdahl_static, rel_tol=0.0002, unit="x",
        variants={"block": (32, 512, 8)}, hint="the bound from the static share, not from the step share.")
explained("amdahl-block-size-why")
numeric("amdahl-finite-speedup",
        lambda speedup=4.0: step_row(variant="hyena2_circulant", seq_len=4096, optical_speedup=speedup).amdahl_static,
        rel_tol=0.0005, unit="x", variants={"speedup": (2.0, 8.0, 12.0)},
        traps=lambda speedup: [(step_row(variant="hyena2_circulant", seq_len=4096,
                                         optical_speedup=speedup).amdahl, "the bound from the step share")],
        hint="which share do weight masks, written a fixed number of times per step, let the engine take?")
explained("amdahl-finite-speedup-why")

# 06 Masks rewritten every optimizer step
def _mask_ratio(variant: str, seq_len: int, **overrides) -> float:
    row = step_row(variant=variant, seq_len=seq_len, **overrides)
    return row.weight_mask_s / row.all_digital_step_s


numeric("masks-encoding",
        lambda: step_row(variant="hyena2", seq_len=2048, modulator="dmd-superpixel",
                         mask_spectrum="two-sided").weight_mask_s,
        rel_tol=0.003, unit="s",
        hint="16 mirrors per complex value at the DLPC900's rate for streamed binary patterns (2,880 Hz, not 1,031, "
             "nor the 9,523 Hz of pre-stored ones), and n instead of n/2 + 1 values per transform: 16 x 1,031 / 2,880 "
             "x 4,096 / 2,049, about 11.4 times the idealised device.")


def _weight_mask_factor(**switch) -> float:
    return (step_row(variant="hyena2", seq_len=2048, **switch).weight_mask_s
            / step_row(variant="hyena2", seq_len=2048).weight_mask_s)


numeric("masks-encoding-modulator", lambda: _weight_mask_factor(modulator="dmd-superpixel"), rel_tol=0.003,
        traps=[(16.0, "the superpixel timed at the idealised rate"),
               (16 * 1031 / 9523, "the superpixel timed at the rate for pre-stored patterns, not streamed ones")],
        hint="16 mirrors per complex value, written at the rate for streamed binary patterns; frames are whole.")
def _weight_mask_values_factor(**switch) -> float:
    """The factor by which `switch` multiplies the complex values Hyena-2's weight masks hold per step at
    2,048 tokens (before they are packed into whole frames)."""
    def values(**kw):
        return sum(i.mask_values for i in step_items(make_settings(variant="hyena2", seq_len=2048, **kw))
                   if i.cls == "weight_product")
    return values(**switch) / values()


numeric("masks-encoding-spectrum", lambda: _weight_mask_values_factor(mask_spectrum="two-sided"), rel_tol=0.0001,
        traps=[(2.0, "exactly 2")], hint="n values per transform instead of n/2 + 1, at n = 2S.")
explained("masks-encoding-why")
numeric("masks-step-size",
        lambda step_tokens=2_097_152: step_row(variant="hyena2", seq_len=2048, step_tokens=step_tokens).all_digital_step_s,
        rel_tol=0.002, unit="s", variants={"step_tokens": (4_194_304, 8_388_608, 16_777_216)},
        hint="which of the two grows with the tokens of the step?")
explained("masks-step-size-why")
def _faster_device_row(frame_factor: float, values_per_pixel: int):
    """The block-circulant model at 4,096 tokens on a device `frame_factor` times faster than 1,031 Hz."""
    return step_row(variant="hyena2_circulant", seq_len=4096, frame_rate=frame_factor * 1031,
                    values_per_pixel=values_per_pixel)


FASTER_DEVICE_ROWS = {"frame_factor": (5, 20, 40), "values_per_pixel": (2, 8, 2)}
numeric("masks-faster-device",
        lambda frame_factor=10, values_per_pixel=4: _faster_device_row(frame_factor, values_per_pixel).weight_mask_s,
        rel_tol=0.01, unit="s", variants=FASTER_DEVICE_ROWS, hint="both changes divide the seconds; frames are whole.")
numeric("masks-faster-device-data",
        lambda frame_factor=10, values_per_pixel=4: _faster_device_row(frame_factor, values_per_pixel).data_mask_s,
        rel_tol=0.01, unit="s", variants=FASTER_DEVICE_ROWS,
        hint="the data-by-data masks are written for every sequence; the same two changes divide them.")
# Asked within 1%: the hand route starts from the chapter's three-figure times (the rewrite, and the
# digital step on 64 GPUs, at 8,192 tokens), whose rounding moves the answer by up to about 0.5%.
MORE_GPUS_ROWS = {"gpus": (256, 512, 3072, 128, 192, 384, 768, 1536, 2304, 5120, 6144, 4608)}
numeric("masks-more-gpus", lambda gpus=1024: _mask_ratio("hyena2", 8192, gpus=gpus), rel_tol=0.01,
        variants=MORE_GPUS_ROWS,
        hint="which of the two times depends on the GPUs?")
numeric("masks-more-gpus-step", lambda gpus=1024: step_row(variant="hyena2", seq_len=8192, gpus=gpus).all_digital_step_s,
        rel_tol=0.01, unit="s", variants=MORE_GPUS_ROWS,
        hint="the chapter's all-digital step on 64 GPUs (the time model's, not the counted FLOPs over the "
             "matrix rate), scaled by 64 over your GPUs: the work is split evenly.")

# 07 Layer-major order
def _shared_engine_rate(seq_len: int = 8192, gpus: int = 64) -> float:
    settings = Settings(variant="hyena2", seq_len=seq_len)
    fused = _hidden.hidden_costs(settings, mode="fused")
    return fused.conversions.values / step_row(settings, gpus=gpus).all_digital_step_s


numeric("layer-major-engines", _shared_engine_rate, rel_tol=0.005, unit="numbers/s",
        variants={"gpus": (128, 256, 512, 40, 24, 32, 48, 96, 192, 384, 768, 1024)},
        hint="the numbers that cross into and out of the optics in one step, over the time the step may take.")
explained("layer-major-engines-why")
def _fp32_held(steps: int = 4):
    return _schedule.held_activations(Settings(variant="hyena2", seq_len=4096, step_tokens=steps * 1_048_576),
                                      bytes_per_value=4)


numeric("layer-major-fp32-boundary", lambda steps=4: _fp32_held(steps).boundary_bytes / 1e9, rel_tol=0.001, unit="GB",
        variants={"steps": (3, 8, 6)}, hint="one hidden vector per token of the step, at four bytes a value.")
numeric("layer-major-fp32-inputs", lambda steps=4: _fp32_held(steps).checkpoint_bytes / 1e12, rel_tol=0.001,
        unit="TB", variants={"steps": (3, 7, 6)}, hint="one boundary for every layer.")
explained("layer-major-fp32-why")
numeric("layer-major-fp32",
        lambda steps=4: _schedule.held_activations(Settings(variant="hyena2", seq_len=4096,
                                                            step_tokens=steps * 1_048_576),
                                                   bytes_per_value=4).spectra_bytes / 1e12,
        rel_tol=0.001, unit="TB", variants={"steps": (3, 8, 6)},
        hint="the kept spectra grow with the tokens of the step and with the bytes per value.")
numeric("layer-major-micro-batch",
        lambda micro_batch=8: float(_schedule.schedule_cost(Settings(variant="hyena2", seq_len=2048),
                                                            micro_batch).weight_frames),
        rel_tol=1e-9, unit="frames", variants={"micro_batch": (4, 32)},
        hint="how many micro-batches does the step hold, and how many whole frames does each rewrite take?")


def _micro_batch_cost(micro_batch: int = 8):
    return _schedule.schedule_cost(Settings(variant="hyena2", seq_len=2048), micro_batch)


numeric("layer-major-micro-batch-rewrites", lambda micro_batch=8: float(_micro_batch_cost(micro_batch).rewrites),
        rel_tol=1e-9, variants={"micro_batch": (4, 32)},
        hint="one rewrite per micro-batch of the step.")
numeric("layer-major-micro-batch-boundary", lambda micro_batch=8: _micro_batch_cost(micro_batch).boundary_bytes / 1e9,
        rel_tol=0.001, unit="GB", variants={"micro_batch": (4, 32)},
        hint="one hidden vector per token of one micro-batch.")
explained("layer-major-micro-batch-why")

# 08 What does not map in training
def _block_sum_ratio(block: int = 512) -> float:
    settings = Settings(variant="hyena2_circulant", seq_len=4096, block=block)
    digital = _hidden.conversions(settings, mode="fused", block_sum="digital").values
    optical = _hidden.conversions(settings, mode="fused", block_sum="optical").values
    return digital / optical


def _lm_head_share(seq_len: int) -> float:
    by_layer = group_flops(step_items(Settings(variant="hyena2_circulant", seq_len=seq_len)), "layer")
    return _pct(by_layer["lm_head"] / sum(by_layer.values()))


numeric("not-map-block-sum", _block_sum_ratio, rel_tol=0.005, variants={"block": (128, 1024)},
        hint="with a digital block sum every block product leaves the optics, in dX as in forward.")
explained("not-map-block-sum-why")
def _fp32_precision():
    return _hidden.hidden_costs(Settings(variant="hyena2_circulant", seq_len=4096), enob=12,
                                gradient_format="fp32").precision


numeric("not-map-precision-short", lambda: float(_fp32_precision().significand_short_by), rel_tol=1e-9, unit="bits",
        hint="what an fp32 term's significand needs, against what the path resolves.")
numeric("not-map-precision-one-sign", lambda: float(_fp32_precision().analog_sum_bits()), rel_tol=1e-9, unit="bits",
        hint="a sum of one sign needs the significand at its own scale, however many terms it holds.")
numeric("not-map-precision-well", lambda: _hidden.well_electrons(_fp32_precision().analog_sum_bits_random),
        rel_tol=0.01, unit="photoelectrons",
        traps=[(_hidden.well_electrons(24), "the well for a sum of one sign")],
        hint="shot noise is the square root of the count; each bit of resolution asks four times the electrons.")
numeric("not-map-precision",
        lambda: _hidden.hidden_costs(Settings(variant="hyena2_circulant", seq_len=4096), enob=12,
                                     gradient_format="fp32").precision.analog_sum_bits_random,
        rel_tol=1e-9, unit="bits",
        hint="an analog sum needs the significand at its own scale, plus headroom that grows with the tokens "
             "summed; how fast, when the terms have random signs?")
numeric("not-map-break-even",
        lambda: _hidden.hidden_costs(Settings(variant="hyena2", seq_len=8192, step_tokens=2_097_152), mode="fused").break_even_io_rate / 1e12,
        rel_tol=0.003, unit="trillion writes and samples/s",
        hint="the saving is the GPU seconds of the static work at the time model's rates; what crosses the boundary "
             "per step, over it?")
numeric("not-map-break-even-saving",
        lambda: 1e3 * _hidden.hidden_costs(Settings(variant="hyena2", seq_len=8192, step_tokens=2_097_152), mode="fused").static_saving_s,
        rel_tol=0.001, unit="ms", hint="the GPU seconds of the transforms and weight-masked products (ledger.step_time).")
numeric("not-map-lm-head", lambda seq_len=8192: _lm_head_share(seq_len), rel_tol=0.0002, unit="%",
        variants={"seq_len": (16384, 32768)},
        hint="the LM head's FLOPs over the whole step's.")
numeric("not-map-lm-head-short", lambda seq_len=2048: _lm_head_share(seq_len), rel_tol=0.0002, unit="%",
        variants={"seq_len": (1024, 512)}, hint="the same share at the shorter length.")
explained("not-map-lm-head-why")

# 09 The explorer in Jupyter
def _explorer_row(**overrides):
    return step_row(**{**DEFAULTS, **overrides})


def _share_limit() -> float:
    settings = make_settings(**DEFAULTS)
    row = _explorer_row()
    once = per_step_terms(step_items(settings)).flops
    return _pct((row.step_share * row.step_flops - once) / (row.step_flops - once))


def _largest_block_reaching(static_share: float) -> float:
    blocks = [2 ** k for k in range(1, 12)]
    return float(max(b for b in blocks if _explorer_row(block=b).static_share >= static_share))


numeric("explorer-share-drift", _share_limit, rel_tol=0.0001, unit="%",
        hint="remove the once-per-step work from both the optical work and the step before dividing.")
explained("explorer-share-drift-why")
# Two variants only: the panel offers 2,048 to 32,768 tokens, and Hyena-2's rewrite at 2,048 and
# 4,096 tokens is printed in chapter 06 (the hand route starts from the 2,048-token figure).
numeric("explorer-long-hyena", lambda seq_len=8192: _explorer_row(variant="hyena2", seq_len=seq_len).weight_mask_s,
        rel_tol=0.003, unit="s", variants={"seq_len": (16384, 32768)},
        hint="how many bins does each filter have at this length? The step size does not matter.")
numeric("explorer-long-hyena-share",
        lambda seq_len=8192: _pct(_explorer_row(variant="hyena2", seq_len=seq_len).step_share),
        rel_tol=0.003, unit="%", variants={"seq_len": (16384, 32768)},
        hint="the optical work over the whole step's.")
explained("explorer-long-hyena-why")
numeric("explorer-block-size", lambda: _largest_block_reaching(0.20), rel_tol=1e-9,
        hint="the static share rises as the block shrinks; look for the largest power of two that reaches it.")
numeric("explorer-block-size-amdahl", lambda: _explorer_row(block=int(_largest_block_reaching(0.20))).amdahl_static,
        rel_tol=0.0005, unit="x", hint="the bound from the static share at that block.")
numeric("explorer-block-size-digital", lambda: _explorer_row(block=int(_largest_block_reaching(0.20))).all_digital_step_s,
        rel_tol=0.003, unit="s", hint="smaller blocks share each weight vector over fewer rows.")

# 10 The assumptions, and what each does
def _two_switch_ratio(seq_len: int = 4096) -> float:
    default = step_row(variant="hyena2_circulant", seq_len=seq_len)
    both = step_row(variant="hyena2_circulant", seq_len=seq_len, mask_spectrum="two-sided", modulator="dmd-superpixel")
    return both.data_mask_s / default.data_mask_s


numeric("assumptions-two-switches", _two_switch_ratio, rel_tol=0.005,
        hint="each switch multiplies the frames or the values; the superpixel frames are written at the rate for "
             "streamed binary patterns; frames are whole.")


def _two_switch_prediction() -> float:
    return 2 * 16 * MODULATORS["ideal"].frame_rate_hz / MODULATORS["dmd-superpixel"].frame_rate_hz


numeric("assumptions-two-switches-predicted", _two_switch_prediction, rel_tol=0.002,
        traps=[(32.0, "2 x 16, timed at the idealised rate"), (_two_switch_ratio(), "the ledger's factor, not the prediction"),
               (2 * 16 * 1031 / 9523, "timed at the rate for pre-stored patterns, not streamed ones")],
        hint="twice the values, sixteen times the frames, written at the rate for streamed binary patterns.")
explained("assumptions-two-switches-why")
def _jointly_best(speedup: float | None = None) -> dict[str, float]:
    """The block-circulant model's figures at 4,096 tokens under the combination of alternatives that gives it its
    highest Amdahl bound in the joint view (chapter 10), at `speedup` (None: an infinitely fast engine)."""
    best = assumptions.joint_view(4096).get("hyena2_circulant", "amdahl").high_combination
    rows = [assumptions.by_name(name) for name in best]
    extra = {} if speedup is None else {"optical_speedup": speedup}
    return assumptions.figures_with(rows, variant="hyena2_circulant", seq_len=4096, **extra)


def _gain_share_at(speedup: float = 4.0) -> float:
    return _pct((_jointly_best(speedup)["amdahl"] - 1) / (_jointly_best()["amdahl"] - 1))


def _default_gain_share_at(speedup: float) -> float:
    at = step_row(variant="hyena2_circulant", seq_len=4096, optical_speedup=speedup).amdahl
    return _pct((at - 1) / (step_row(variant="hyena2_circulant", seq_len=4096).amdahl - 1))


numeric("assumptions-half-gain", lambda: 1 + _jointly_best()["amdahl"], rel_tol=0.001, unit="x",
        traps=[(1 + step_row(variant="hyena2_circulant", seq_len=4096).amdahl, "the half-gain speed-up at the defaults")],
        hint="the half-gain speed-up is 1 + 1/(1 - p); which p does that combination give?")
numeric("assumptions-half-gain-at-s", _gain_share_at, rel_tol=0.001, unit="%", variants={"speedup": (2.0, 8.0, 20.0)},
        traps=lambda speedup: [(_default_gain_share_at(speedup), "the share of the gain at the defaults")],
        hint="the gain is the speed-up minus one, at s and at an infinite s, for the same combination.")
explained("assumptions-half-gain-why")


# Which parts count towards a grade (the course guide's assessment plan), and which are formative: a
# part that one library call with the statement's parameters answers is practice, whatever its chapter.
FORMATIVE = {
    "sixn-recompute": "one call of ledger.step_row with recompute='full' gives it",
    "passes-hybrid": "one call of ledger.step_row with the statement's fraction gives it",
    "passes-hybrid-static": "one call of ledger.step_row with the statement's fraction gives it",
    "amdahl-block-size": "one call of ledger.step_row with the statement's block gives it",
    "amdahl-block-size-step": "one call of ledger.step_row with the statement's block gives it",
    "amdahl-block-size-data": "one call of ledger.step_row with the statement's block gives it",
    "amdahl-block-size-amdahl": "one call of ledger.step_row with the statement's block gives it",
    "amdahl-finite-speedup": "one call of ledger.step_row with the statement's speed-up gives it",
    "masks-step-size": "one call of ledger.step_row with the statement's step gives it",
    "layer-major-fp32": "one call of schedule.held_activations with the statement's step gives it",
    "layer-major-fp32-boundary": "one call of schedule.held_activations with the statement's step gives it",
    "layer-major-fp32-inputs": "one call of schedule.held_activations with the statement's step gives it",
    "explorer-long-hyena": "one call of ledger.step_row with the statement's length gives it",
    "explorer-long-hyena-share": "one call of ledger.step_row with the statement's length gives it",
}
GRADED = ("sixn-causal", "corr-long-channel", "corr-long-channel-transforms", "passes-mask-count",
          "circ-dx-derivation", "masks-more-gpus", "masks-more-gpus-step",
          "layer-major-engines", "corr-conj-reversal", "amdahl-block-size-why", "masks-step-size-why")


def _mark(graded: tuple, formative: dict) -> None:
    """Set the graded flag and the formative reasons on registered labels (kept apart from each
    registration so that the grading plan reads in one place)."""
    from dataclasses import replace
    for label, reason in formative.items():
        REGISTRY[label] = replace(REGISTRY[label], formative=reason, graded=False)
    for label in graded:
        REGISTRY[label] = replace(REGISTRY[label], graded=True)


_mark(GRADED, FORMATIVE)
