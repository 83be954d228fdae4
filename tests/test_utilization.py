"""MFU / HFU, implied utilisation, the tensor-parallel ridge, FlashAttention's backward, data-parallel bytes,
and the refitted Chinchilla law (ledger/article.py)."""
import math

import pytest

import ledger
from ledger import LLAMA3_8B, LedgerError, article

PEAK, BW = 1000e12, 3.35e12


def test_mfu_and_hfu_share_one_definition():
    """Utilisation is FLOPs per second over the dense peak; HFU exceeds MFU by exactly the recompute ratio."""
    items = ledger.step_items(ledger.Settings(variant="transformer", seq_len=4096))
    model = sum(i.flops for i in items)
    hardware = model + article.recompute_flops(items)
    mfu = article.flops_utilization(model, 2.0, 64, 989.4e12)
    hfu = article.flops_utilization(hardware, 2.0, 64, 989.4e12)
    assert math.isclose(mfu, model / 2.0 / 64 / 989.4e12)
    assert math.isclose(hfu / mfu, article.recompute_tax(items))
    with pytest.raises(LedgerError, match="step_seconds = 0"):
        article.flops_utilization(model, 0, 64, 989.4e12)


def test_implied_utilization():
    assert math.isclose(article.implied_utilization(3600 * 1e15, 10, 1e14), 1.0)
    with pytest.raises(LedgerError, match="device_hours = -1"):
        article.implied_utilization(1e20, -1, 1e15)


def test_tensor_parallel_ridge_degree_is_the_first_shard_below_the_ridge():
    t = article.tensor_parallel_ridge_degree(4096, 4096, 4096, PEAK, BW)
    ridge = article.ridge_point(PEAK, BW)
    assert article.arithmetic_intensity(4096, 4096, 4096 / t, 2) < ridge
    assert article.arithmetic_intensity(4096, 4096, 4096 / (t // 2), 2) >= ridge
    assert t == 16
    with pytest.raises(LedgerError, match="max_degree = 4"):
        article.tensor_parallel_ridge_degree(4096, 4096, 4096, PEAK, BW, max_degree=4)


def test_flash_attention_backward_is_two_and_a_half_forwards():
    items = ledger.step_items(ledger.Settings(variant="transformer", seq_len=4096))
    forward = sum(i.flops for i in items if i.op in ("attention: Q K^T", "attention: A V"))
    assert article.flash_attention_backward_flops(items) == 2.5 * forward
    assert article.flash_attention_backward_flops(ledger.step_items(ledger.Settings(variant="hyena2"))) == 0


def test_data_parallel_bytes():
    assert article.data_parallel_bytes(1000, 1) == 0
    assert article.data_parallel_bytes(1000, 4) == 2 * 0.75 * 1000 * 2


def test_chinchilla_refit_is_near_twenty_tokens_per_parameter():
    n = LLAMA3_8B.N
    refit = article.compute_optimal_tokens(n, "approach3_refit") / n
    published = article.compute_optimal_tokens(n, "approach3") / n
    assert 19 < refit < 22 < published
    with pytest.raises(LedgerError, match="fit = 'approach4'"):
        article.compute_optimal_tokens(n, "approach4")
