"""Imports point only one way: syntax → langs (resolvers) → index → query → {mcp, cli, web}.

The CLI is the program's entry point, so it may start the MCP and web servers and the
desktop window (which serves the web app); the MCP and web servers
never import the CLI or each other. The front ends see the query layer only through the
facade, discovery and the result types (plus the tool surface and the renderer), and no
module imports itself back through others: the import graph has no cycle."""

from __future__ import annotations

import ast
import shutil
from collections.abc import Iterator
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "src" / "spyglass"
# Each layer may import the layers listed for it (and the shared leaf modules).
ALLOWED = {
    "syntax": {"syntax"},
    "langs": {"langs", "syntax"},
    "index": {"index", "syntax", "langs"},
    "query": {"query", "index", "syntax", "langs", "bridge"},
    "bridge": {"bridge"},
    "mcp": {"mcp", "query"},
    "cli": {"cli", "query", "mcp", "web", "desktop"},
    "web": {"web", "query"},
    "desktop": {"desktop", "web", "query"},
}
SHARED = {"types", "errors", "config", "wire", "net", "surface", "render", "budget"}
OUTER_ONLY = {"wire", "net", "surface", "render", "budget"}  # only the front ends use them
FRONT_ENDS = {"mcp", "cli", "web", "desktop"}
# What a front end may import from the engine: the facade, discovery and the result types.
FRONT_API = {"spyglass.query.facade", "spyglass.query.discovery", "spyglass.query.results"}
# Shared modules that read the result types (the surface declares them, the renderer draws them).
READS_RESULTS = {"surface", "render", "budget"}


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module == "spyglass" and node.level == 0:
            names += [f"spyglass.{a.name}" for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return [n for n in names if n == "spyglass" or n.startswith("spyglass.")]


def violations(pkg: Path = PKG) -> list[str]:
    """Every import in the package folder `pkg` that points against the layers."""
    bad: list[str] = []
    for path in pkg.rglob("*.py"):
        rel = path.relative_to(pkg).parts
        layer = rel[0] if len(rel) > 1 else None
        for name in _imports(path):
            parts = name.split(".")
            target = parts[1] if len(parts) > 1 else ""
            if layer is None:  # top-level modules: shared leaves import only shared leaves
                results = path.stem in READS_RESULTS and name == "spyglass.query.results"
                if path.stem in SHARED and target not in SHARED and not results:
                    bad.append(f"{path.relative_to(pkg)} imports {name}")
                continue
            if target in SHARED:
                if target in OUTER_ONLY and layer not in FRONT_ENDS:
                    bad.append(f"{path.relative_to(pkg)} imports {name}")
                continue
            if target not in ALLOWED[layer]:
                bad.append(f"{path.relative_to(pkg)} imports {name}")
            elif layer in FRONT_ENDS and target == "query" and name not in FRONT_API:
                bad.append(f"{path.relative_to(pkg)} imports {name} (front ends use only "
                           "the facade, discovery and the result types)")
    return bad


# -- cycles ------------------------------------------------------------------------------------
def _runtime_imports(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import that runs (at module level or inside functions), not `if TYPE_CHECKING:`."""
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo += node.orelse
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        todo += ast.iter_child_nodes(node)


def import_graph(pkg: Path = PKG) -> dict[str, set[str]]:
    """Module → the package's modules it imports (`from a import b` names a.b if a module)."""
    prefix = pkg.name
    modules: dict[str, Path] = {}
    for path in pkg.rglob("*.py"):
        parts = [prefix, *path.relative_to(pkg).with_suffix("").parts]
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        out: set[str] = set()
        for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out |= {a.name for a in node.names}
            elif node.module and node.level == 0:
                out |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        graph[module] = {m for m in out if m in modules and m != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_cycle_check_finds_a_cycle_and_ignores_type_only_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "demo"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from demo.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from demo import c\n")
    (pkg / "c.py").write_text("import demo.a\n")
    (pkg / "d.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    import demo.a\n")
    (pkg / "e.py").write_text("import demo.d\n")
    assert cycles(import_graph(pkg)) == [["demo.a", "demo.c", "demo.sub.b"]]
    assert cycles({"x": {"y"}, "y": {"z"}, "z": set()}) == []


def test_front_ends_see_only_the_facade_and_result_types() -> None:
    assert not [v for v in violations() if "front ends use only" in v]


def test_layers_import_only_downwards() -> None:
    assert violations() == []


def test_checker_catches_an_upward_import(tmp_path: Path) -> None:
    copy = tmp_path / "spyglass"  # a copy of the package: the test never writes into src/
    shutil.copytree(PKG, copy, ignore=shutil.ignore_patterns("__pycache__", "static"))
    assert violations(copy) == []
    (copy / "syntax" / "_layer_probe.py").write_text("from spyglass.query import facade\n")
    assert violations(copy) == ["syntax/_layer_probe.py imports spyglass.query"]
