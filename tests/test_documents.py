"""Packed documents (Settings.documents) and the two counts of attention over them (Costs.attention_count)."""
import json
import random
import subprocess
import sys

import pytest

import ledger
from ledger import hardware
from ledger.errors import LedgerError
from ledger.hardware import hardware_flops, model_flops


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("kernel", ["dense", "flash", "flash-causal"])
def test_two_documents_count_as_one_shorter_sequence_under_documents(causal, kernel):
    """Two 4,096-token documents in an 8,192-token row: the documents count is one 4,096-token sequence, model and
    hardware FLOPs (the flash-causal kernel); the sequence count is one 8,192-token document."""
    packed = dict(variant="transformer", seq_len=8192, documents=[4096, 4096], causal_attention=causal,
                  attention_kernel=kernel)
    short = dict(variant="transformer", seq_len=4096, causal_attention=causal, attention_kernel=kernel)
    long = dict(variant="transformer", seq_len=8192, causal_attention=causal, attention_kernel=kernel)
    assert model_flops(**packed, attention_count="documents") == model_flops(**short)
    assert model_flops(**packed, attention_count="sequence") == model_flops(**long)
    assert model_flops(**packed) == model_flops(**long)  # "sequence" is the default: no number moves
    assert ledger.step_row(**packed, attention_count="documents").step_flops == ledger.step_row(**short).step_flops
    # the kernel follows the documents, whatever the count's convention
    for count in ("sequence", "documents"):
        got = hardware_flops(**packed, attention_count=count)
        if kernel == "flash-causal":
            assert got == hardware_flops(**short)
        else:  # dense and flash compute every score of the row
            assert got == hardware_flops(**long)


def test_one_document_changes_nothing():
    for variant in ledger.VARIANTS:
        base = dict(variant=variant, seq_len=4096)
        row = ledger.step_row(**base).to_json()
        assert row["documents"] == [4096]
        for count in ("sequence", "documents"):
            other = ledger.step_row(**base, documents=[4096], attention_count=count).to_json()
            assert other == row


def test_documents_move_only_attention_and_the_hyena_not_at_all():
    mix = [2800, 1900, 1200, 900, 600, 400, 250, 142]
    for variant in ("hyena2", "hyena2_circulant"):
        assert (ledger.step_row(variant=variant, seq_len=8192, documents=mix, attention_count="documents").step_flops
                == ledger.step_row(variant=variant, seq_len=8192).step_flops)
    packed = ledger.step_row(variant="transformer", seq_len=8192, documents=mix, attention_count="documents")
    whole = ledger.step_row(variant="transformer", seq_len=8192)
    assert packed.step_flops < whole.step_flops
    assert packed.all_digital_step_s < whole.all_digital_step_s  # the kernel skips the tiles across documents
    # the counted attention is the sum of L_i^2 instead of S^2: the difference is exactly the attention's share
    h, layers, rows = 4096, 32, 1_048_576 // 8192
    attention_per_entry = 12 * h * layers * rows  # 2 FLOPs x H per entry, QK^T and AV, forward and twice backward
    assert whole.step_flops - packed.step_flops == attention_per_entry * (8192 ** 2 - sum(n * n for n in mix))


def test_varlen_tiles_never_more_than_the_block_mask_and_equal_it_on_whole_tiles():
    rng = random.Random(7)
    for _ in range(400):
        seq_len = rng.choice([256, 1000, 2048, 8192])
        cuts = sorted(rng.sample(range(1, seq_len), rng.randint(0, 7)))
        docs = [b - a for a, b in zip([0] + cuts, cuts + [seq_len])]
        tile = rng.choice([16, 64, 128])
        varlen = hardware.varlen_causal_score_entries(docs, tile)
        assert sum(n * (n + 1) // 2 for n in docs) <= varlen <= hardware.packed_causal_score_entries(docs, tile)
    assert hardware.varlen_causal_score_entries([4096, 4096], 128) == hardware.packed_causal_score_entries(
        [4096, 4096], 128) == 2 * hardware.causal_score_entries(4096, 128)


@pytest.mark.parametrize("docs,message", [
    ([4096, 4095], r"documents = \[4096, 4095\] sum to 8,191 tokens: they must sum to seq_len = 8,192"),
    ([8192, 0], r"documents = \[8192, 0\]: must be a non-empty list of positive integers"),
    ([], r"documents = \[\]: must be a non-empty list"),
    ([4096.0, 4096], r"documents = \[4096.0, 4096\]"),
    ("8192", r"documents = '8192': must be a list of positive integers"),
    (8192, r"documents = 8192: must be a list"),
])
def test_bad_documents_are_refused_in_one_line(docs, message):
    with pytest.raises(LedgerError, match=message):
        ledger.step_row(variant="transformer", seq_len=8192, documents=docs)


def test_bad_attention_count_is_refused():
    with pytest.raises(LedgerError, match=r"attention_count = 'rows': must be one of sequence, documents"):
        ledger.step_row(attention_count="rows")


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "ledger", *args], capture_output=True, text=True)


def test_cli_documents_and_attention_count():
    run = _cli("--json", "--variant", "transformer", "--documents", "4096,4096", "--attention-count", "documents",
               "--causal-attention")
    assert run.returncode == 0, run.stderr
    (row,) = json.loads(run.stdout)["rows"]
    assert row["seq_len"] == 8192 and row["documents"] == [4096, 4096]
    one = json.loads(_cli("--json", "--variant", "transformer", "--seq-len", "4096", "--causal-attention").stdout)
    assert row["step_flops"] == one["rows"][0]["step_flops"]
    assert row["hardware_flops"] == one["rows"][0]["hardware_flops"]
    rows = json.loads(_cli("--json", "--seq-len", "2048").stdout)["rows"]
    assert all(r["documents"] == [2048] for r in rows)


@pytest.mark.parametrize("args,message", [
    (("--documents", "4096,4095", "--seq-len", "8192"), "documents = [4096, 4095] sum to 8,191 tokens"),
    (("--documents", "4096,0"), "'4096,0' holds a length below 1"),
    (("--documents", "4096,x"), "'4096,x' is not a comma-separated list of whole numbers"),
    (("--attention-count", "rows"), "invalid choice: 'rows'"),
])
def test_cli_refuses_bad_documents_with_status_2(args, message):
    run = _cli("--json", *args)
    assert run.returncode == 2 and message in run.stderr
    assert len(run.stderr.strip().splitlines()) <= 2 and "Traceback" not in run.stderr
