"""Definition names by word: a per-view index that scores names against free-text queries."""

from __future__ import annotations

import bisect
import re
import weakref
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

    def search(self, query: list[str], limit: int) -> list[tuple[float, str]]:
        """The best `limit` names for the query words, as (score 0..1, name)."""
        if not query:
            return []
        compact = "".join(query)
        hit: dict[int, list[float]] = {}
        for n, q in enumerate(query):
            for i in self.by_word.get(q, ()):
                hit.setdefault(i, [0.0] * len(query))[n] = 1.0
            for w in self._partial(q):
                for i in self.by_word[w]:
                    slots = hit.setdefault(i, [0.0] * len(query))
                    slots[n] = max(slots[n], PARTIAL)
        scores: dict[int, float] = {}
        for i, slots in hit.items():
            used = sum(1 for s in slots if s)
            scores[i] = min(0.95, 0.75 * sum(slots) / len(query)
                            + 0.25 * used / max(self.sizes[i], 1))
        for i in self.lowered.get(compact, ()):
            scores[i] = 1.0
        if not scores and len(compact) >= 4:
            scores = {i: 0.3 for i, name in enumerate(self.names) if compact in name.lower()}
        best = sorted(scores.items(), key=lambda kv: (-kv[1], len(self.names[kv[0]])))
        return [(round(s, 4), self.names[i]) for i, s in best[:limit]]


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
    users: dict[str, list[tuple[int, int]]]  # name → (unit, scope) of definitions using it


_USERS: weakref.WeakKeyDictionary[View, tuple[object, UsedNames]] = weakref.WeakKeyDictionary()


def used_names(view: View) -> UsedNames:
    """The names the view's code uses inside definitions (references): what a definition's
    body is about, beside its own name. One read of the references, kept while the view is
    unchanged."""
    state = (view.snapshot.id if view.snapshot else None, view.changes.digest())
    cached = _USERS.get(view)
    if cached is not None and cached[0] == state:
        return cached[1]
    users: dict[str, list[tuple[int, int]]] = {}
    for name, unit, scope in view.each(
            "SELECT DISTINCT r.name, r.unit, r.scope FROM {refs} r JOIN temp.vfiles f "
            "ON f.unit = r.unit WHERE r.scope >= 0"):
        per = users.setdefault(str(name), [])
        if len(per) < MAX_USERS_PER_NAME:
            per.append((int(str(unit)), int(str(scope))))
    found = UsedNames(NameIndex.build(sorted(users)), users)
    _USERS[view] = (state, found)
    return found
