"""Definition names by word: a per-view index that scores names against free-text queries."""

from __future__ import annotations

import bisect
import re
import weakref
from collections.abc import Iterable
from dataclasses import dataclass

from spyglass.query.view import View

TOKEN = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
PARTIAL = 0.6  # a query word that is a prefix of a name's word, or the other way round


def words(text: str) -> list[str]:
    """``getDebugFlag`` / ``get_debug_flag`` → ``["get", "debug", "flag"]``."""
    return [t.lower() for t in TOKEN.findall(text)]


@dataclass
class NameIndex:
    """Distinct definition names of a view, by lower-cased word."""

    names: list[str]
    sizes: list[int]  # words per name
    lowered: dict[str, list[int]]  # whole name, lower case → name ids
    by_word: dict[str, list[int]]
    sorted_words: list[str]

    @classmethod
    def build(cls, names: list[str]) -> NameIndex:
        by_word: dict[str, list[int]] = {}
        lowered: dict[str, list[int]] = {}
        sizes: list[int] = []
        for i, name in enumerate(names):
            parts = set(words(name))
            sizes.append(len(parts))
            lowered.setdefault(name.lower(), []).append(i)
            for w in parts:
                by_word.setdefault(w, []).append(i)
        return cls(names, sizes, lowered, by_word, sorted(by_word))

    def _partial(self, q: str) -> set[str]:
        """Words of the index that start with `q`, or that `q` starts with (3+ letters)."""
        out: set[str] = set()
        if len(q) < 3:
            return out
        i = bisect.bisect_left(self.sorted_words, q)
        while i < len(self.sorted_words) and self.sorted_words[i].startswith(q):
            out.add(self.sorted_words[i])
            i += 1
        out.update(q[:k] for k in range(3, len(q)) if q[:k] in self.by_word)
        out.discard(q)
        return out

    def matching(self, query: list[str]) -> set[str]:
        """The names any query word matches (a word, a prefix either way), or that the whole
        query spells."""
        hit: set[int] = set(self.lowered.get("".join(query), ()))
        for q in query:
            hit.update(self.by_word.get(q, ()))
            for w in self._partial(q):
                hit.update(self.by_word[w])
        return {self.names[i] for i in hit}

    def containing(self, compact: str) -> set[str]:
        """The names holding `compact` (lower case) anywhere."""
        return {name for name in self.names if compact in name.lower()}

    def search(self, query: list[str], limit: int) -> list[tuple[float, str]]:
        """The best `limit` names for the query words, as (score 0..1, name); when no word
        matches, the names holding the whole query (4+ letters), at 0.3."""
        if not query:
            return []
        compact = "".join(query)
        found = self.matching(query)
        if not found and len(compact) >= 4:
            found = self.containing(compact)
        return ranked(query, found, limit)


class Scorer:
    """How well names match one query's words (0: not at all): each query word found among
    a name's words counts 1, as a prefix either way (3+ letters) PARTIAL; the share of the
    name's words used adds a little; the whole name spelled by the query is 1.0; a name
    matched by none of that but holding the whole query as a substring, 0.3 (the caller
    decides when that fallback applies). A word's match is worked out once per query."""

    def __init__(self, query: list[str]) -> None:
        self.query = query
        self.compact = "".join(query)
        self.none = (0.0,) * len(query)
        self.memo: dict[str, tuple[float, ...]] = {}

    def word(self, w: str) -> tuple[float, ...]:
        """What one word of a name gives each query word."""
        found = self.memo.get(w)
        if found is None:
            found = tuple(1.0 if w == q else PARTIAL if len(q) >= 3 and (
                w.startswith(q) or (len(w) >= 3 and q.startswith(w))) else 0.0
                for q in self.query)
            self.memo[w] = found
        return found

    def __call__(self, name: str) -> float:
        lowered = name.lower()
        if lowered == self.compact:
            return 1.0
        parts = set(words(name))
        slots: list[float] = [max(col) for col in zip(self.none, *map(self.word, parts))]
        used = sum(1 for v in slots if v)
        if used:
            return min(0.95, 0.75 * sum(slots) / len(self.query)
                       + 0.25 * used / max(len(parts), 1))
        return 0.3 if len(self.compact) >= 4 and self.compact in lowered else 0.0


def score(query: list[str], name: str) -> float:
    """One name's match of the query words (Scorer)."""
    return Scorer(query)(name)


def rank_key(x: tuple[float, str]) -> tuple[float, int, str]:
    """The order of scored names: best first, then the shorter, then by name."""
    return (-x[0], len(x[1]), x[1])


def ordered(query: list[str], names: Iterable[str]) -> list[tuple[float, str]]:
    """The names that match at all, as (score, name) in rank_key order (scores unrounded)."""
    scorer = Scorer(query)
    return sorted(((s, n) for n in names if (s := scorer(n)) > 0), key=rank_key)


def ranked(query: list[str], names: set[str], limit: int) -> list[tuple[float, str]]:
    """The best `limit` of `names` by score, then the shorter, then by name."""
    return [(round(s, 4), n) for s, n in ordered(query, names)[:limit]]


_INDEX: weakref.WeakKeyDictionary[View, tuple[object, NameIndex]] = weakref.WeakKeyDictionary()


def _cached(cache: weakref.WeakKeyDictionary[View, tuple[object, NameIndex]], view: View,
            sql: str) -> NameIndex:
    state = (view.snapshot.id if view.snapshot else None, view.changes.digest())
    cached = cache.get(view)
    if cached is not None and cached[0] == state:
        return cached[1]
    index = NameIndex.build(sorted({str(n) for (n,) in view.each(sql)}))
    cache[view] = (state, index)
    return index


def name_index(view: View) -> NameIndex:
    """The view's name index, built on first use and kept while the view is unchanged."""
    return _cached(_INDEX, view, "SELECT DISTINCT d.name FROM {defs} d JOIN temp.vfiles f "
                   "ON f.unit = d.unit")


MAX_USERS_PER_NAME = 200  # definitions kept per used name (a name used more says little)


@dataclass
class UsedNames:
    """The names used inside definitions, by word, and the definitions using each."""

    index: NameIndex
    users: dict[str, list[tuple[int, int]]]  # name → (unit, scope) of its users, the first by both


_USERS: weakref.WeakKeyDictionary[View, tuple[object, UsedNames]] = weakref.WeakKeyDictionary()


def used_names(view: View) -> UsedNames:
    """The names the view's code uses inside definitions (references): what a definition's
    body is about, beside its own name. One read of the references, kept while the view is
    unchanged."""
    state = (view.snapshot.id if view.snapshot else None, view.changes.digest())
    cached = _USERS.get(view)
    if cached is not None and cached[0] == state:
        return cached[1]
    every: dict[str, set[tuple[int, int]]] = {}
    for name, unit, scope in view.each(
            "SELECT DISTINCT r.name, r.unit, r.scope FROM {refs} r JOIN temp.vfiles f "
            "ON f.unit = r.unit WHERE r.scope >= 0"):
        every.setdefault(str(name), set()).add((int(str(unit)), int(str(scope))))
    users = {n: sorted(u)[:MAX_USERS_PER_NAME] for n, u in every.items()}
    found = UsedNames(NameIndex.build(sorted(users)), users)
    _USERS[view] = (state, found)
    return found
