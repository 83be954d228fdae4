"""book/_tools/prose_eval.py turns glue roles into {eval} roles that print the same text, and the
executor's evaluation cell reports each expression's text or error."""
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_tools"))
import execute_chapters  # noqa: E402
import prose_eval  # noqa: E402


@pytest.mark.parametrize("value, fmt", [(12.1934, ".2f"), (1031.0, ",.0f"), (4097, ","), (0.1219, ".0%"),
                                        (5.4e11, ".2e"), (64, "d"), (64.0, "d"), (2.0834, ""), ("Hyena-2", ""),
                                        (57256.4, ",.1f")])
def test_the_eval_role_prints_what_the_glue_role_printed(value, fmt):
    from myst_nb.core.variables import format_plain_text  # here, not at collection: myst-nb takes 0.7 s to import

    glue = "{glue:text}`x:" + fmt + "`" if fmt else "{glue:text}`x`"
    converted = prose_eval.convert_source(f"a {glue} b", "markdown")
    expression = converted.split("`")[1]
    assert converted.startswith("a {eval}`f'")
    assert eval(expression, {"glued": SimpleNamespace(x=value)}) == format_plain_text(repr(value), fmt)


def test_conversion_is_idempotent_and_leaves_other_roles():
    text = "S = {glue:text}`seq_len:,` tokens; {cite}`kaplan2020scaling`; {doc}`01_six_n_rule`; `glue`"
    once = prose_eval.convert_source(text, "markdown")
    assert once == ("S = {eval}`f'{glued.seq_len:,}'` tokens; {cite}`kaplan2020scaling`; {doc}`01_six_n_rule`; `glue`")
    assert prose_eval.convert_source(once, "markdown") == once
    code = "import ledger\nfrom myst_nb import glue\n\nx = 1"
    assert prose_eval.convert_source(code, "code") == "import ledger\nfrom ledger.glue import glue\n\nx = 1"


def test_the_evaluation_cell_reports_values_and_errors():
    source = execute_chapters.eval_cell_source(["f'{x:.2f}'", "f'{missing:.1f}'"])
    done = subprocess.run([sys.executable, "-c", "x = 12.194\n" + source], capture_output=True, text=True, check=True)
    values = json.loads(done.stdout.split(execute_chapters.EVAL_MARK, 1)[1])
    assert values["f'{x:.2f}'"] == {"text": "12.19"}
    assert values["f'{missing:.1f}'"]["error"].startswith("NameError")
