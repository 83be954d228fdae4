"""ledger.glue: records a prose number and keeps it as glued.<name> in the notebook's namespace."""
import pytest

from ledger import LedgerError
from ledger.glue import Glued, glue


def test_keeps_the_value_apart_from_the_notebooks_variables():
    ns = {"implied": 0.1876}
    assert glue("implied", 18.76, namespace=ns) is None  # a cell ending with it prints nothing
    assert ns["implied"] == 0.1876 and ns["glued"].implied == 18.76
    glue("implied", 18.8, namespace=ns)  # a re-run may change a glued value (a measured rate)
    assert ns["glued"].implied == 18.8


def test_uses_the_callers_globals():
    glue("_test_glued_here", 3.0)
    assert isinstance(globals()["glued"], Glued) and globals()["glued"]._test_glued_here == 3.0
    del globals()["glued"]


def test_refuses_bad_names_and_a_foreign_glued_variable():
    for bad in ("two words", "ex-1", "class", 3):
        with pytest.raises(LedgerError, match="identifier"):
            glue(bad, 1.0, namespace={})
    with pytest.raises(LedgerError, match="not the glued values"):
        glue("x", 1.0, namespace={"glued": [1, 2]})
