"""The closed-form counts of the 6ND chapters (ledger.article)."""
import math

import pytest
from hypothesis import given, strategies as st

import ledger
from ledger import LLAMA3_8B, LedgerError
from ledger import article as a


def test_matvec_is_2mk_and_backward_is_twice_forward():
    assert a.matvec_flops(4096, 14336) == 2 * 4096 * 14336
    assert a.matmul_flops(3, 5, 7) == 210
    passes = a.linear_layer_flops(4096, 4096, tokens=10)
    assert passes["dX"] + passes["dW"] == 2 * passes["forward"]


def test_24h2_and_12lh2():
    h = 4096
    assert a.layer_forward_flops_approx(h) == 24 * h * h
    assert a.params_approx(32, h) == 12 * 32 * h * h
    # Llama-3-8B's exact layer: 2H^2 + 2*H*1024 + 3*H*14336 = 13H^2 ... per token 26H^2
    assert a.layer_params_exact(LLAMA3_8B) == 218_103_808 == 13 * h * h
    assert a.layer_forward_flops_exact(LLAMA3_8B) == 26 * h * h


def test_forward_per_token_is_2n_plus_attention():
    assert a.forward_flops_per_token(LLAMA3_8B) == 2 * LLAMA3_8B.N
    assert a.forward_flops_per_token(LLAMA3_8B, 2048) - 2 * LLAMA3_8B.N == 4 * 32 * 2048 * 4096
    assert a.forward_flops_per_token(LLAMA3_8B, 2048, causal=True) - 2 * LLAMA3_8B.N == 2 * 32 * 2048 * 4096


def test_attention_ratio_s_over_6h():
    assert f"{a.attention_ratio(2048, 4096):.3f}" == "0.083"
    assert f"{a.attention_ratio(32768, 4096):.2f}" == "1.33"
    exact = a.attention_ratio_exact(LLAMA3_8B, 2048)
    row = ledger.step_row(variant="transformer", seq_len=2048)
    assert math.isclose(exact, 12 * 32 * 2048 * 4096 / (6 * LLAMA3_8B.N))
    assert math.isclose(row.step_flops, 6 * LLAMA3_8B.N * row.step_tokens * (1 + exact))
    assert math.isclose(a.attention_ratio_exact(LLAMA3_8B, a.crossover_seq_len(LLAMA3_8B)), 1.0)


def test_intensity_example_and_decode():
    assert f"{a.arithmetic_intensity(16384, 4096, 4096):.0f}" == "3641"
    assert f"{a.arithmetic_intensity(16384, 4096, 4096, bytes_per_element=2):.0f}" == "1820"
    assert abs(a.arithmetic_intensity(1, 4096, 4096) - 2) < 1e-3
    assert a.small_batch_intensity(1, 4096) < 2


@given(st.integers(1, 10**5), st.integers(1, 10**5), st.integers(1, 10**5))
def test_intensity_bounded_by_small_batch_limit(m, k, b):
    assert a.arithmetic_intensity(m, k, b) <= a.small_batch_intensity(m, b) * (1 + 1e-12)


def test_roofline():
    assert a.ridge_point(400e12, 2e12) == 200
    assert a.roofline(10, 400e12, 2e12) == 20e12
    assert a.roofline(1000, 400e12, 2e12) == 400e12


def test_run_compute_and_time():
    flops = a.run_flops(LLAMA3_8B.N, 15e12)
    assert flops == 6 * LLAMA3_8B.N * 15e12
    assert a.run_seconds(1e24, 1000, 1e15, 0.5) == 2e6
    with pytest.raises(LedgerError, match="utilization"):
        a.run_seconds(1e24, 1000, 1e15, 1.5)


def test_compute_optimal_tokens():
    assert a.compute_optimal_tokens(1e9) == 20e9
    # Approach 3 gives more tokens per parameter, and more as N grows.
    r1 = a.compute_optimal_tokens(1e9, "approach3") / 1e9
    r2 = a.compute_optimal_tokens(70e9, "approach3") / 70e9
    assert 20 < r1 < r2
    with pytest.raises(LedgerError, match="fit = 'kaplan'"):
        a.compute_optimal_tokens(1e9, "kaplan")


def test_recompute_tax_is_a_third_for_6n():
    s = ledger.Settings(variant="transformer", seq_len=2048)
    items = ledger.step_items(s)
    tax = a.recompute_tax(items)
    head = 2 * LLAMA3_8B.vocab * LLAMA3_8B.hidden * s.step_tokens
    forward = sum(i.flops for i in items if i.phase == "forward")
    assert math.isclose(a.recompute_flops(items), forward - head)
    assert 1.3 < tax < 4 / 3
    assert a.recompute_tax(items, fraction=0.0) == 1.0
    with pytest.raises(LedgerError, match="fraction"):
        a.recompute_flops(items, fraction=2)


@pytest.mark.parametrize("variant", ["transformer", "hyena2", "hybrid", "hyena2_circulant"])
def test_recompute_tax_is_the_core_recompute_switch(variant):
    """One home for recomputation: the tax is what Settings.recompute = "full" adds to the step."""
    items = ledger.step_items(ledger.Settings(variant=variant, seq_len=4096))
    full = ledger.step_row(variant=variant, seq_len=4096, recompute="full")
    assert math.isclose(a.recompute_flops(items), full.recompute_flops, rel_tol=1e-12)
    assert math.isclose(a.recompute_flops(items, fraction=0.5), full.recompute_flops / 2, rel_tol=1e-12)


def test_optimizer_traffic():
    assert a.optimizer_bytes(1e9) == 18e9  # Megatron-LM's bf16 parameters with fp32 gradients
    assert a.optimizer_bytes(1e9, 16) == 16e9
    out = a.optimizer_time_share(1e9, 6e9 * 1e6, bandwidth=2e12, flops_rate=4e14)
    assert math.isclose(out["ratio"], (18e9 / 2e12) / (6e15 / 4e14))


@pytest.mark.parametrize("call", [lambda: a.matvec_flops(0, 3), lambda: a.arithmetic_intensity(1, -1, 1),
                                  lambda: a.attention_ratio(float("nan"), 1), lambda: a.optimizer_bytes(1, True)])
def test_bad_input_refused(call):
    with pytest.raises(LedgerError):
        call()


def test_fft_intensity_is_small():
    assert 15 < a.fft_intensity(8192) < 17
    assert a.fft_intensity(8192) < a.arithmetic_intensity(512, 4096, 4096) / 50


def test_selective_recompute_and_replicated_optimizer():
    items = ledger.step_items(ledger.Settings(variant="transformer", seq_len=4096))
    scores = a.recompute_flops(items, ops=("attention:",))
    assert scores == 2 * 4 * 32 * 4096 * 4096 * 1_048_576 / 2
    sharded = a.optimizer_time_share(1e9, 1e18, 2e12, 4e14, devices=64)
    replicated = a.optimizer_time_share(1e9, 1e18, 2e12, 4e14, devices=64, sharded=False)
    assert math.isclose(replicated["ratio"], 64 * sharded["ratio"])


def test_torchtitan_op_level_selective_recomputes_every_second_matmul():
    """torchtitan's SelectiveAC recomputes the 2nd, 4th, ... matrix product of a block: wo and w3 with
    the fused wqkv (a third of the block's matrix forward for Llama-3-8B), wk as well without it."""
    assert a.every_second_matmul() == ("attention o:", "mlp up:")
    separate = (("attention q:",), ("attention k:",), ("attention v:",), ("attention o:",),
                ("mlp gate:",), ("mlp up:",), ("mlp down:",))
    assert a.every_second_matmul(separate) == ("attention k:", "attention o:", "mlp up:")
    items = ledger.step_items(ledger.Settings(variant="transformer", seq_len=4096))
    shape, tokens = ledger.LLAMA3_8B, 1_048_576
    extra = a.recompute_flops(items, ops=a.every_second_matmul())
    assert extra == 2 * tokens * shape.n_layers * (shape.hidden * shape.hidden + shape.hidden * shape.intermediate)
    assert 0.33 < extra / (2 * tokens * shape.n_layers * a.layer_params_exact(shape)) < 0.35
    with pytest.raises(LedgerError, match="block_matmuls = \\(\\)"):
        a.every_second_matmul(())
    with pytest.raises(LedgerError, match="block_matmuls"):
        a.every_second_matmul((("attention q:",), ()))


def test_ridge_batch_reaches_the_ridge():
    m = a.ridge_batch(4096, 4096, 1e15, 3.35e12)
    assert math.isclose(a.arithmetic_intensity(m, 4096, 4096, 2), a.ridge_point(1e15, 3.35e12))
    assert a.attainable_matmul_flops(2 * m, 4096, 4096, 1e15, 3.35e12) == 1e15
    assert a.ridge_batch(8, 8, 1e15, 1e9) == math.inf


def test_no_batch_reaches_a_ridge_above_the_intensity_limit():
    """ridge_batch is finite exactly when the ridge lies below intensity_limit, which the intensity approaches."""
    limit = a.intensity_limit(4096, 4096)
    assert limit == 2048 and a.arithmetic_intensity(4096, 4096, 1e12, 2) < limit
    assert math.isclose(a.arithmetic_intensity(4096, 4096, 1e12, 2), limit, rel_tol=1e-6)
    bandwidth = 1e15 / limit  # the ridge at the limit itself
    assert a.ridge_batch(4096, 4096, 1e15, bandwidth * 1.01) < math.inf
    assert a.ridge_batch(4096, 4096, 1e15, bandwidth) == math.inf == a.ridge_batch(4096, 4096, 1e15, bandwidth * 0.99)
    with pytest.raises(LedgerError, match="m"):
        a.intensity_limit(0, 4096)
