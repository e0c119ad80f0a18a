"""Submodules reached as attributes of a package that does not bind them: inferred, with evidence.

A pack whose manifest sets `submodules_bound_by_import` (Python) says a submodule
``pkg.sub`` is an attribute of the package ``pkg`` only where ``pkg``'s own module file
binds it (a name ``sub`` it defines or imports, or an import from ``pkg.sub`` in it:
``from . import sub``, ``from .sub import x``) or the file using it imports the module
itself (``import pkg.sub``). A use ``pkg.sub.X`` through ``import pkg`` anywhere else
holds at run time only because some other module imported ``pkg.sub`` first (an import
side effect): type checkers report an unknown attribute there. The site stays in the
answer (a rename needs it) as an ``inferred`` binding whose evidence says so
(docs/accuracy.md, "Scoring rule").
"""

from __future__ import annotations

from collections.abc import Callable

from spyglass.query import closure
from spyglass.query.results import RefRow
from spyglass.query.rows import chunks, marks
from spyglass.query.view import View
from spyglass.syntax import heads as H

# What the evidence of such a site says (bench/accuracy/compare.py scores these apart).
SIDE_EFFECT = "reachable only through an import side effect"
MAX_IMPORTERS_SHOWN = 2


def checker(view: View, language: str) -> Callable[[RefRow], str] | None:
    """For the language's sites: the evidence of one reaching a submodule through a
    package that does not bind it ("" for any other site); None when the language's
    manifest has no such rule."""
    from spyglass.query.symbols import manifest_value

    if not manifest_value(language, "submodules_bound_by_import"):
        return None
    bound: dict[tuple[str, str], bool] = {}
    imported: dict[tuple[int, str], bool] = {}
    importers: dict[str, tuple[str, ...]] = {}
    said: dict[tuple[int, str], str] = {}  # (unit, submodule) → the evidence

    def why(r: RefRow) -> str:
        chain = _chain(r)
        if not chain:
            return ""
        modules = closure.modules_of(view, {f"{chain[0]}.{'.'.join(chain[1:i + 1])}"
                                            for i in range(1, len(chain))})
        package = chain[0]
        for part in chain[1:]:
            sub = f"{package}.{part}"
            if sub not in modules:
                return ""
            if (package, part) not in bound:
                bound[(package, part)] = _package_binds(view, package, part)
            if (r.unit, sub) not in imported:
                imported[(r.unit, sub)] = _imports_module(view, (r.unit,), sub)
            if not bound[(package, part)] and not imported[(r.unit, sub)]:
                if (r.unit, sub) not in said:
                    if sub not in importers:
                        importers[sub] = _importers(view, sub)
                    said[(r.unit, sub)] = _evidence(view, r, package, part, importers[sub])
                return said[(r.unit, sub)]
            package = sub
        return ""
    return why


def _chain(r: RefRow) -> list[str]:
    """[module the import binds, attribute, attribute, …] of a site reached through an
    imported module's attributes (``requests.cookies.Jar`` through ``import requests``:
    ``requests``, ``cookies``, ``Jar``); [] for any other site."""
    if r.target is None or r.role == "import" or "()" in r.qualifier or not r.qualifier \
            or H.split(r.head)[0] != H.IMPORT:
        return []
    tail = [*r.qualifier.split(".")[1:], r.name]
    suffix = "." + ".".join(tail)
    if not r.target.endswith(suffix) or len(r.target) == len(suffix):
        return []
    return [r.target[: -len(suffix)], *tail]


def _units_of(view: View, module: str) -> list[int]:
    return [int(str(u)) for (u,) in view.each(
        "SELECT u.id FROM {units} u JOIN temp.vfiles f ON f.unit = u.id WHERE u.module = ?",
        (module,))]


def _package_binds(view: View, package: str, name: str) -> bool:
    """Whether the module file(s) of `package` bind `name` at their top level: a
    definition, an import bound to that name, or an import from `package.name`."""
    units = _units_of(view, package)
    if not units:
        return False  # a folder without a module file (a namespace package) binds nothing
    sub = f"{package}.{name}"
    for chunk in chunks(units):
        held = marks(chunk)
        if view.each(f"SELECT 1 FROM {{defs}} d WHERE d.unit IN ({held}) AND d.name = ? AND "
                     "d.parent = -1 LIMIT 1", (*chunk, name)) or view.each(
                f"SELECT 1 FROM {{imports}} i WHERE i.unit IN ({held}) AND i.alias = ? AND "
                "i.scope < 0 LIMIT 1", (*chunk, name)) or view.each(
                f"SELECT 1 FROM {{aliases}} a WHERE a.unit IN ({held}) AND (a.target = ? OR "
                "(a.target >= ? AND a.target < ?)) LIMIT 1",
                (*chunk, sub, sub + ".", sub + "/")):
            return True
    return _imports_module(view, tuple(units), sub)


def _imports_module(view: View, units: tuple[int, ...], module: str) -> bool:
    """Whether one of `units` imports `module` (or a module below it) by itself, binding
    it as an attribute of its package (``import pkg.sub``)."""
    return bool(view.each(
        f"SELECT 1 FROM {{imports}} i WHERE i.unit IN ({marks(units)}) AND i.name IS NULL "
        "AND (i.module = ? OR (i.module >= ? AND i.module < ?)) LIMIT 1",
        (*units, module, module + ".", module + "/")))


def _importers(view: View, module: str) -> tuple[str, ...]:
    """A few files outside `module` importing names from it (their aliases' targets
    start with it)."""
    rows = view.each(
        "SELECT DISTINCT f.path FROM {aliases} a JOIN temp.vfiles f ON f.unit = a.unit "
        "JOIN {units} u ON u.id = a.unit WHERE a.target >= ? AND a.target < ? AND "
        "u.module != ? AND NOT (u.module >= ? AND u.module < ?) ORDER BY f.path LIMIT ?",
        (module + ".", module + "/", module, module + ".", module + "/",
         MAX_IMPORTERS_SHOWN + 2))
    return tuple(str(p) for (p,) in rows)


def _evidence(view: View, r: RefRow, package: str, name: str, importers: tuple[str, ...]
              ) -> str:
    sub = f"{package}.{name}"
    units = _units_of(view, package)
    where = [str(p) for (p,) in view.each(
        f"SELECT f.path FROM temp.vfiles f WHERE f.unit IN ({marks(units)}) ORDER BY f.path",
        tuple(units))] if units else []
    owner = where[0] if where else f"a module file of `{package}` (there is none)"
    here = bool(view.each(
        "SELECT 1 FROM {aliases} a WHERE a.unit = ? AND a.target >= ? AND a.target < ? "
        "LIMIT 1", (r.unit, sub + ".", sub + "/")))
    others = [p for p in importers if p != r.path][:MAX_IMPORTERS_SHOWN]
    how = []
    if here:
        how.append(f"`from {sub} import …` here")
    if others:
        more = ", …" if len([p for p in importers if p != r.path]) > len(others) else ""
        how.append(f"imported by {', '.join(others)}{more}")
    side = f" ({'; '.join(how)})" if how else " (no other file imports from it: it may " \
        "fail at run time)"
    return (f"inferred (a submodule as an attribute of its package): `{name}` is not bound "
            f"by {owner} and this file does not `import {sub}`; {SIDE_EFFECT}{side}: type "
            "checkers report an unknown attribute")
