"""Hardware FLOPs (ledger/hardware.py) against a tiled attention that counts what it multiplies.

The reference here is independent of the ledger: a FlashAttention-style loop over query and key
tiles, in numpy, that skips the tiles a causal mask hides, computes the rest whole, and counts the
multiply-adds of every product it performs, forward and backward (the backward recomputing the
scores, as FlashAttention's does). Its outputs and gradients are checked against plain dense
attention, so the loop is a real attention, and its counts are set beside the ledger's.
"""
from __future__ import annotations

import numpy as np
import pytest

import ledger
from ledger import hardware
from ledger.errors import LedgerError
from ledger.shapes import ModelShape


def tiled_causal_attention(q, k, v, d_out, tile, causal=True):
    """Forward and backward of one head by tiles; returns out, dq, dk, dv and the multiply-adds
    counted per product kind: fwd_qk, fwd_av, bwd_qk (recomputed), bwd_dv, bwd_dp, bwd_dq, bwd_dk."""
    s, d = q.shape
    macs = dict.fromkeys(("fwd_qk", "fwd_av", "bwd_qk", "bwd_dv", "bwd_dp", "bwd_dq", "bwd_dk"), 0)
    scale = 1.0 / np.sqrt(d)
    tiles = [(a, min(a + tile, s)) for a in range(0, s, tile)]
    out = np.zeros_like(q)
    lse = np.zeros(s)

    def visible(qa, qb, ka, kb):
        return not causal or ka <= qb - 1  # some key of the tile is at or before the tile's last query

    def masked_scores(qa, qb, ka, kb, key):
        x = q[qa:qb] @ k[ka:kb].T * scale
        macs[key] += (qb - qa) * (kb - ka) * d
        if causal:
            rows, cols = np.arange(qa, qb)[:, None], np.arange(ka, kb)[None, :]
            x = np.where(cols > rows, -np.inf, x)
        return x

    for qa, qb in tiles:  # forward: online softmax over the visible key tiles
        m = np.full(qb - qa, -np.inf)
        den = np.zeros(qb - qa)
        acc = np.zeros((qb - qa, d))
        for ka, kb in tiles:
            if not visible(qa, qb, ka, kb):
                continue
            x = masked_scores(qa, qb, ka, kb, "fwd_qk")
            m_new = np.maximum(m, x.max(axis=1))
            p = np.exp(x - m_new[:, None])
            fix = np.exp(m - m_new)
            den = den * fix + p.sum(axis=1)
            acc = acc * fix[:, None] + p @ v[ka:kb]
            macs["fwd_av"] += (qb - qa) * (kb - ka) * d
            m = m_new
        out[qa:qb] = acc / den[:, None]
        lse[qa:qb] = m + np.log(den)
    dq, dk, dv = np.zeros_like(q), np.zeros_like(k), np.zeros_like(v)
    delta = (d_out * out).sum(axis=1)
    for qa, qb in tiles:  # backward: scores recomputed tile by tile from the stored log-sum-exp
        for ka, kb in tiles:
            if not visible(qa, qb, ka, kb):
                continue
            p = np.exp(masked_scores(qa, qb, ka, kb, "bwd_qk") - lse[qa:qb, None])
            dv[ka:kb] += p.T @ d_out[qa:qb]
            macs["bwd_dv"] += (qb - qa) * (kb - ka) * d
            dp = d_out[qa:qb] @ v[ka:kb].T
            macs["bwd_dp"] += (qb - qa) * (kb - ka) * d
            ds = p * (dp - delta[qa:qb, None]) * scale
            dq[qa:qb] += ds @ k[ka:kb]
            macs["bwd_dq"] += (qb - qa) * (kb - ka) * d
            dk[ka:kb] += ds.T @ q[qa:qb]
            macs["bwd_dk"] += (qb - qa) * (kb - ka) * d
    return out, dq, dk, dv, macs


def dense_attention(q, k, v, d_out, causal=True):
    """Plain attention with the scores materialised, and its gradients by the chain rule."""
    s, d = q.shape
    x = q @ k.T / np.sqrt(d)
    if causal:
        x = np.where(np.triu(np.ones((s, s), bool), 1), -np.inf, x)
    p = np.exp(x - x.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    out = p @ v
    dv = p.T @ d_out
    dp = d_out @ v.T
    ds = p * (dp - (dp * p).sum(axis=1, keepdims=True)) / np.sqrt(d)
    return out, ds @ k, ds.T @ q, dv


def counted_macs_only(seq_len: int, tile: int, causal: bool = True) -> int:
    """Multiply-adds of one tiled product (rows x keys x 1) over the visible tiles, without the arithmetic."""
    total = 0
    for qa in range(0, seq_len, tile):
        qb = min(qa + tile, seq_len)
        for ka in range(0, seq_len, tile):
            kb = min(ka + tile, seq_len)
            if not causal or ka <= qb - 1:
                total += (qb - qa) * (kb - ka)
    return total


TINY = ModelShape(n_layers=1, hidden=6, n_heads=2, n_kv_heads=2, intermediate=8, vocab=16, name="tiny")


@pytest.mark.parametrize("seq_len,tile", [(10, 4), (12, 4), (9, 3), (7, 16), (8, 1)])
def test_tiled_loop_is_attention_and_its_counts_are_the_ledgers(seq_len, tile):
    rng = np.random.default_rng(seq_len * 100 + tile)
    heads, d = TINY.n_heads, TINY.head_dim
    counted = dict.fromkeys(("forward", "recompute", "dX"), 0)
    for _ in range(heads):
        q, k, v, g = (rng.standard_normal((seq_len, d)) for _ in range(4))
        out, dq, dk, dv, macs = tiled_causal_attention(q, k, v, g, tile)
        for got, want in zip((out, dq, dk, dv), dense_attention(q, k, v, g)):
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
        counted["forward"] += 2 * (macs["fwd_qk"] + macs["fwd_av"])
        counted["recompute"] += 2 * macs["bwd_qk"]
        counted["dX"] += 2 * (macs["bwd_dv"] + macs["bwd_dp"] + macs["bwd_dq"] + macs["bwd_dk"])
    s = ledger.Settings(variant="transformer", seq_len=seq_len, step_tokens=seq_len, shape=TINY,
                        attention_kernel="flash-causal", attention_tile=tile)
    ledger_core = ledger.group_flops(hardware.attention_core_items(s), "phase")
    assert ledger_core == pytest.approx(counted, rel=1e-12)


def test_non_causal_flash_matches_the_loop_without_the_mask():
    rng = np.random.default_rng(7)
    seq_len, tile = 10, 4
    total = 0
    for _ in range(TINY.n_heads):
        q, k, v, g = (rng.standard_normal((seq_len, TINY.head_dim)) for _ in range(4))
        out, *_, macs = tiled_causal_attention(q, k, v, g, tile, causal=False)
        np.testing.assert_allclose(out, dense_attention(q, k, v, g, causal=False)[0], rtol=1e-10)
        total += 2 * sum(macs.values())
    s = ledger.Settings(variant="transformer", seq_len=seq_len, step_tokens=seq_len, shape=TINY,
                        attention_kernel="flash")
    assert sum(i.flops for i in hardware.attention_core_items(s)) == pytest.approx(total, rel=1e-12)


def _core_model_and_rest(seq_len: int) -> tuple[float, float]:
    """The model count's attention core and everything else, from the ledger's line items."""
    items = ledger.step_items(ledger.Settings(variant="transformer", seq_len=seq_len))
    core = sum(i.flops for i in items if i.op.startswith("attention:"))
    return core, sum(i.flops for i in items) - core


def test_llama_at_32k_flash_causal_is_a_fifth_below_and_flash_above():
    """The done-when of issue 17, against the tile count: executed products = 7 (two forward, one
    recomputed, four backward), each over the visible score entries, versus the model's 6 full ones."""
    seq_len, tile = 32768, 128
    core, rest = _core_model_and_rest(seq_len)
    visible = counted_macs_only(seq_len, tile) / seq_len ** 2
    model = core + rest
    expected_causal = rest + core * 7 / 6 * visible
    expected_flash = rest + core * 7 / 6
    got_causal = ledger.hardware_flops(variant="transformer", seq_len=seq_len, attention_kernel="flash-causal")
    got_flash = ledger.hardware_flops(variant="transformer", seq_len=seq_len, attention_kernel="flash")
    assert got_causal == pytest.approx(expected_causal, rel=1e-12)
    assert got_flash == pytest.approx(expected_flash, rel=1e-12)
    assert -0.25 < got_causal / model - 1 < -0.18  # "about a fifth below"
    assert f"{100 * (got_causal / model - 1):.1f}" == "-22.1"
    assert f"{100 * (got_flash / model - 1):.2f}" == "8.90"
    assert ledger.step_row(variant="transformer", seq_len=seq_len).hardware_flops == got_causal


@pytest.mark.parametrize("seq_len", [512, 1000, 2048, 4096, 8192, 32768])
@pytest.mark.parametrize("variant", ["transformer", "hybrid"])
def test_flash_causal_below_flash_and_dense_equals_model(variant, seq_len):
    step = 1_048_576 if 1_048_576 % seq_len == 0 else seq_len * 8
    kw = dict(variant=variant, seq_len=seq_len, step_tokens=step)
    causal = hardware.hardware_flops(attention_kernel="flash-causal", **kw)
    flash = hardware.hardware_flops(attention_kernel="flash", **kw)
    dense = hardware.hardware_flops(attention_kernel="dense", **kw)
    model = ledger.step_row(**kw).step_flops
    assert causal < dense < flash
    assert dense == pytest.approx(model, rel=1e-15)
    assert hardware.model_flops(attention_kernel="flash", **kw) == pytest.approx(model, rel=1e-15)


def test_causal_fraction_tends_to_half_plus_the_diagonal():
    tile = 128
    for seq_len in (128, 256, 1024, 8192, 131072):
        frac = hardware.score_fraction("flash-causal", seq_len, tile)
        assert frac == pytest.approx(0.5 + tile / (2 * seq_len), rel=1e-15)  # tile divides S
        assert frac == counted_macs_only(seq_len, tile) / seq_len ** 2
    assert hardware.score_fraction("flash-causal", 131072, tile) - 0.5 < 1e-3
    # a tile that does not divide S: the last tile is partial
    assert hardware.causal_score_entries(1000, 128) == counted_macs_only(1000, 128)
    assert hardware.causal_score_entries(10, 1) == 55  # tile 1: exactly the lower triangle


def test_hyena_long_convolutions_unaffected():
    for kernel in ledger.ATTENTION_KERNELS:
        for variant in ("hyena2", "hyena2_circulant"):
            row = ledger.step_row(variant=variant, seq_len=4096, attention_kernel=kernel)
            assert row.hardware_flops == row.step_flops
        hyb = hardware.hardware_items(ledger.make_settings(variant="hybrid", seq_len=4096, attention_kernel=kernel))
        plain = ledger.step_items(ledger.make_settings(variant="hybrid", seq_len=4096))
        assert [i for i in hyb if i.op.startswith("long conv")] == [i for i in plain if i.op.startswith("long conv")]


def test_full_recompute_adds_the_kernels_forward_again():
    kw = dict(variant="transformer", seq_len=4096)
    core, rest = _core_model_and_rest(4096)
    full = ledger.step_row(recompute="full", attention_kernel="dense", **kw)
    assert full.hardware_flops == pytest.approx(full.step_flops, rel=1e-15)
    frac = hardware.score_fraction("flash-causal", 4096, 128)
    causal_full = hardware.hardware_flops(recompute="full", **kw)
    # the blocks' forward again (model recompute minus the dense scores) plus 9 causal products
    assert causal_full == pytest.approx(rest + (full.recompute_flops - core / 3) + core * 9 / 6 * frac, rel=1e-12)
    assert hardware.model_flops(recompute="full", **kw) == ledger.step_row(**kw).step_flops


def test_the_kernel_ignores_the_causal_halving_convention():
    kw = dict(variant="transformer", seq_len=4096, attention_kernel="dense")
    assert hardware.hardware_flops(causal_attention=True, **kw) == hardware.hardware_flops(**kw)
    assert ledger.step_row(causal_attention=True, **kw).step_flops < hardware.hardware_flops(**kw)


@pytest.mark.parametrize("bad,match", [
    ({"attention_kernel": "sparse"}, "attention_kernel = 'sparse': must be one of dense, flash, flash-causal"),
    ({"attention_tile": 0}, "attention_tile = 0: must be a positive integer"),
    ({"attention_tile": 64.0}, "attention_tile = 64.0"),
    ({"attention_tile": True}, "attention_tile = True"),
])
def test_bad_kernel_settings_are_refused(bad, match):
    with pytest.raises(LedgerError, match=match):
        hardware.hardware_flops(variant="transformer", **bad)
    with pytest.raises(LedgerError):
        hardware.score_fraction(bad.get("attention_kernel", "flash-causal"), 4096, bad.get("attention_tile", 128))


def test_kernel_recompute_is_the_qk_product_only():
    """Issue 17: FlashAttention recomputes QK^T only (2.09% of the step at 4,096 without the mask),
    half of selective recomputation's QK^T plus AV (4.17%); causal tiles halve it again."""
    from ledger import article
    items = ledger.step_items(ledger.Settings(variant="transformer", seq_len=4096))
    step = sum(i.flops for i in items)
    flash = hardware.kernel_recompute_flops(variant="transformer", seq_len=4096, attention_kernel="flash")
    selective = article.recompute_flops(items, ops=("attention:",))
    assert flash == pytest.approx(selective / 2, rel=1e-12)
    assert f"{100 * flash / step:.2f}" == "2.09" and f"{100 * selective / step:.2f}" == "4.17"
    causal = hardware.kernel_recompute_flops(variant="transformer", seq_len=4096)
    assert causal == pytest.approx(flash * hardware.score_fraction("flash-causal", 4096, 128), rel=1e-12)
    assert hardware.kernel_recompute_flops(variant="transformer", seq_len=4096, attention_kernel="dense") == 0
    assert hardware.kernel_recompute_flops(variant="hyena2", seq_len=4096) == 0


def test_position_limits_of_the_shipped_configs():
    from pathlib import Path
    from ledger.shapes import position_limits
    configs = Path(__file__).resolve().parents[1] / "data" / "configs"
    assert position_limits(configs / "Llama-3.2-1B" / "config.json") == {
        "max_position_embeddings": 131072, "original_max_position_embeddings": 8192}
    assert position_limits(configs / "TinyLlama-1.1B" / "config.json")["max_position_embeddings"] == 2048
    with pytest.raises(LedgerError, match="no such file"):
        position_limits(configs / "missing" / "config.json")


def _block_sparse_entries(doc_lengths, tile):
    """Brute force: build the causal same-document mask and count whole tiles with any unmasked entry."""
    doc = np.repeat(np.arange(len(doc_lengths)), doc_lengths)
    seq_len = len(doc)
    q, k = np.meshgrid(np.arange(seq_len), np.arange(seq_len), indexing="ij")
    mask = (k <= q) & (doc[q] == doc[k])
    total = 0
    for i in range(0, seq_len, tile):
        for j in range(0, seq_len, tile):
            block = mask[i:i + tile, j:j + tile]
            if block.any():
                total += block.size
    return total


@pytest.mark.parametrize("doc_lengths,tile", [
    ([64], 8), ([32, 32], 8), ([20, 30, 14], 8), ([1] * 40, 8), ([5, 50, 9], 16), ([100], 7), ([1, 99], 10),
])
def test_packed_documents_count_the_tiles_a_block_mask_keeps(doc_lengths, tile):
    assert hardware.packed_causal_score_entries(doc_lengths, tile) == _block_sparse_entries(doc_lengths, tile)


def test_packed_documents_never_exceed_one_document_and_fall_below_it_when_a_tile_is_empty():
    tile, seq_len = 128, 4096
    one = hardware.causal_score_entries(seq_len, tile)
    assert hardware.packed_causal_score_entries([seq_len], tile) == one
    # a boundary inside the first tile empties no tile: the same work
    assert hardware.packed_causal_score_entries([1, seq_len - 1], tile) == one
    for n_docs in (2, 4, 8, 32):
        packed = hardware.packed_causal_score_entries([seq_len // n_docs] * n_docs, tile)
        # documents of whole tiles: each is its own causal triangle of tiles
        assert packed == n_docs * hardware.causal_score_entries(seq_len // n_docs, tile) < one


@pytest.mark.parametrize("bad,match", [
    ([], "doc_lengths = \\[\\]"), ([0, 10], "doc_lengths = \\[0, 10\\]"), ("abc", "doc_lengths = 'abc'"),
    ([2.5], "doc_lengths = \\[2.5\\]"), (7, "doc_lengths = 7"),
])
def test_bad_document_lengths_are_refused(bad, match):
    with pytest.raises(LedgerError, match=match):
        hardware.packed_causal_score_entries(bad, 128)
    with pytest.raises(LedgerError, match="attention_tile = 0"):
        hardware.packed_causal_score_entries([10], 0)
