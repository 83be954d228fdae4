"""ledger.glue: records a prose number and binds its name in the notebook's namespace."""
import pytest

from ledger import LedgerError
from ledger.glue import glue


def test_binds_the_name():
    ns = {}
    assert glue("step_share", 12.19, namespace=ns) is None  # a cell ending with it prints nothing
    assert ns["step_share"] == 12.19
    glue("step_share", 12.5, namespace=ns)  # a re-run may change a glued value (a measured rate)
    assert ns["step_share"] == 12.5


def test_binds_in_the_callers_globals():
    glue("_test_glued_here", 3.0)
    assert globals()["_test_glued_here"] == 3.0
    del globals()["_test_glued_here"]


def test_refuses_a_name_the_notebook_uses_for_something_else():
    ns = {"row": "a table row"}
    with pytest.raises(LedgerError, match="already bound"):
        glue("row", 1.0, namespace=ns)
    glue("row", "a table row", namespace=ns)  # the same value is fine
    for bad in ("two words", "ex-1", "class", 3):
        with pytest.raises(LedgerError, match="identifier"):
            glue(bad, 1.0, namespace={})
