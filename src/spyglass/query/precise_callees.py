"""Callees decided by precise facts (docs/precise.md): where the caller's file has fresh
SCIP facts, the calls in its own body are the occurrences followed by a call, each resolved to the
symbol's definition. The index's
callees those facts hold become certain, those whose call lines the facts resolve to
other symbols only are dropped (counted), and callees only the facts know are added."""

from __future__ import annotations

from dataclasses import dataclass

from spyglass.index import scip
from spyglass.query import symbols as sym
from spyglass.query.answer import Answer
from spyglass.query.closure import MEMBER_KINDS, VALUE_CALLABLE
from spyglass.query.precise_answer import Freshness, facts_of, is_call, target_symbols
from spyglass.query.results import DefRow


@dataclass(frozen=True, slots=True)
class Calls:
    """The facts' calls made in one caller's own body: symbol -> 1-based lines, and per
    line every name the facts resolved there (for refutation: a method reference `s::m`
    is not followed by a call, yet names the overload it resolves)."""

    tool: str
    by_symbol: dict[str, list[int]]
    on_line: dict[int, set[tuple[str, str]]]  # 1-based line -> (name, symbol) used there


def calls_in(ans: Answer, precise: scip.ScipIndex, caller: DefRow) -> Calls | None:
    """The facts' calls in `caller`'s own scope (not in definitions nested in it), or None
    when its file has no fresh facts."""
    fresh = Freshness(ans.root, ans.config, precise)
    doc = precise.documents.get(caller.path)
    if doc is None or not fresh(caller.path):
        return None
    view = ans.view()
    nested = [(d.start_line, d.end_line) for d in sym.defs_in_file(view, caller.path)
              if d.kind in VALUE_CALLABLE | {"class"} and caller.start_line <= d.start_line
              and d.end_line <= caller.end_line and (d.start_line, d.end_line) != (
                  caller.start_line, caller.end_line)]
    by_symbol: dict[str, list[int]] = {}
    on_line: dict[int, set[tuple[str, str]]] = {}
    for o in doc[1]:
        line = o.line + 1
        if o.definition or not caller.start_line <= line <= caller.end_line:
            continue
        if any(a <= line <= b for a, b in nested):
            continue
        text = fresh.line(caller.path, o.line)
        on_line.setdefault(line, set()).add((text[o.col:o.end_col], o.symbol))
        if is_call(text, o.end_col):
            by_symbol.setdefault(o.symbol, []).append(line)
    return Calls(precise.tools.get(caller.path, precise.tool), by_symbol, on_line)


def definition(ans: Answer, precise: scip.ScipIndex, symbol: str) -> DefRow | None:
    """The index's definition the facts define `symbol` at (a fresh file), or None."""
    facts = facts_of(precise)
    fresh = Freshness(ans.root, ans.config, precise)
    for path, o in facts.by_symbol.get(symbol, ()):
        if not o.definition or not fresh(path):
            continue
        for d in sym.defs_in_file(ans.view(), path):
            if d.name_line == o.line + 1 and d.name_col == o.col:
                return d
    return None


def symbol_of(ans: Answer, precise: scip.ScipIndex, d: DefRow) -> str | None:
    return target_symbols(precise, Freshness(ans.root, ans.config, precise), d)


def refuted(calls: Calls, d: DefRow, symbol: str, lines: list[int]) -> bool:
    """Whether on every call line the facts resolve the name `d` has to other symbols only
    (a constructor reached by calling its class is not refuted: the class's name is
    called there, not the constructor's)."""
    for line in lines:
        named = {s for n, s in calls.on_line.get(line, ()) if n == d.name and s != scip.LOCAL}
        if not named or symbol in named:
            return False
    return bool(lines)


def callable_target(d: DefRow) -> bool:
    """A definition a call can name: a function, a method, or a class (its constructor)."""
    return d.kind in VALUE_CALLABLE | MEMBER_KINDS | {"class", "struct"}
