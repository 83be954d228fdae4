"""The library's layout (docs/layout.md): an import graph read from the code's own import statements,
checked for imports that climb a layer, circles, imports inside functions, and modules no layer names;
and `step_row` building the step's line items once."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import ledger
import ledger.step

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = ROOT / "docs" / "layout.md"
COMMAND_LINE = {"cli", "__main__"}
"""Modules allowed to import a `ledger` module inside a function: the command line loads a subcommand only
when it is asked for."""
OPTIONAL_MODULES = {("ledger.exercises.registry", "ledger.exercises.rubrics")}
"""(importer, module) pairs imported inside a function because the module may be absent: the student folder's
library leaves the rubrics out, and the registry then gives every explanation an empty rubric."""


def layers_of(layout_text: str) -> dict[str, int]:
    """{top-level module or subpackage name: layer number} from the layout table's rows."""
    out: dict[str, int] = {}
    for line in layout_text.splitlines():
        row = re.match(r"\|\s*(\d+)\.[^|]*\|[^|]*\|(.*)\|\s*$", line)
        if row:
            for name in re.findall(r"`([A-Za-z_]\w*)`", row.group(2)):
                assert name not in out, f"docs/layout.md names {name!r} in two layers"
                out[name] = int(row.group(1))
    return out


def module_name(package_dir: Path, path: Path) -> str:
    """Dotted name of `path` inside the package at `package_dir` ("ledger.claims.ch05_amdahl")."""
    parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def resolve(importer: str, is_package: bool, node: ast.ImportFrom | ast.Import, modules: set[str]) -> list[str]:
    """The package's modules that one import statement names (a name imported from a package counts as the
    package unless it is a module of it)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in modules]
    if node.level:
        base = importer.split(".") if is_package else importer.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if target not in modules:
        return []
    named = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in modules]
    rest = [a for a in node.names if f"{target}.{a.name}" not in modules]
    return named + ([target] if rest else [])


def import_graph(package_dir: Path) -> tuple[dict[str, set[str]], list[tuple[str, int, str]]]:
    """({module: modules it imports}, [(module, line, target) of imports placed inside a function]).

    Every import statement counts, wherever it stands (under `if TYPE_CHECKING:` too)."""
    files = {module_name(package_dir, p): p for p in sorted(package_dir.rglob("*.py"))}
    modules = set(files)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    in_functions: list[tuple[str, int, str]] = []
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for sub in ast.walk(node):
                    if isinstance(sub, (ast.Import, ast.ImportFrom)):
                        in_functions += [(name, sub.lineno, t) for t in resolve(name, is_package, sub, modules)]
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                graph[name].update(t for t in resolve(name, is_package, node, modules) if t != name)
    return graph, in_functions


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def layer_of(module: str, layers: dict[str, int], package: str) -> int | None:
    """The layer of a module: its top-level name's (a subpackage's modules share it); the package is `__init__`."""
    parts = module.split(".")[1:]
    return layers.get(parts[0] if parts else "__init__")


def violations(package_dir: Path, layers: dict[str, int]) -> list[str]:
    """Every way the package at `package_dir` breaks the layout `layers`, one line each."""
    package = package_dir.name
    graph, in_functions = import_graph(package_dir)
    out = [f"{m} is in no layer of docs/layout.md" for m in sorted(graph) if layer_of(m, layers, package) is None]
    for m, targets in sorted(graph.items()):
        for t in sorted(targets):
            lm, lt = layer_of(m, layers, package), layer_of(t, layers, package)
            if lm is not None and lt is not None and lt > lm:
                out.append(f"{m} (layer {lm}) imports {t} (layer {lt}): an import that climbs a layer")
    out += [f"import circle: {' -> '.join(c)}" for c in circles(graph)]
    out += [f"{m}:{line} imports {t} inside a function" for m, line, t in in_functions
            if m.split(".")[-1] not in COMMAND_LINE and (m, t) not in OPTIONAL_MODULES]
    return out


def depth(graph: dict[str, set[str]]) -> int:
    """Modules on the longest chain of imports (the graph has no circle)."""
    memo: dict[str, int] = {}

    def d(v: str) -> int:
        if v not in memo:
            memo[v] = 1 + max((d(w) for w in graph[v]), default=0)
        return memo[v]
    return max(d(v) for v in graph)


def test_the_library_keeps_its_layout():
    layers = layers_of(LAYOUT.read_text(encoding="utf-8"))
    assert len(layers) > 20, "docs/layout.md's table was not read"
    named = {p.stem if p.is_file() else p.name for p in (ROOT / "ledger").iterdir()
             if (p.suffix == ".py") or (p.is_dir() and (p / "__init__.py").exists())}
    assert sorted(set(layers) - named) == [], "docs/layout.md names modules the library does not have"
    assert violations(ROOT / "ledger", layers) == []


def test_the_core_chain_is_short():
    """The longest chain of imports in the core is eight modules, table -> step_time -> hardware -> step ->
    layers -> settings -> engine -> errors: a reader following step_row only ever goes down."""
    graph, _ = import_graph(ROOT / "ledger")
    core = {m: {t for t in ts if t.split(".")[-1] in CORE} for m, ts in graph.items() if m.split(".")[-1] in CORE}
    assert depth(core) <= 8


CORE = ("errors", "costs", "shapes", "engine", "run", "settings", "layers", "step", "shares", "masks",
        "hardware", "boundary", "memory", "timing", "step_time", "table")


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    pkg = tmp_path / "pkg"
    for rel, text in files.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text, encoding="utf-8")
    return pkg


LAYERS = {"base": 1, "items": 2, "view": 3, "uses": 4, "__init__": 4}


def test_the_check_finds_a_climb_a_circle_a_lazy_import_and_an_unnamed_module(tmp_path):
    pkg = _package(tmp_path, {
        "__init__.py": "from .view import figure\n",
        "base.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .items import Item\n",
        "items.py": "from .base import X\n\ndef f():\n    from .view import figure\n    import numpy\n",
        "view.py": "from . import items\n",
        "uses/__init__.py": "",
        "uses/one.py": "from ..view import figure\nfrom . import two\n",
        "uses/two.py": "from .one import x\n",
        "stray.py": "",
    })
    found = violations(pkg, LAYERS)
    assert "pkg.stray is in no layer of docs/layout.md" in found
    assert "pkg.base (layer 1) imports pkg.items (layer 2): an import that climbs a layer" in found
    assert "pkg.items (layer 2) imports pkg.view (layer 3): an import that climbs a layer" in found
    assert "import circle: pkg.uses.one -> pkg.uses.two" in found
    assert "import circle: pkg.base -> pkg.items -> pkg.view" in found
    assert "pkg.items:4 imports pkg.view inside a function" in found
    assert not any("numpy" in line for line in found)


def test_the_check_passes_a_package_that_reads_one_way(tmp_path):
    pkg = _package(tmp_path, {
        "__init__.py": "from .view import figure\nfrom .items import Item\n",
        "base.py": "import math\n",
        "items.py": "from .base import X\n\ndef f():\n    import numpy as np\n",
        "view.py": "from . import items\nfrom .base import X\n",
        "uses/__init__.py": "from .one import x\n",
        "uses/one.py": "from ..view import figure\nfrom .. import base\n",
        "cli.py": "def main():\n    from .uses import one\n",
    })
    assert violations(pkg, {**LAYERS, "cli": 4}) == []


def test_layout_table_is_read_from_its_rows():
    text = "| layer | holds | modules |\n| --- | --- | --- |\n| 1. base | `Costs` here | `errors`, `costs` |\n" \
           "| 2. items | the `step` list | `layers` |\n"
    assert layers_of(text) == {"errors": 1, "costs": 1, "layers": 2}


def test_step_row_builds_the_items_once(monkeypatch):
    """Every figure of a row is a view of one list of line items: the layer functions run once per step_row
    (the embedding is emitted once per step_items call), however many figures the row holds."""
    calls = []
    real = ledger.step.embedding

    def counting(s):
        calls.append(s)
        return real(s)
    monkeypatch.setattr(ledger.step, "embedding", counting)
    for variant in ledger.VARIANTS:
        for extra in ({}, {"recompute": "full"}, {"filter_build": "micro-batch", "micro_batches": 4},
                      {"layout": "rows"}, {"attention_kernel": "dense"}):
            calls.clear()
            row = ledger.step_row(variant=variant, seq_len=2048, **extra)
            assert len(calls) == 1, (variant, extra, len(calls))
            assert row.step_flops > 0
    calls.clear()
    ledger.step_items(ledger.Settings())
    ledger.step_items(ledger.Settings())
    assert len(calls) == 2  # the counter sees every build


def test_public_names_still_work():
    """The chapters' names survive the moves: `ledger`'s own, and the old homes that re-export."""
    import ledger.hidden_costs
    import ledger.boundary
    import ledger.table
    missing = [n for n in ledger.__all__ if not hasattr(ledger, n)]
    assert missing == []
    assert ledger.Device is ledger.Engine
    assert ledger.make_settings is ledger.table.make_settings is ledger.settings.make_settings
    assert ledger.hidden_costs.conversions is ledger.boundary.conversions
    assert ledger.step_row(ledger.Settings(variant="hybrid", seq_len=8192)) == ledger.step_row(variant="hybrid", seq_len=8192)
