"""Every exercise of chapters 11-16 is registered, says how to check itself, and has a computable answer."""
import math
import re
from pathlib import Path

import nbformat
import pytest

from ledger.exercises import LABELS, REGISTRY, answer, check

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("1[1-6]_*.ipynb"))
EXERCISE = re.compile(r"```\{exercise\}\n:label: (?P<label>[\w-]+)\n(?P<body>.*?)```", re.S)


def exercises():
    for path in NOTEBOOKS:
        nb = nbformat.read(path, 4)
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                for m in EXERCISE.finditer(cell.source):
                    yield path.name, m["label"], m["body"]


ALL = list(exercises())


def test_chapters_have_exercises():
    assert len(NOTEBOOKS) == 6 and len(ALL) >= 12


@pytest.mark.parametrize("chapter, label, body", ALL, ids=[e[1] for e in ALL])
def test_registered_and_self_checking(chapter, label, body):
    assert label in LABELS, f"{chapter}: {label} is not registered in ledger/exercises"
    last = body.strip().splitlines()[-1] + body.strip().splitlines()[-2]
    assert f'check("{label}"' in body and "ledger.exercises import check" in last, label


@pytest.mark.parametrize("label", [e[1] for e in ALL])
def test_answer_is_finite_and_accepted(label):
    value = answer(label)
    if REGISTRY[label].answer is None:
        return
    assert math.isfinite(value)
    assert check(label, value)
    assert not check(label, value * 1.5 + 1)


def test_replaced_plug_ins_are_gone():
    labels = {e[1] for e in ALL}
    assert not labels & {"am-untie", "rc-causal-32k", "ct-chinchilla-run", "ms-equal"}


def test_selective_long_names_both_attention_products():
    """The checked answer recomputes QK^T and AV; the statement says so, and QK^T alone (half) is refused."""
    body = next(b for _, label, b in ALL if label == "ct-selective-long")
    assert "QK^\\top$ and $AV" in body
    import ledger
    from ledger import article
    items = ledger.step_items(ledger.Settings(variant="transformer", seq_len=32768))
    step = sum(i.flops for i in items)
    only_qk = 100 * article.recompute_flops(items, ops=("attention: Q K^T",)) / step
    assert check("ct-selective-long", 2 * only_qk)
    result = check("ct-selective-long", only_qk)
    assert result.verdict == "wrong" and "QK^T alone is half" in str(result)
