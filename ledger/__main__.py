"""`python -m ledger`: see ledger/cli.py."""
import sys

from .cli import main

sys.exit(main())
