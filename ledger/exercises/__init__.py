"""Self-checking exercises: `check("masks-step-size", my_answer)` compares an answer with the ledger.

Each chapter group registers its exercises in a module of this package (`part1.py`, `part2.py`,
...); every such module is imported here, so `LABELS` lists every exercise in the book.
"""
import importlib
import pkgutil

from .registry import REGISTRY, CheckResult, Exercise, answer, check

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name != "registry"):
    importlib.import_module(f"{__name__}.{_module}")

LABELS: tuple[str, ...] = tuple(sorted(REGISTRY))

__all__ = ["LABELS", "CheckResult", "Exercise", "answer", "check"]
