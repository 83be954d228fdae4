"""The run policy (ledger.run) and what it does (ledger.memory, ledger.run_effects): step tokens, recompute, micro-batches per rank, where filters are built."""
import pytest

import ledger
from ledger.errors import LedgerError
from ledger.memory import held_for_backward
from ledger.run import PUBLISHED_STEP_TOKENS, run_policy
from ledger.run_effects import mask_amortisation, real_run_extra_flops
from ledger.schedule import held_activations, schedule_cost

S = ledger.Settings


def test_defaults_keep_the_keyword_api():
    s = S(step_tokens=2**21, recompute="full")
    assert (s.step_tokens, s.recompute, s.micro_batches, s.filter_build) == (2**21, "full", 1, "step")
    assert ledger.make_settings(micro_batches=2, filter_build="micro-batch").micro_batches == 2


def test_policy_counts_sequences_per_rank_and_layer_major():
    p = run_policy(S(variant="hyena2", seq_len=4096))
    assert (p.sequences, p.sequences_per_rank, p.sequences_per_micro_batch) == (256, 4, 4)
    assert p.layer_major_across_cluster and p.filter_builds == 1
    p2 = run_policy(S(variant="hyena2", seq_len=4096, micro_batches=2))
    assert p2.sequences_per_micro_batch == 2 and not p2.layer_major_across_cluster
    assert not run_policy(S(), pipeline_stages=4).layer_major_across_cluster
    assert run_policy(S(micro_batches=4, filter_build="micro-batch")).filter_builds == 64 * 4


def test_memory_follows_recompute():
    none, full = S(variant="hyena2", seq_len=4096), S(variant="hyena2", seq_len=4096, recompute="full")
    a, b = held_for_backward(none), held_for_backward(full)
    assert a.layer_inputs_bytes == b.layer_inputs_bytes == 256 * 4096 * 4096 * 32 * 2
    # with recompute only one layer's spectra are live: 1/32 of keeping them all
    assert b.spectra_bytes == pytest.approx(a.spectra_bytes / 32)
    assert (a.spectra_layers, b.spectra_layers) == (32, 1)
    assert a.spectra_bytes == pytest.approx(256 * 32 * 2 * 4096 * 4097 * 2 * 2)
    assert held_activations(full).spectra_bytes == pytest.approx(b.spectra_bytes)
    assert schedule_cost(full, 16).backward_bytes == pytest.approx(held_for_backward(full, 16).total_bytes)
    assert schedule_cost(full, 16).backward_bytes < schedule_cost(none, 16).backward_bytes
    # the head's tensors under both policies; under full recompute never live with a rebuilt layer's spectra
    assert a.head_bytes == b.head_bytes == 256 * 4096 * (2 * 4096 * 2 + 128_256 * 4)
    assert a.total_bytes == pytest.approx(a.layer_inputs_bytes + a.spectra_bytes + a.head_bytes)
    assert b.total_bytes == pytest.approx(b.layer_inputs_bytes + max(b.spectra_bytes, b.head_bytes))
    assert held_for_backward(S(variant="transformer")).spectra_bytes == 0


def test_memory_per_rank_is_the_step_over_ranks_and_micro_batches():
    s = S(variant="hyena2_circulant", seq_len=4096, micro_batches=2)
    per_rank = held_for_backward(s, run_policy(s).sequences_per_micro_batch)
    assert per_rank.total_bytes * 64 * 2 == pytest.approx(held_for_backward(s).total_bytes)


def test_filter_builds_per_micro_batch_multiply_the_per_step_transforms():
    s = S(variant="hyena2", seq_len=4096)
    step = [i for i in ledger.step_items(s) if i.per == "step"]
    real = [i for i in ledger.step_items(S(variant="hyena2", seq_len=4096, filter_build="micro-batch")) if i.per == "step"]
    assert sum(i.flops for i in real) == pytest.approx(64 * sum(i.flops for i in step))
    assert real_run_extra_flops(s) == pytest.approx(63 * sum(i.flops for i in step))
    # the masks do not change: the same spectra are written
    assert ledger.step_row(s).weight_mask_s == ledger.step_row(s, filter_build="micro-batch").weight_mask_s


def test_published_step_sizes_and_mask_amortisation():
    assert {t for _, _, t in PUBLISHED_STEP_TOKENS} == {4 * 2**20, 16 * 2**20}
    s = S(variant="hyena2", seq_len=4096)
    base, big = mask_amortisation(s, s.step_tokens), mask_amortisation(s, 16 * 2**20)
    assert big["weight_mask_s"] == base["weight_mask_s"]
    assert big["ratio"] == pytest.approx(base["ratio"] / 16, rel=1e-3)  # per-step terms do not scale
    assert big["ratio"] < base["ratio"] / 15.9


@pytest.mark.parametrize("kw, match", [({"micro_batches": 0}, "micro_batches"), ({"micro_batches": 1.5}, "micro_batches"),
                                       ({"filter_build": "layer"}, "filter_build")])
def test_bad_policy_is_refused(kw, match):
    with pytest.raises(ledger.LedgerError, match=match):
        S(**kw)
    with pytest.raises(ledger.LedgerError, match="pipeline_stages"):
        run_policy(S(), pipeline_stages=0)


def test_cli_run_policy_flags(capsys):
    import json

    from ledger.cli import main
    assert main(["--json", "--variant", "hyena2", "--seq-len", "4096", "--filter-build", "micro-batch",
                 "--micro-batches", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "step_flops" in json.dumps(data)
    with pytest.raises(SystemExit) as stop:
        main(["--json", "--filter-build", "sometimes"])
    assert stop.value.code == 2 and "filter-build" in capsys.readouterr().err


def test_activation_values_follow_the_convention():
    """Per token per layer: the mixer norm's input and output (2h), the mixer (attention 2h + 2 kv; Hyena 5h),
    the MLP norm's input and output (2h) and the MLP (4f)."""
    from ledger.memory import activation_values_per_token, layer_tensors
    s = ledger.Settings(variant="hyena2", seq_len=4096)
    h, kv, f = 4096, 8 * 128, 14336  # Llama 3 8B: 8 key/value heads of 128
    assert activation_values_per_token(s, "hyena") == 2 * h + 5 * h + 2 * h + 4 * f
    assert activation_values_per_token(s, "attention") == 2 * h + 2 * h + 2 * kv + 2 * h + 4 * f
    with pytest.raises(LedgerError, match="mixer = 'mlp'"):
        activation_values_per_token(s, "mlp")
    for mixer in ("attention", "hyena"):
        tensors = dict(layer_tensors(s, mixer))
        assert sum(tensors.values()) == activation_values_per_token(s, mixer)
        # the input of the gate and up projections (the MLP norm's output) is kept: the matrix products'
        # backward needs it for dW, as Korthikanti et al. count the first MLP linear's input
        assert tensors["MLP norm output (the gate and up projections' input)"] == h
        assert tensors["MLP norm input (the residual after the mixer)"] == h


def test_the_head_keeps_fp32_log_probabilities_under_either_policy():
    """The loss's log-probabilities over the vocabulary (fp32) are held under both policies, and are the
    largest single activation: a rank's activations under full recompute cannot be less than them."""
    from ledger.memory import (
        LOGITS_BYTES_PER_VALUE,
        activation_values_per_token,
        head_bytes_per_token,
        rank_activations,
    )
    s = ledger.Settings(variant="hyena2", seq_len=4096)
    vocab, h = 128_256, 4096
    assert LOGITS_BYTES_PER_VALUE == 4
    assert head_bytes_per_token(s) == 2 * h * 2 + vocab * 4
    assert head_bytes_per_token(s, logits_bytes_per_value=2) == 2 * h * 2 + vocab * 2
    assert vocab * 4 > 2 * activation_values_per_token(s, "hyena")  # larger than a whole layer's tensors
    tokens = 1_048_576 / 64
    for recompute in ("none", "full"):
        act = rank_activations(ledger.Settings(variant="hyena2", seq_len=4096, recompute=recompute))
        assert act.logits_bytes == tokens * vocab * 4
        assert act.head_bytes == tokens * (2 * h * 2 + vocab * 4)
        assert act.bytes > act.logits_bytes + tokens * 32 * h * 2  # the checkpoints at the least
    with pytest.raises(LedgerError, match="logits_bytes_per_value"):
        head_bytes_per_token(s, logits_bytes_per_value=0)


def test_rank_activations_follow_the_run_policy():
    from ledger.memory import activation_values_per_token, rank_activations
    s = ledger.Settings(variant="hyena2", seq_len=4096)
    none = rank_activations(s)
    tokens = 1_048_576 / 64  # one micro-batch per GPU
    assert none.tokens == tokens
    head = 2 * 4096 * 2 + 128_256 * 4  # final norm's input and output in bf16, fp32 log-probabilities
    assert none.bytes == pytest.approx(tokens * (2 * 32 * activation_values_per_token(s, "hyena") + head))
    full = rank_activations(ledger.Settings(variant="hyena2", seq_len=4096, recompute="full"))
    # the checkpoints and the larger of the head (live at the start of the backward) and a rebuilt layer
    rebuilt = 2 * (activation_values_per_token(s, "hyena") - 4096)
    assert head > rebuilt
    assert full.bytes == pytest.approx(tokens * (2 * 32 * 4096 + max(head, rebuilt)))
    fp16_logits = rank_activations(ledger.Settings(variant="hyena2", seq_len=4096, recompute="full"),
                                   logits_bytes_per_value=2)
    assert fp16_logits.bytes == pytest.approx(tokens * (2 * 32 * 4096 + max(head - 128_256 * 2, rebuilt)))
    two = rank_activations(ledger.Settings(variant="hyena2", seq_len=4096, micro_batches=2))
    assert two.bytes == pytest.approx(none.bytes / 2)
    assert none.of_hbm > 1 and full.of_hbm < 0.2  # the default policy does not fit; recomputation does
    hybrid = rank_activations(ledger.Settings(variant="hybrid", seq_len=4096))
    assert hybrid.bytes < none.bytes  # attention layers keep less than Hyena layers under the convention
    with pytest.raises(LedgerError, match="bytes_per_value"):
        rank_activations(s, bytes_per_value=0)
