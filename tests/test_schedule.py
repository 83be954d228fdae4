"""Layer-major, sequence-major and micro-batch orders: memory held and mask frames."""
import math

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

import ledger
from ledger.schedule import (
    HBM_BYTES_PER_GPU,
    boundary_bytes,
    held_activations,
    layer_major,
    micro_batch_sizes,
    schedule_cost,
    schedule_sweep,
    sequence_major,
)

S = ledger.Settings


def test_boundary_bytes_bf16():
    assert boundary_bytes(2**20, 4096) == 2**20 * 4096 * 2  # 8 GiB
    assert boundary_bytes(2**20, 4096, bytes_per_value=4) == 2 * boundary_bytes(2**20, 4096)


def test_layer_major_matches_the_mask_budget():
    for variant, seq in (("hyena2", 2048), ("hyena2", 8192), ("hyena2_circulant", 4096)):
        s = S(variant=variant, seq_len=seq)
        r = ledger.summarize(s, ledger.step_items(s))
        lm = layer_major(s)
        assert lm.rewrites == 1
        assert lm.weight_frames == r.weight_mask_frames
        assert lm.weight_mask_s == pytest.approx(r.weight_mask_s)
        assert lm.data_mask_s == pytest.approx(r.data_mask_s)
    assert f"{layer_major(S(variant='hyena2', seq_len=2048)).weight_mask_s:.2f}" == "0.52"


def test_sequence_major_costs_frames_times_sequences():
    s = S(variant="hyena2", seq_len=4096)
    sm, lm = sequence_major(s), layer_major(s)
    assert sm.rewrites == s.sequences == 256
    assert sm.weight_frames == 256 * lm.weight_frames
    assert sm.boundary_bytes * s.sequences == lm.boundary_bytes
    assert sm.order == "sequence-major"
    h = held_activations(s)
    assert lm.backward_bytes == pytest.approx(h.checkpoint_bytes + h.spectra_bytes + h.head_bytes)
    # the head: 2H bf16 values and the vocabulary's fp32 log-probabilities per token, every token of the step
    assert h.head_bytes == pytest.approx(s.step_tokens * (2 * 4096 * 2 + 128_256 * 4))
    assert sm.backward_bytes == pytest.approx(lm.backward_bytes / 256)


@hsettings(max_examples=25, deadline=None)
@given(st.integers(min_value=1, max_value=256))
def test_frames_fall_and_memory_grows_with_micro_batch(m):
    s = S(variant="hyena2")
    items = ledger.step_items(s)
    c = schedule_cost(s, m, items=items)
    assert c.rewrites == math.ceil(256 / m)
    if m < 256:
        nxt = schedule_cost(s, m + 1, items=items)
        assert nxt.weight_frames <= c.weight_frames
        assert nxt.boundary_bytes > c.boundary_bytes
    assert c.data_frames == layer_major(s, items=items).data_frames


def test_sweep_sizes():
    s = S(variant="hyena2", seq_len=2048)
    assert micro_batch_sizes(s) == [2**k for k in range(10)]
    assert [c.micro_batch for c in schedule_sweep(s)] == micro_batch_sizes(s)
    assert micro_batch_sizes(S(seq_len=4096, step_tokens=3 * 4096)) == [1, 2, 3]


def test_held_activations_and_where():
    h = held_activations(S(variant="hyena2"))
    assert h.checkpoint_bytes == 32 * h.boundary_bytes
    assert h.hbm_bytes == HBM_BYTES_PER_GPU * 64
    assert h.where(h.boundary_bytes) == "one GPU's HBM"
    assert h.where(h.checkpoint_bytes) == "the cluster's HBM, sharded"
    assert h.where(10 * h.hbm_bytes).startswith("beyond")
    assert h.spectra_bytes == pytest.approx(256 * 32 * 2 * 4096 * 4097 * 2 * 2)
    assert held_activations(S(variant="transformer")).spectra_bytes == 0


def test_bad_input_raises():
    s = S(variant="hyena2")
    with pytest.raises(ledger.LedgerError, match="micro_batch"):
        schedule_cost(s, 0)
    with pytest.raises(ledger.LedgerError, match="only 256 sequences"):
        schedule_cost(s, 257)
    with pytest.raises(ledger.LedgerError, match="bytes_per_value"):
        boundary_bytes(1024, 4096, bytes_per_value=0)
    with pytest.raises(ledger.LedgerError, match="step_tokens"):
        boundary_bytes(1.5, 4096)
    with pytest.raises(ledger.LedgerError, match="hbm_bytes_per_gpu"):
        held_activations(s, hbm_bytes_per_gpu=-1)
