"""Overloads told apart by argument types, for packs that type arguments (manifest `[arity]
argument_types` names a module of the pack: Java's langs/java/types.py). The call's file
and the overloads' files are parsed here, at query time, only for calls whose argument
count leaves several overloads (docs/languages.md, "Overloads")."""

from __future__ import annotations

import importlib
import importlib.util
from enum import Enum
from pathlib import Path
from typing import Protocol, cast

from tree_sitter import Node, Tree

from spyglass.errors import BadInput, LanguagePackError, LimitExceeded
from spyglass.query import aliases
from spyglass.query import paths as client_paths
from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import REF_COLS, REF_FROM, refs
from spyglass.query.symbols import manifest_value
from spyglass.query.view import View
from spyglass.syntax.budget import OverBudget
from spyglass.syntax.langpack import LANGS_DIR, pack_named
from spyglass.syntax.parsing import parse, prepared

MEMO_TREES = 16  # parsed files a view keeps (per state)
Types = tuple[str | None, ...]


class Typing(Protocol):
    """A pack's argument typing module (langs/java/types.py)."""

    def argument_types(self, name: Node) -> Types | None: ...

    def parameter_types(self, name: Node) -> Types | None: ...

    def assignable(self, arg: str | None, param: str | None) -> bool | None: ...


class ResultTyping(Protocol):
    """A typing module that also types a call's result by its callee's declared return
    type (`argument_calls`, `return_type`: Java's)."""

    def argument_calls(self, name: Node) -> tuple[Node | None, ...] | None: ...

    def return_type(self, name: Node) -> str | None: ...


class Fit(Enum):
    """How a call's argument types fit one overload's parameter types."""

    EXACT = "exact"  # every argument's type is the parameter's: the most specific
    FITS = "fits"  # every argument may be passed
    MAYBE = "maybe"  # not known for some argument
    NO = "no"  # some argument surely may not be passed


def typing(language: str) -> Typing | None:
    """The typing module the pack of `language` names, or None."""
    table = manifest_value(language, "arity")
    name = table.get("argument_types") if isinstance(table, dict) else None
    pack = pack_named(language)
    if not isinstance(name, str) or not name or pack is None:
        return None
    return _load(pack.folder, name)


_LOADED: dict[Path, Typing] = {}


def _load(folder: Path, name: str) -> Typing:
    path = folder / f"{name}.py"
    if path not in _LOADED:
        if folder.parent == LANGS_DIR:
            module = importlib.import_module(f"spyglass.langs.{folder.name}.{name}")
        else:  # a pack folder of $SPYGLASS_LANGUAGE_PACKS: loaded from its file
            spec = importlib.util.spec_from_file_location(
                f"spyglass_pack_{folder.name}_{name}", path)
            if spec is None or spec.loader is None:
                raise LanguagePackError(f"{path}: cannot load the argument typing module")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        _LOADED[path] = cast(Typing, module)
    return _LOADED[path]


def fit(t: Typing, args: Types, params: Types | None) -> Fit:
    """How arguments of types `args` fit parameters of types `params` (None: unknown)."""
    if params is None or len(params) != len(args):
        return Fit.MAYBE
    verdicts = [t.assignable(a, p) for a, p in zip(args, params)]
    if False in verdicts:
        return Fit.NO
    if all(a is not None and a == p for a, p in zip(args, params)):
        return Fit.EXACT
    return Fit.FITS if all(v is True for v in verdicts) else Fit.MAYBE


def decide(view: View, t: Typing, r: RefRow, d: DefRow, others: list[DefRow]) -> bool | None:
    """Whether the call `r` calls `d` rather than one of `others` (overloads taking as
    many arguments), by its arguments' types: True when `d` is the one (the only one they
    may be passed to, an exact match, or the most specific of those they surely may be
    passed to), False when it is surely not (they may not be passed to it, or another is
    the one), None when not decided."""
    args = _node_types(view, r.language, r.path, r.line, r.col, r.name, t.argument_types)
    if args is None:
        return None
    if None in args:
        args = _with_results(view, t, r, args)
    mine = fit(t, args, parameters(view, t, d))
    if mine is Fit.NO:
        return False
    if mine is Fit.EXACT:
        return True
    theirs = [fit(t, args, parameters(view, t, o)) for o in others]
    if Fit.EXACT in theirs:
        return False
    if all(f is Fit.NO for f in theirs):
        return True
    if mine is Fit.MAYBE or Fit.MAYBE in theirs:
        return None
    # every applicable one surely applies: the most specific is called (JLS 15.12.2.5)
    applicable = [d, *(o for o, f in zip(others, theirs) if f is Fit.FITS)]
    types = [parameters(view, t, o) for o in applicable]
    best = [i for i, mine_p in enumerate(types) if all(
        j == i or (mine_p is not None and other_p is not None and all(
            t.assignable(a, b) is True for a, b in zip(mine_p, other_p)))
        for j, other_p in enumerate(types))]
    return best[0] == 0 if len(best) == 1 else None


def _with_results(view: View, t: Typing, r: RefRow, args: Types) -> Types:
    """`args` with the untyped arguments that are calls (`f(g(x))`) typed by their
    callee's declared return type, when the index binds the callee for certain and each
    definition it reaches declares that one type (overloads returning another type, or a
    generic method, leave the argument untyped)."""
    if not hasattr(t, "argument_calls") or not hasattr(t, "return_type"):
        return args
    typer = cast(ResultTyping, t)
    node = _name_node(view, r.language, r.path, r.line, r.col, r.name)
    calls = typer.argument_calls(node) if node is not None else None
    if calls is None or len(calls) != len(args):
        return args
    out = list(args)
    for i, (a, callee) in enumerate(zip(args, calls)):
        if a is None and callee is not None:
            out[i] = _result_type(view, typer, r, callee)
    return tuple(out)


def _result_type(view: View, t: ResultTyping, r: RefRow, callee: Node) -> str | None:
    line, col = callee.start_point[0] + 1, callee.start_point[1]
    name = (callee.text or b"").decode("utf-8", "replace")
    here = [c for c in refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE f.path = ? AND "
                                      "r.line = ? AND r.name = ?", (r.path, line, name)))
            if c.col == col]
    if len(here) != 1 or here[0].conf != "exact" or not here[0].target:
        return None
    hits = [h for h in aliases.resolve(view, [here[0].target]).get(here[0].target, [])
            if h.language == r.language]
    types = {cast("str | None", _node_types(view, h.language, h.path, h.name_line,
                                            h.name_col, h.name, t.return_type))
             for h in hits}
    return types.pop() if len(types) == 1 else None


def parameters(view: View, t: Typing, d: DefRow) -> Types | None:
    """The declared parameter types of `d` (None: not read)."""
    return _node_types(view, d.language, d.path, d.name_line, d.name_col, d.name,
                       t.parameter_types)


def _node_types(view: View, language: str, path: str, line: int, col: int, name: str,
                read: object) -> Types | None:
    """What `read` gives of the name node at the position (memoised per view state): a
    tuple of types, or one type (`return_type`)."""
    memo = _memo(view, "argtypes")
    k = (path, line, col, getattr(read, "__name__", ""))
    if k not in memo:
        node = _name_node(view, language, path, line, col, name)
        memo[k] = cast("Types | None", read(node)) if node is not None and callable(read) \
            else None
    return cast("Types | None", memo[k])


def _name_node(view: View, language: str, path: str, line: int, col: int, name: str
               ) -> Node | None:
    """The name at (line, 0-based col) of `path` as the pack's grammar reads the file now;
    None when the file changed there (another text) or cannot be read or parsed."""
    tree = _tree(view, language, path)
    if tree is None:
        return None
    node = tree.root_node.named_descendant_for_point_range((line - 1, col), (line - 1, col))
    if node is None or (node.text or b"").decode("utf-8", "replace") != name:
        return None
    return node


def _tree(view: View, language: str, path: str) -> Tree | None:
    trees = _memo(view, "argtrees")
    if path not in trees:
        if len(trees) >= MEMO_TREES:
            trees.pop(next(iter(trees)))
        pack = pack_named(language)
        try:
            data = client_paths.read(view.root, path, view.config.limits.max_file_bytes)
            trees[path] = parse(pack, prepared(pack, data)) if pack is not None else None
        except (BadInput, LimitExceeded, OverBudget):
            trees[path] = None
    return cast("Tree | None", trees[path])


def _memo(view: View, name: str) -> dict[object, object]:
    memo = view.memo.get(name)
    if memo is None or memo[0] != view.state_key or not isinstance(memo[1], dict):
        memo = (view.state_key, {})
        view.memo[name] = memo
    return cast("dict[object, object]", memo[1])
