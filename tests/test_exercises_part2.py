"""Chapters 11-16: every exercise asks by label, shows the reader's parameters and is set up for a
student identifier; no part-2 exercise is solved by naming the one library function that answers it."""
import re
from pathlib import Path

import nbformat
import pytest

from ledger.exercises import REGISTRY

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("1[1-6]_*.ipynb"))
EXERCISE = re.compile(r"```\{exercise\}\n:label: (?P<label>[\w-]+)\n(?P<body>.*?)```", re.S)
# Functions that answer an exercise in one call, which a statement must not hand the reader.
ONE_CALL = ("crossover_seq_len", "ridge_batch", "tensor_parallel_ridge_degree", "flops_utilization",
            "implied_utilization", "arithmetic_intensity", "roofline")


def exercises():
    for path in NOTEBOOKS:
        nb = nbformat.read(path, 4)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "markdown":
                for m in EXERCISE.finditer(cell.source):
                    yield path.name, m["label"], m["body"], nb.cells[i + 1] if i + 1 < len(nb.cells) else None


ALL = list(exercises())


def test_chapters_have_exercises():
    assert len(NOTEBOOKS) == 6 and len(ALL) >= 12


@pytest.mark.parametrize("chapter, label, body, after", ALL, ids=[e[1] for e in ALL])
def test_statement_shows_the_readers_parameters_and_names_no_one_call_answer(chapter, label, body, after):
    assert after is not None and after.cell_type == "code" and after.source.startswith("show_parameters(")
    shown = re.findall(r'show_parameters\("([\w-]+)", STUDENT_ID\)', after.source)
    assert shown and all(s == label or s.startswith(label.rsplit("-", 1)[0]) for s in shown), after.source
    assert all(s in REGISTRY for s in shown), shown
    assert {"remove-input", "exercise-parameters"} <= set(after.metadata.get("tags", [])), label
    named = [f for f in ONE_CALL if f in body]
    assert not named, f"{label}: the statement names {named}, which answers it in one call"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_each_chapter_sets_up_a_student_identifier(path):
    nb = nbformat.read(path, 4)
    setup = [c for c in nb.cells if "exercise-setup" in c.metadata.get("tags", [])]
    assert len(setup) == 1 and "STUDENT_ID = None" in setup[0].source and "import check" in setup[0].source


def test_the_labels_with_variants_give_different_answers_to_two_students():
    from ledger.exercises.instructor import answer
    numeric = [label for label, ex in REGISTRY.items() if ex.answer is not None]
    differ = [label for label in numeric
              if any(abs(answer(label, a) / answer(label, b) - 1) > REGISTRY[label].rel_tol
                     for a, b in (("s001", "s002"), ("s003", "s004"), ("s005", "s006")))]
    assert len(differ) * 2 >= len(numeric), f"only {len(differ)} of {len(numeric)} numeric labels vary by student"


def test_selective_long_names_both_attention_products():
    """The checked answer recomputes QK^T and AV; the statement says so, and QK^T alone (half) is refused."""
    import ledger
    from ledger import article
    from ledger.exercises import check
    body = next(b for _, label, b, _ in ALL if label == "ct-selective-long")
    assert "QK^\\top$ and $AV" in body
    items = ledger.step_items(ledger.Settings(variant="transformer", seq_len=32768))
    step = sum(i.flops for i in items)
    only_qk = 100 * article.recompute_flops(items, ops=("attention: Q K^T",)) / step
    assert check("ct-selective-long", 2 * only_qk)
    result = check("ct-selective-long", only_qk)
    assert result.verdict == "wrong" and "QK^T alone is half" in str(result)


def test_ct_mfu_hand_route_from_the_statement_is_right_for_every_variant():
    """ct-mfu's statement gives the counts per token (6N + 12LSH, the ledger's; 6N + 6LSH,
    Megatron's), so the hand route 6LSHT over the step time, GPUs and peak is right for the book's
    step time and every variant's."""
    from ledger.exercises.registry import variant_rows
    from ledger.shapes import LLAMA3_8B

    statement = next(body for _, label, body, _ in ALL if label == "ct-mfu")
    assert "6N + 12LSH" in statement and "6N + 6LSH" in statement and "reconciliation above" not in statement
    layers, hidden, seq_len, tokens, gpus, peak = LLAMA3_8B.n_layers, LLAMA3_8B.hidden, 4096, 1_048_576, 64, 989.4e12
    for row in [REGISTRY["ct-mfu"].book_parameters] + variant_rows("ct-mfu"):
        by_hand = 100 * 6 * layers * seq_len * hidden * tokens / (row["step_seconds"] * gpus * peak)
        assert REGISTRY["ct-mfu"].answer(**row) == pytest.approx(by_hand, rel=1e-9)
