"""No import circle anywhere in the package, and the import contract names every layer.

The graph is grimp's (import-linter's own), read from the installed package: every import of a
module of ``tablezoo`` by another, those inside functions and under ``TYPE_CHECKING`` included.
"""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("tablezoo", cache_dir=None)


def _extension(graph: grimp.ImportGraph, importer: str, imported: str) -> bool:
    """Whether every import of ``imported`` by ``importer`` is ``from imported import <name>`` of a
    compiled module (``from tablezoo.games import _native``): grimp sees only ``.py`` files, so it
    draws that as an import of the package, which the module does not make."""
    details = graph.get_import_details(importer=importer, imported=imported)
    for detail in details:
        match = re.fullmatch(
            rf"from {re.escape(imported)} import (\w+)", detail["line_contents"].split("#")[0].strip()
        )
        if not match:
            return False
        if imported not in _packages(graph):
            return False
        spec = importlib.util.find_spec(f"{imported}.{match.group(1)}")
        if spec is None or spec.origin is None or spec.origin.endswith(".py"):
            return False
    return bool(details)


def _packages(graph: grimp.ImportGraph) -> set[str]:
    """The modules that are packages (a module of the graph lies inside each)."""
    return {".".join(m.split(".")[:-1]) for m in graph.modules if "." in m}


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The package's import circles: each strongly connected set of modules (Tarjan's algorithm)."""
    edges = {
        module: sorted(
            imported
            for imported in graph.find_modules_directly_imported_by(module)
            if imported.startswith("tablezoo") and not _extension(graph, module, imported)
        )
        for module in graph.modules
        if module.startswith("tablezoo")
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            module, rest = work[-1]
            for imported in rest:
                if imported not in index:
                    index[imported] = low[imported] = len(index)
                    stack.append(imported)
                    work.append((imported, iter(edges.get(imported, []))))
                    break
                if imported in stack:
                    low[module] = min(low[module], index[imported])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    component = []
                    while True:
                        member = stack.pop()
                        component.append(member)
                        if member == module:
                            break
                    if len(component) > 1 or module in edges.get(module, []):
                        found.append(sorted(component))
    return found


def test_no_import_circle_in_the_package() -> None:
    circles = cycles(_graph())
    assert not circles, "import circles (break each by moving what both need below them):\n" + "\n".join(
        " <-> ".join(circle) for circle in circles
    )


def test_the_cycle_check_finds_a_circle() -> None:
    graph = _graph()
    graph.add_import(importer="tablezoo.games.core", imported="tablezoo.envs.names")
    assert any("tablezoo.games.core" in circle for circle in cycles(graph))


def test_the_contract_names_every_layer() -> None:
    """Every subpackage of ``tablezoo`` is in the layers contract, and every layer exists."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [c["layers"] for c in config["contracts"] if c["type"] == "layers"]
    named = {name.strip() for layer in layers for name in layer.split("|")}
    graph = _graph()
    top = {".".join(m.split(".")[:2]) for m in graph.modules if m.count(".") >= 1}
    assert top == named, f"in the package, not the contract: {top - named}; not in the package: {named - top}"
