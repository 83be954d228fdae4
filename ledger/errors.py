"""The one exception the ledger raises for bad input."""
import math


class LedgerError(ValueError):
    """A setting, shape or config value the ledger cannot count; the message names it."""


def check_positive_int(name: str, value) -> int:
    """`value` if it is a positive integer (not a bool); else a LedgerError naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise LedgerError(f"{name} = {value!r}: must be a positive integer")
    return value


def check_positive_number(name: str, value) -> float:
    """`value` as a float if it is a positive finite number; else a LedgerError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise LedgerError(f"{name} = {value!r}: must be a positive finite number")
    return float(value)


def check_speedup(value) -> float:
    """`value` as a float if it is a positive number, infinity allowed (a free engine); else a LedgerError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or value <= 0:
        raise LedgerError(f"optical_speedup = {value!r}: must be a positive number (inf for a free engine)")
    return float(value)
