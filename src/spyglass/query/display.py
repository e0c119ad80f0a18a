"""The names shown to people for definitions and modules (in `symbol`, evidence, rows)."""

from __future__ import annotations

from spyglass.query.results import DefRow


def display(d: DefRow) -> str:
    """The qualified name shown to people: ``pkg.mod.Class.method`` / ``pkgname.Type.M``."""
    if "#" in d.full:
        module, _, qual = d.full.partition("#")
        short = module.rstrip("/").rsplit("/", 1)[-1]
        return f"{short}.{qual}" if short else qual
    return d.full


def module_symbol(path: str) -> str:
    """A file's module-level code as a symbol: ``pkg/mod.py`` → ``pkg.mod``."""
    return path.rsplit(".", 1)[0].replace("/", ".")
