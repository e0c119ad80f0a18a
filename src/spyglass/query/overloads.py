"""Overloads told apart by argument counts: a call is a use of the overloads whose
parameter count admits its arguments (docs/languages.md, "Overloads")."""

from __future__ import annotations

from collections.abc import Callable

from spyglass.query import argtypes
from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import defs_by_full
from spyglass.query.symbols import manifest_value
from spyglass.query.view import View
from spyglass.syntax.arity import UNKNOWN, admits

DROP = "drop"  # the call's argument count rules the definition out
Rule = Callable[[RefRow], str | None]


def _admits(d: DefRow, count: int) -> bool:
    return admits(d.params_min, d.params_max, count)


def _apart(d: DefRow) -> bool:
    """Whether `d`'s pack says default arguments may be written on a separate declaration
    (manifest `[arity] defaults_apart`: C++'s prototype in a header), so that a definition's
    own list can ask for more arguments than a call must pass."""
    table = manifest_value(d.language, "arity")
    return isinstance(table, dict) and table.get("defaults_apart") is True


def _too_few_kept(d: DefRow, count: int, others: list[DefRow]) -> bool:
    """A call passing fewer arguments than `d` asks for that may still call it: its pack
    keeps defaults apart and no overload taking another number of parameters admits the
    count (one that does is the call's)."""
    return (count < d.params_min and _apart(d)
            and not any(o.params_max != d.params_max and _admits(o, count) for o in others))


def _defaults_note(d: DefRow, count: int) -> str:
    return (f"{d.name!r} asks for {d.params_min} argument(s), the call passes {count}: "
            "default arguments may be on a declaration elsewhere")


def arity_rule(view: View, d: DefRow) -> Rule | None:
    """What argument counts say of `d`'s call sites, or None when `d`'s parameters are
    not counted (a pack without @parameters). The rule gives DROP for a call whose count
    `d` cannot take, evidence for a call that the count does not decide (another overload
    of the same full name takes as many, the count is unknown: a method reference, or it
    is too few where defaults may be declared apart: `_too_few_kept`), and None for a site
    the count leaves as it is. Where the pack types arguments (manifest `[arity]
    argument_types`), a call the count leaves to several overloads is decided by its
    arguments' types when they tell (query/argtypes.py): DROP, or None for `d`'s."""
    if d.params_min == UNKNOWN:
        return None
    others = [o for o in defs_by_full(view, [d.full])
              if (o.unit, o.idx) != (d.unit, d.idx) and o.params_min != UNKNOWN]
    beside: dict[str, list[DefRow]] = {}

    def overloads_of(target: str | None) -> list[DefRow]:
        """`others`, and the counted definitions of the name a site is bound to when that
        is not `d`'s (a subclass declaring overloads beside the one it inherits, Java's
        `[arity] overrides_by_count`: `sub.exec(a, b)` may be either)."""
        if not target or target == d.full:
            return others
        if target not in beside:
            beside[target] = others + [o for o in defs_by_full(view, [target])
                                       if o.params_min != UNKNOWN and o.name == d.name
                                       and o.language == d.language]
        return beside[target]
    typed = argtypes.typing(d.language)

    def rule(r: RefRow) -> str | None:
        if r.role != "call":
            return None
        mine = overloads_of(r.target)
        if r.args == UNKNOWN:
            return (f"{len(mine) + 1} overloads of {d.name!r}; the call's arguments are "
                    "not counted") if mine else None
        if not _admits(d, r.args):
            return _defaults_note(d, r.args) if _too_few_kept(d, r.args, mine) else DROP
        same = [o for o in mine if _admits(o, r.args)]
        if not same:
            return None
        if typed is not None:  # the arguments' types may decide (query/argtypes.py)
            decided = argtypes.decide(view, typed, r, d, same)
            if decided is not None:
                return None if decided else DROP
        return f"{len(same) + 1} overloads of {d.name!r} take {r.args} argument(s)"
    return rule


def narrowed(keep: Callable[[RefRow], bool], rule: Rule | None) -> Callable[[RefRow], bool]:
    """`keep` less the calls whose argument count `rule` rules out."""
    if rule is None:
        return keep
    return lambda r: keep(r) and rule(r) != DROP


def among(view: View, hits: list[DefRow], r: RefRow) -> list[tuple[DefRow, str]]:
    """The definitions among `hits` (those of the target a call `r` names) that its argument
    count admits, each with the evidence when the count does not decide: each judged by its
    own `arity_rule` (the callers' rule, so callees and callers agree). When the count
    rules every one out, all of them, with that evidence."""
    judged: list[tuple[DefRow, str]] = []
    for h in hits:
        rule = arity_rule(view, h)
        verdict = rule(r) if rule is not None else None
        if verdict != DROP:
            judged.append((h, verdict or ""))
    if judged or not hits:
        return judged
    return [(h, f"no overload of {h.name!r} takes {r.args} argument(s)") for h in hits]
