"""The one exception the ledger raises for bad input."""


class LedgerError(ValueError):
    """A setting, shape or config value the ledger cannot count; the message names it."""
