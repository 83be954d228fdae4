"""Time numpy's matmul and FFT at the ledger's shapes (the code is ledger/measure.py,
in the library, so that chapter 16 runs from the student folder too)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from ledger.measure import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
