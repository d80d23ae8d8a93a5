"""The package's layout rules: no module over 600 lines and no import cycle.

Run as a script (``python tests/test_layout.py``) it prints the module sizes,
the intra-package import graph and any cycle, for the project's notes.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ercot_nb"
MAX_LINES = 600

# Known breaches.  The tests below fail on any new breach, and also when a listed one is
# gone (so that these lists only shrink).
KNOWN_OVER_LIMIT: dict[str, str] = {}
# Imports that point up the layers (data -> algorithms -> result -> metrics -> figures ->
# widgets), each kept on purpose, inside a function, with its reason.
KNOWN_UPWARD_EDGES: dict[tuple[str, str], str] = {}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _resolve(current: str, is_package: bool, node: ast.ImportFrom) -> list[str]:
    if node.level:
        base = current.split(".")
        if not is_package:
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    return [prefix] + [f"{prefix}.{alias.name}" for alias in node.names]


def import_graph(include_lazy: bool = True) -> dict[str, set[str]]:
    """Module -> intra-package modules it imports.

    Imports under ``if TYPE_CHECKING:`` are left out (they never run).  With
    ``include_lazy=False`` imports inside functions are left out too.
    """
    known = modules()
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets: set[str] = set()

        def visit(node: ast.AST, in_function: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    for orelse in child.orelse:
                        visit(orelse, in_function)
                    continue
                inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
                if isinstance(child, (ast.Import, ast.ImportFrom)) and (include_lazy or not in_function):
                    candidates = ([alias.name for alias in child.names] if isinstance(child, ast.Import)
                                  else _resolve(name, path.name == "__init__.py", child))
                    for candidate in candidates:
                        if candidate in known and candidate != name:
                            targets.add(candidate)
                visit(child, inner)

        visit(tree, False)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10_000)

    def strongconnect(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strongconnect(w)
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
            strongconnect(v)
    return found


def package_cycles(allowed: dict[tuple[str, str], str] | None = None) -> list[list[str]]:
    """Cycles, not counting a package's ``__init__`` importing its own submodules.

    A package re-exporting names from its submodules, and those submodules
    importing siblings through the package, is the usual layout, not a
    circle between topics; edges from a module to a package containing it
    are therefore dropped (the package's edges to its submodules are kept,
    so a circle through a package is still seen).
    """
    allowed = allowed or {}
    graph = {m: {t for t in ts if not m.startswith(t + ".") and (m, t) not in allowed}
             for m, ts in import_graph().items()}
    return cycles(graph)


def sizes() -> dict[str, int]:
    return {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in modules().items()}


def test_no_import_cycle_but_the_known_upward_edges():
    assert package_cycles(KNOWN_UPWARD_EDGES) == []
    eager = import_graph(include_lazy=False)
    lazy = import_graph()
    for source, target in KNOWN_UPWARD_EDGES:
        assert target in lazy[source], f"{source} -> {target} is gone: drop it from the list"
        assert target not in eager[source], f"{source} -> {target} must stay inside a function"
    # each known edge is what closes a cycle: without the allowance it is seen
    assert package_cycles() != [] or not KNOWN_UPWARD_EDGES


def test_result_imports_no_page_nor_figures():
    """Data flows down: the page writes a result (``page.write``), a result never imports the page."""
    graph = import_graph()
    for source, targets in graph.items():
        if source.startswith("ercot_nb.result"):
            up = {t for t in targets if t.startswith(("ercot_nb.page", "ercot_nb.figures", "ercot_nb.widgets"))}
            assert not up, f"{source} imports {sorted(up)}"


def test_no_module_over_600_lines():
    over = {name: n for name, n in sizes().items() if n > MAX_LINES}
    assert set(over) == set(KNOWN_OVER_LIMIT), f"modules over {MAX_LINES} lines: {over}"


def test_the_checks_see_a_cycle_and_a_long_module():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    graph = import_graph()
    assert "ercot_nb.experiments.spec" in graph["ercot_nb.experiments.runner"]
    assert "ercot_nb.result" in graph["ercot_nb.figures"] or any(
        target.startswith("ercot_nb.result") for name, targets in graph.items()
        if name.startswith("ercot_nb.figures") for target in targets)
    assert max(sizes().values()) > 0


if __name__ == "__main__":  # pragma: no cover
    for name, n in sorted(sizes().items(), key=lambda item: item[1]):
        print(f"{n:6d} {name}")
    print("\nintra-package imports (module-level; + lazy = inside functions):")
    eager = import_graph(include_lazy=False)
    for name, targets in sorted(import_graph().items()):
        if targets:
            shown = [t if t in eager[name] else f"{t} (lazy)" for t in sorted(targets)]
            print(f"  {name} -> {', '.join(shown)}")
    print("\ncycles:", package_cycles() or "none")
    print("cycles without the known upward edges", sorted(KNOWN_UPWARD_EDGES), ":",
          package_cycles(KNOWN_UPWARD_EDGES) or "none")


def _package_of(module: str, known: dict[str, Path]) -> str:
    """The package a module belongs to (a package's ``__init__`` belongs to itself)."""
    return module if known[module].name == "__init__.py" else module.rsplit(".", 1)[0]


def private_imports_across_packages() -> list[tuple[str, str]]:
    """(importer, imported) where the imported module is private to another package.

    A module whose own name starts with ``_`` is private to the package holding it:
    only that package (and its subpackages) may import it.
    """
    known = modules()
    found = []
    for importer, targets in import_graph().items():
        home = _package_of(importer, known)
        for target in targets:
            name = target.rsplit(".", 1)[-1]
            owner = target.rsplit(".", 1)[0]
            if name.startswith("_") and not name.startswith("__") and not (
                    home == owner or home.startswith(owner + ".")):
                found.append((importer, target))
    return sorted(found)


def test_no_private_module_is_imported_from_another_package():
    assert private_imports_across_packages() == []
