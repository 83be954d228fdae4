"""Part 1's exercises (chapters 00-09): each label's answer computed from the ledger, or marked as
an explanation. The labels are those of the `{exercise}` blocks in notebooks/00_*.ipynb ... 09_*."""
from __future__ import annotations

from .. import hidden_costs as _hidden
from .. import schedule as _schedule
from ..passes import long_conv_per_channel, valid_blocks
from ..settings import Settings
from ..shapes import LLAMA3_8B
from ..shares import group_flops
from ..step import step_items
from ..table import make_settings, step_row
from .registry import explained, numeric


def _pct(value: float) -> float:
    return 100 * value


# 00 What a training step adds to inference
explained("intro-4f-inversion",
          hint="two forward transforms give u(-x); a mirror image is a relabelling of the camera's pixels.")
numeric("intro-bigger-step",
        lambda: _pct(step_row(variant="hyena2", seq_len=2048, step_tokens=2_097_152).forward_share),
        rel_tol=0.0025, unit="%",
        hint="give the forward share in percent at 2,097,152 tokens; only the once-per-step filter FFTs "
             "do not double with the step.")

# 01 The 6N rule, reproduced
def _attention_over_rest(seq_len: int) -> float:
    from ..passes import group_by_kind
    kinds = group_by_kind(step_items(make_settings(variant="transformer", seq_len=seq_len)))
    return kinds["attention scores"] / (sum(kinds.values()) - kinds["attention scores"])


numeric("sixn-long-context", lambda: _attention_over_rest(32768), rel_tol=0.005,
        hint="compare the attention scores with the rest of the step (6NT), not with the whole step.")
numeric("sixn-causal", lambda: step_row(variant="transformer", seq_len=8192, causal_attention=True).six_n_ratio,
        rel_tol=0.0002,
        hint="causal masking halves the 12LSH term only: the ratio is (N + LSH) / (N + 2LSH).")
numeric("sixn-recompute", lambda: _pct(step_row(variant="hyena2", seq_len=4096, recompute="full").step_share),
        rel_tol=0.003, unit="%",
        hint="the recomputed forward work carries its transforms and H.U products too, so the share rises.")

# 02 The gradient of a convolution is a correlation
def _channel_backward_flops(seq_len: int) -> float:
    per_channel = long_conv_per_channel(make_settings(variant="hyena2", seq_len=seq_len))
    return sum(c.flops for c in per_channel if c.per == "sequence" and c.phase != "forward")


def _fd_growth() -> float:
    from ..spectral import check_length
    return check_length(1000, fd_step=1e-6).input_grad_vs_fd / check_length(1000).input_grad_vs_fd


explained("corr-conj-reversal",
          hint="the DFT of a reversed real signal is the conjugate of its DFT; reversal is a relabelling of pixels.")
numeric("corr-long-channel", lambda: _channel_backward_flops(8192), rel_tol=1e-4, unit="FLOPs",
        hint="dX has two transforms and a product; dW only a product and a complex add per bin, "
             "with n = 2S = 16,384.")
numeric("corr-fd-step", _fd_growth, rel_tol=0.05,
        hint="divide the error at fd_step=1e-6 by the error at the default 1e-3; only the finite-difference "
             "columns move.")

# 03 Three 4f passes
def _hybrid_step_share(fraction: float) -> float:
    return _pct(step_row(variant="hybrid", seq_len=4096, hybrid_attention_fraction=fraction).step_share)


def _weight_mask_values(seq_len: int) -> float:
    items = step_items(make_settings(variant="hyena2", seq_len=seq_len))
    return sum(i.mask_values for i in items if i.cls == "weight_product")


numeric("passes-hybrid", lambda: _hybrid_step_share(0.5), rel_tol=0.007, unit="%",
        hint="a half means 16 of 32 layers keep attention: the long convolutions of those layers are gone.")
numeric("passes-mask-count", lambda: _weight_mask_values(2048), rel_tol=1e-6, unit="complex values",
        hint="n/2 + 1 = 2,049 bins per filter, two filters per channel, and each layer is visited twice per step.")

# 04 Block-circulant weights in training
def _gate_dx_per_token(block: int = 256) -> float:
    s = make_settings(variant="hyena2_circulant", seq_len=4096, block=block)
    flops = sum(i.flops for i in step_items(s) if i.op.startswith("mlp gate") and i.phase == "dX")
    return flops / (s.step_tokens * s.shape.n_layers)


def _best_static_share() -> float:
    rows = [step_row(variant="hyena2_circulant", seq_len=4096, block=b) for b in valid_blocks(LLAMA3_8B, 64, 2048)]
    return _pct(max(r.static_share for r in rows))


numeric("circ-dx-derivation", _gate_dx_per_token, rel_tol=1e-4, unit="FLOPs per token",
        hint="p = 56 rFFTs of the gradient blocks and q = 16 inverse ones; the sum over i takes q(p-1) "
             "block adds of b/2+1 bins at 2 FLOPs each.")
numeric("circ-sequence", lambda: _pct(step_row(variant="hyena2_circulant", seq_len=8192).step_share),
        rel_tol=0.0005, unit="%",
        hint="keep the block at 256; only the long convolutions depend on the sequence length.")
numeric("circ-static-block", _best_static_share, rel_tol=0.0005, unit="%",
        hint="the static share leaves out the data-by-data products; compare every block from 64 to 2,048.")

# 05 The training-step Amdahl table
numeric("amdahl-fft-constant",
        lambda: _pct(step_row(variant="hyena2_circulant", seq_len=4096, fft_constant=5).step_share),
        rel_tol=0.0005, unit="%",
        hint="fft_constant=5 doubles every transform's price; products and digital sums keep theirs.")
numeric("amdahl-block-size",
        lambda: _pct(step_row(variant="hyena2_circulant", seq_len=4096, block=1024).static_share),
        rel_tol=0.001, unit="%",
        hint="the static share leaves out the data-by-data products, which shrink with larger blocks.")
numeric("amdahl-finite-speedup",
        lambda: step_row(variant="hyena2_circulant", seq_len=4096, optical_speedup=4).amdahl_static,
        rel_tol=0.0005, unit="x",
        hint="use the static share p, not the step share, in 1/((1-p) + p/s) with s = 4.")

# 06 Masks rewritten every optimizer step
def _mask_ratio(variant: str, seq_len: int, **overrides) -> float:
    row = step_row(variant=variant, seq_len=seq_len, **overrides)
    return row.weight_mask_s / row.digital_step_s


numeric("masks-encoding",
        lambda: step_row(variant="hyena2", seq_len=2048, modulator="dmd-superpixel",
                         mask_spectrum="two-sided").weight_mask_s,
        rel_tol=0.003, unit="s",
        hint="16 mirrors per complex value at the binary rate (9,523 Hz, not 1,031), and n instead of n/2 + 1 "
             "values per transform: 16 x 1,031 / 9,523 x 4,096 / 2,049, about 3.5 times the idealised device.")
numeric("masks-step-size",
        lambda: step_row(variant="hyena2", seq_len=2048, step_tokens=2_097_152).digital_step_s,
        rel_tol=0.002, unit="s",
        hint="the digital step doubles with the tokens; the weight masks do not.")
numeric("masks-faster-device",
        lambda: step_row(variant="hyena2_circulant", seq_len=4096, frame_rate=10 * 1031,
                         values_per_pixel=4).weight_mask_s,
        rel_tol=0.02, unit="s",
        hint="ten times the frame rate and four values per pixel: forty times fewer seconds, up to one "
             "frame of rounding.")
numeric("masks-more-gpus", lambda: _mask_ratio("hyena2", 8192, gpus=1024), rel_tol=0.003,
        hint="the digital step shrinks 16-fold with 1,024 GPUs; the weight-mask rewrite does not.")

# 07 Layer-major order
def _shared_engine_rate() -> float:
    settings = Settings(variant="hyena2", seq_len=4096)
    fused = _hidden.hidden_costs(settings, mode="fused")
    return fused.conversions.values / step_row(settings).digital_step_s


numeric("layer-major-engines", _shared_engine_rate, rel_tol=0.005, unit="numbers/s",
        hint="divide the fused conversions of one step (into and out of the optics) by the digital step time.")
numeric("layer-major-fp32",
        lambda: _schedule.held_activations(Settings(variant="hyena2", seq_len=4096, step_tokens=4 * 1_048_576),
                                           bytes_per_value=4).spectra_bytes / 1e12,
        rel_tol=0.001, unit="TB",
        hint="the kept spectra grow with the tokens of the step and with the bytes per value: 4 x 2.")
numeric("layer-major-micro-batch",
        lambda: _schedule.schedule_cost(Settings(variant="hyena2", seq_len=2048), 16).weight_mask_s,
        rel_tol=0.001, unit="s",
        hint="512 sequences in micro-batches of 16 rewrite the masks 32 times per step.")

# 08 What does not map in training
def _block_sum_ratio() -> float:
    settings = Settings(variant="hyena2_circulant", seq_len=4096)
    digital = _hidden.conversions(settings, mode="fused", block_sum="digital").values
    optical = _hidden.conversions(settings, mode="fused", block_sum="optical").values
    return digital / optical


def _lm_head_share(seq_len: int) -> float:
    by_layer = group_flops(step_items(Settings(variant="hyena2_circulant", seq_len=seq_len)), "layer")
    return _pct(by_layer["lm_head"] / sum(by_layer.values()))


numeric("not-map-block-sum", _block_sum_ratio, rel_tol=0.005,
        hint="with a digital block sum every one of the p*q block products leaves the optics, in dX as in forward.")
numeric("not-map-precision",
        lambda: _hidden.hidden_costs(Settings(variant="hyena2_circulant", seq_len=4096), enob=12,
                                     gradient_format="fp32").precision.analog_sum_bits_random,
        rel_tol=0.01, unit="bits",
        hint="an analog sum needs the fp32 significand (24 bits) at its own scale, plus about half a bit of "
             "headroom per doubling of the tokens when random-sign terms are held as magnitudes.")
numeric("not-map-break-even",
        lambda: _hidden.hidden_costs(Settings(variant="hyena2", seq_len=8192), mode="fused").break_even_io_rate / 1e12,
        rel_tol=0.003, unit="trillion writes and samples/s",
        hint="the saving is the static share of the digital step; divide the fused writes in plus detector samples out "
             "(two per number read out) by it.")
numeric("not-map-lm-head", lambda: _lm_head_share(8192), rel_tol=0.0002, unit="%",
        hint="group by layer and divide the LM head's FLOPs by the whole step's.")

# 09 The explorer in Jupyter
def _explorer_row(**overrides):
    from ..explore import DEFAULTS
    return step_row(**{**DEFAULTS, **overrides})


def _share_limit() -> float:
    from ..breakdown import per_step_terms
    from ..explore import DEFAULTS
    settings = make_settings(**DEFAULTS)
    row = _explorer_row()
    once = per_step_terms(step_items(settings)).flops
    return _pct((row.step_share * row.step_flops - once) / (row.step_flops - once))


def _largest_block_reaching(static_share: float) -> float:
    blocks = [2 ** k for k in range(1, 12)]
    return float(max(b for b in blocks if _explorer_row(block=b).static_share >= static_share))


numeric("explorer-share-drift", _share_limit, rel_tol=0.0001, unit="%",
        hint="remove the once-per-step transforms from both the optical work and the step before dividing.")
numeric("explorer-long-hyena", lambda: _explorer_row(variant="hyena2", seq_len=8192).weight_mask_s,
        rel_tol=0.003, unit="s",
        hint="the filters have S + 1 = 8,193 bins each at 8,192 tokens; the step size does not matter.")
numeric("explorer-block-size", lambda: _largest_block_reaching(0.20), rel_tol=1e-6,
        hint="the static share rises as the block shrinks; the answer is the largest power of two that reaches 20%.")

# 10 The assumptions, and what each does
def _two_switch_ratio() -> float:
    default = step_row(variant="hyena2_circulant", seq_len=4096)
    both = step_row(variant="hyena2_circulant", seq_len=4096, mask_spectrum="two-sided", modulator="dmd-superpixel")
    return both.data_mask_s / default.data_mask_s


numeric("assumptions-two-switches", _two_switch_ratio, rel_tol=0.005,
        hint="two-sided: n/(n/2+1) times the values, just under 2; superpixels: 16 times the frames, each "
             "written at the binary pattern rate (9,523 Hz instead of 1,031 Hz); frames are whole.")
numeric("assumptions-half-gain", lambda: 1 + step_row(variant="hyena2_circulant", seq_len=4096).amdahl,
        rel_tol=0.005, hint="solve 1/((1-p)+p/s) - 1 = (1/(1-p) - 1)/2 for s; it comes out as 1 + 1/(1-p).")
