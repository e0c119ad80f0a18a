"""Imports point only one way: syntax → langs (resolvers) → index → query → {mcp, cli, web}.

The CLI is the program's entry point, so it may start the MCP and web servers; those two
never import the CLI or each other."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "src" / "spyglass"
# Each layer may import the layers listed for it (and the shared leaf modules).
ALLOWED = {
    "syntax": {"syntax"},
    "langs": {"langs", "syntax"},
    "index": {"index", "syntax", "langs"},
    "query": {"query", "index", "syntax", "langs"},
    "mcp": {"mcp", "query"},
    "cli": {"cli", "query", "mcp", "web"},
    "web": {"web", "query"},
}
SHARED = {"types", "errors", "config", "wire", "net"}
OUTER_ONLY = {"wire", "net"}  # serialisation and sockets: only mcp, cli and web use them


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
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
                if path.stem in SHARED and target not in SHARED:
                    bad.append(f"{path.relative_to(pkg)} imports {name}")
                continue
            if target in SHARED:
                if target in OUTER_ONLY and layer not in ("mcp", "cli", "web"):
                    bad.append(f"{path.relative_to(pkg)} imports {name}")
                continue
            if target not in ALLOWED[layer]:
                bad.append(f"{path.relative_to(pkg)} imports {name}")
    return bad


def test_layers_import_only_downwards() -> None:
    assert violations() == []


def test_checker_catches_an_upward_import(tmp_path: Path) -> None:
    copy = tmp_path / "spyglass"  # a copy of the package: the test never writes into src/
    shutil.copytree(PKG, copy, ignore=shutil.ignore_patterns("__pycache__", "static"))
    assert violations(copy) == []
    (copy / "syntax" / "_layer_probe.py").write_text("from spyglass.query import facade\n")
    assert violations(copy) == ["syntax/_layer_probe.py imports spyglass.query"]
