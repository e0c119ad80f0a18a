"""Alias tables of a view (wildcard aliases, what its closures share) and target strings
normalised along them: the other way from the closure (query/closure.py)."""

from __future__ import annotations

import bisect
import os.path
import re
import weakref
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import Key, chunks, defs_by_full, marks
from spyglass.query.view import View

MAX_DEPTH = 16  # alias hops along one chain (a re-export chain through 16 modules)
MAX_NORMALISE = 32  # names visited while normalising one target (best first)

Rule = tuple[str, str]  # (alias, target) of one alias row: wildcard rows without their "*"


@dataclass(frozen=True, slots=True)
class Closure:
    """Target strings meaning some definitions (`names`: string → the definitions it means),
    the probes that find the names a self-extending alias opens, and what the bounds cut."""

    names: Mapping[str, tuple[DefRow, ...]]
    probes: tuple[tuple[str, str], ...] = ()  # (prefix, suffix) of the targets to read
    limitations: tuple[str, ...] = ()
    label: str = ""  # what the closure is of, for notes

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


@dataclass(frozen=True, slots=True)
class Wildcards:
    """The view's wildcard aliases, by target prefix (forward) and by alias prefix (back)."""

    by_target: Mapping[str, tuple[str, ...]]
    by_alias: Mapping[str, tuple[str, ...]]


@dataclass
class Memo:
    """What one view state's closures share: its wildcard aliases, normalising steps, and
    the closures of the most recent definition sets."""

    wildcards: Wildcards | None = None
    steps: dict[str, frozenset[str]] = field(default_factory=dict)
    modules: dict[str, bool] = field(default_factory=dict)  # name → is a module
    closures: dict[tuple[bool, frozenset[Key], int, int, int], Closure] = field(
        default_factory=dict)
    sites: dict[tuple[object, ...], tuple[tuple[tuple[RefRow, str], ...], tuple[str, ...]]] = \
        field(default_factory=dict)  # _site_rows by closure names, probes, label and limit
    shared: dict[tuple[object, ...], Closure] = field(
        default_factory=dict)  # closures of one seed name, whichever definitions it means


CACHED = 64  # closures kept per view state
MAX_STEPS_KEPT = 100_000  # normalising steps kept per view state
_MEMO: weakref.WeakKeyDictionary[View, tuple[object, Memo]] = weakref.WeakKeyDictionary()


def _state(view: View) -> object:
    return (view.snapshot.id if view.snapshot else None, view.changes.digest())


def view_memo(view: View) -> Memo:
    cached = _MEMO.get(view)
    state = _state(view)
    if cached is None or cached[0] != state:
        cached = (state, Memo())
        _MEMO[view] = cached
    return cached[1]


EAGER_WILDCARD_FILES = 5_000  # views of more files look wildcard aliases up one by one


class Lookup(Mapping[str, tuple[str, ...]]):
    """Wildcard aliases by one end's prefix, each looked up in SQL when first asked for
    (an indexed equality: a large repository's hundreds of thousands are never all read)."""

    def __init__(self, view: View, column: str) -> None:
        self.view = view
        self.column = column  # "target": forward (target prefix → aliases); "alias": back
        self.other = "alias" if column == "target" else "target"
        self.cache: dict[str, tuple[str, ...]] = {}

    def __getitem__(self, key: str) -> tuple[str, ...]:
        if key not in self.cache:
            self.prime((key,))
        if not self.cache[key]:
            raise KeyError(key)
        return self.cache[key]

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        """As Mapping.get, without raising a KeyError for every prefix that has no alias
        (most of the hundred thousand a large closure asks for)."""
        if key not in self.cache:
            self.prime((key,))
        return self.cache[key] or default

    def prime(self, keys: Iterable[str]) -> None:
        """Look up the prefixes among `keys` not asked for yet, in one query per chunk
        (a closure's frontier asks for thousands: one query each was most of its time)."""
        todo = [k for k in dict.fromkeys(keys) if k not in self.cache]
        found: dict[str, set[str]] = {k: set() for k in todo}
        for chunk in chunks([k + "*" for k in todo if k.endswith(("#", "."))]):
            for k, v in self.view.each(
                    f"SELECT DISTINCT a.{self.column}, a.{self.other} FROM {{aliases}} a JOIN "
                    f"temp.vfiles f ON f.unit = a.unit WHERE a.{self.column} IN "
                    f"({marks(chunk)})", tuple(chunk)):
                key, text = str(k)[:-1], str(v)
                if text.endswith("*") and text[:-1] != key:
                    other = text[:-1]
                    alias = other if self.column == "target" else key
                    if alias.endswith(("#", ".")):
                        found[key].add(other)
        self.cache.update((k, tuple(sorted(v))) for k, v in found.items())

    def __iter__(self) -> Iterator[str]:
        return iter(k for k, v in self.cache.items() if v)

    def __len__(self) -> int:
        return sum(1 for v in self.cache.values() if v)


def wildcards(view: View) -> Wildcards:
    """Wildcard aliases (``a.*`` → ``t.*``) of the view, read once per view state (all at
    once for a small view, one prefix at a time for a large one)."""
    memo = view_memo(view)
    if memo.wildcards is not None:
        return memo.wildcards
    files = view.conn.execute("SELECT COUNT(*) FROM temp.vfiles").fetchone()[0]
    if files > EAGER_WILDCARD_FILES:
        memo.wildcards = Wildcards(Lookup(view, "target"), Lookup(view, "alias"))
        return memo.wildcards
    fwd: dict[str, list[str]] = {}
    back: dict[str, list[str]] = {}
    for a, t in view.each("SELECT DISTINCT a.alias, a.target FROM {aliases} a JOIN temp.vfiles "
                          "f ON f.unit = a.unit WHERE a.target LIKE '%*'"):
        alias, target = str(a)[:-1], str(t)[:-1]
        if alias.endswith(("#", ".")) and alias != target:
            fwd.setdefault(target, []).append(alias)
            back.setdefault(alias, []).append(target)
    memo.wildcards = Wildcards({k: tuple(sorted(set(v))) for k, v in fwd.items()},
                               {k: tuple(sorted(set(v))) for k, v in back.items()})
    return memo.wildcards


_SEPARATOR = re.compile(r"[.#]")
_DOT = re.compile(r"\.")


def cut_points(name: str) -> list[int]:
    """Positions of the separators a wildcard prefix may end at (``#`` and ``.`` after it)."""
    return [m.start() for m in _SEPARATOR.finditer(name, max(name.find("#"), 0))]


def dotted_prefixes(name: str) -> list[str]:
    """`name` and its dotted prefixes after the module part: the keys exact aliases rename."""
    return [name] + [name[:m.start()] for m in _DOT.finditer(name, name.find("#") + 1)]


def through_wildcards(view: View, name: str) -> list[str]:
    """`name` with one wildcard alias followed from alias to target at a cut after its
    module part (``m#obj.f`` → ``m#Type.f`` for the instance alias ``m#obj.*`` → ``m#Type.*``)."""
    wild = wildcards(view).by_alias
    start = name.find("#")
    return [t + name[i + 1:] for i in range(start + 1, len(name)) if name[i] == "."
            for t in wild.get(name[:i + 1], ())]


def one_step(view: View, current: set[str]) -> dict[str, frozenset[str]]:
    """One normalising step for each name: aliases followed from alias to target, exact ones
    on the name or a dotted prefix, wildcard ones at any cut (kept per view state)."""
    known = view_memo(view).steps
    todo = {n for n in current if n not in known}
    if len(known) + len(todo) > MAX_STEPS_KEPT:
        known.clear()
    if todo:
        known.update((n, frozenset(s)) for n, s in _step(view, todo).items())
    return {n: known[n] for n in current}


def _step(view: View, current: set[str]) -> dict[str, set[str]]:
    wild = wildcards(view)
    out: dict[str, set[str]] = {n: set() for n in current}
    prefixes: dict[str, list[str]] = {}
    for n in current:
        for k in dotted_prefixes(n):
            prefixes.setdefault(k, []).append(n)
        for i in cut_points(n):
            for prefix in wild.by_alias.get(n[:i + 1], ()):
                out[n].add(prefix + n[i + 1:])
    for chunk in chunks(sorted(prefixes)):
        for a, t in view.each("SELECT DISTINCT a.alias, a.target FROM {aliases} a JOIN "
                              "temp.vfiles f ON f.unit = a.unit WHERE a.alias IN "
                              f"({marks(chunk)})", tuple(chunk)):
            alias, target = str(a), str(t)
            if target.endswith("*"):
                continue
            for n in prefixes[alias]:
                out[n].add(target + n[len(alias):])
    return out


def normalise(view: View, targets: set[str], goal: set[str]) -> dict[str, str]:
    """For each target that aliases followed from alias to target lead to a name of
    `goal`, that name: breadth first, at most MAX_NORMALISE names visited per target, those
    sharing the longest prefix with a name of `goal` first (a package's wildcard
    re-exports offer many ways, most of them dead ends)."""
    found: dict[str, str] = {t: t for t in targets if t in goal}
    states = {t: {t} for t in targets if t not in found}  # target → names visited
    frontier = {t: {t} for t in states}
    ordered: list[str] = []  # `goal` sorted, when a rank is first needed
    ranks: dict[str, tuple[int, int, str]] = {}

    def rank(name: str) -> tuple[int, int, str]:
        """Longest prefix shared with a name of `goal` first (in a sorted list, the longest
        is shared with a neighbour of the name's place), then shorter names."""
        if not ordered:
            ordered.extend(sorted(goal))
        if name not in ranks:
            at = bisect.bisect_left(ordered, name)
            near = ordered[max(at - 1, 0):at + 1]
            ranks[name] = (-max((len(os.path.commonprefix([name, g])) for g in near),
                                default=0), len(name), name)
        return ranks[name]

    for _ in range(2 * MAX_DEPTH):
        if not frontier:
            break
        steps = one_step(view, set().union(*frontier.values()))
        nxt: dict[str, set[str]] = {}
        for t, current in frontier.items():
            new = {s for c in current for s in steps.get(c, ()) if s not in states[t]}
            room = max(MAX_NORMALISE - len(states[t]), 0)
            if len(new) > room:
                new = set(sorted(new, key=rank)[:room])
            hit = sorted(new & goal)
            if hit:
                found[t] = hit[0]
            elif new:
                states[t] |= new
                nxt[t] = new
        frontier = nxt
    return found


def resolve(view: View, targets: Iterable[str]) -> dict[str, list[DefRow]]:
    """Reference targets → the definitions they mean: the target's own definitions, else
    those of the nearest names aliases (followed from alias to target) lead to (at most
    MAX_NORMALISE names visited per target, shorter ones first: wildcard re-exports of a
    package offer many ways, most of them dead ends and longer)."""
    wanted = set(targets)
    out: dict[str, list[DefRow]] = {}
    for d in defs_by_full(view, wanted):
        out.setdefault(d.full, []).append(d)
    states = {t: {t} for t in wanted if t not in out}
    frontier = {t: {t} for t in states}
    for _ in range(2 * MAX_DEPTH):
        if not frontier:
            break
        steps = one_step(view, set().union(*frontier.values()))
        new_of = {t: {s for c in cur for s in steps.get(c, ()) if s not in states[t]}
                  for t, cur in frontier.items()}
        new_of = {t: set(sorted(n, key=lambda x: (len(x), x))[
            :max(MAX_NORMALISE - len(states[t]), 0)]) for t, n in new_of.items() if n}
        by_full: dict[str, list[DefRow]] = {}
        for d in defs_by_full(view, set().union(*new_of.values()) if new_of else ()):
            by_full.setdefault(d.full, []).append(d)
        frontier = {}
        for t, new in new_of.items():
            hits = [d for n in sorted(new) for d in by_full.get(n, ())]
            if hits:
                out[t] = hits
            else:
                states[t] |= new
                frontier[t] = new
    return out
