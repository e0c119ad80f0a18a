"""Files by the words of a free-text question: a BM25 term score over each file's words
(identifiers split, comments, strings) and path words, with light stemming (explore;
docs/explore.md)."""

from __future__ import annotations

import bisect
import functools
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from spyglass.query.names import words as split_words

K1 = 1.2  # BM25 term-frequency saturation
B = 0.3  # BM25 length normalisation (small: a big file is more often the one to change)
PATH_TF = 4.0  # a query word among a file's path words counts as this many occurrences
# A query word among the words of the file's own name (`reporter` in default_reporter.go)
# adds this many times the word's idf, beside the saturated count of the body: a field of
# its own (as in BM25F), so a common word the file is named after still singles it out.
NAME_WEIGHT = 1.0
PARTIAL = 0.4  # a word of the file that starts with (or contains) the query word
MIN_PARTIAL = 4  # query words shorter than this match whole words only
MAX_PARTIAL = 40  # words of the vocabulary taken per partial match
# Suffixes taken off, longest first, when at least three letters stay (render, renders,
# rendered, rendering → render; route, routes, routing → rout; router is matched as a
# longer word holding rout, see FileTerms.related).
SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "s", "ly", "e")


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light stem: one common English suffix off (and a doubled last consonant undone:
    running → run), so the forms of a word compare equal; short words unchanged."""
    w = word.lower()
    if len(w) <= 3:
        return w
    for suffix in SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            if suffix in ("s", "es") and w.endswith(("ss", "us", "is")):
                continue
            base = w[: -len(suffix)]
            if suffix in ("ies", "ied"):
                base += "y"
            elif suffix in ("ing", "ed", "ings") and len(base) > 3 and \
                    base[-1] == base[-2] and base[-1] not in "aeiouls":
                base = base[:-1]
            return base.rstrip("e") if len(base) > 3 else base
    return w


class StoredTerms(Protocol):
    """Word counts kept elsewhere (the store, query/wordstore.py) for files not counted in
    this process."""

    def terms(self, stems: list[str]) -> dict[str, dict[str, int]]: ...
    def vocabulary(self) -> list[str]: ...


def count_stems(words: list[str]) -> dict[str, int]:
    """A file's words (split like identifiers) counted by stem; one letter and bare numbers
    left out."""
    out: dict[str, int] = {}
    for w, c in Counter(words).items():
        if len(w) > 1 and not w.isdigit():
            s = stem(w)
            out[s] = out.get(s, 0) + c
    return out


@dataclass
class FileTerms:
    """Stemmed word counts per file (stem → path → occurrences), file lengths in words and
    the stems of each file's path words. The counts of files added with `add_stored` are
    read from `stored` per stem, when a question needs them."""

    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    lengths: dict[str, int] = field(default_factory=dict)
    path_stems: dict[str, frozenset[str]] = field(default_factory=dict)
    name_stems: dict[str, frozenset[str]] = field(default_factory=dict)
    stored: StoredTerms | None = None
    _sorted: list[str] = field(default_factory=list)
    _merged: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, path: str, words: list[str], path_words: list[str]) -> None:
        """Count one file's words (already split like identifiers)."""
        self.add_counted(path, count_stems(words), len(words), path_words)

    def add_counted(self, path: str, stems: dict[str, int], length: int,
                    path_words: list[str]) -> None:
        """One file's words as `count_stems` gives them, and its length in words."""
        for s, c in stems.items():
            per = self.counts.setdefault(s, {})
            per[path] = per.get(path, 0) + c
        self.add_stored(path, length, path_words)

    def add_stored(self, path: str, length: int, path_words: list[str]) -> None:
        """A file whose counts `stored` holds: its length in words and its path."""
        self.lengths[path] = length
        self.path_stems[path] = frozenset(stem(w) for w in path_words if len(w) > 1)
        name = path.rsplit("/", 1)[-1].split(".", 1)[0]
        self.name_stems[path] = frozenset(stem(w) for w in split_words(name) if len(w) > 1)
        self._sorted = []
        self._merged = {}

    def _vocabulary(self) -> list[str]:
        if not self._sorted:
            if self.stored is None:
                self._sorted = sorted(self.counts)
            else:
                self._sorted = sorted(set(self.stored.vocabulary()).union(self.counts))
        return self._sorted

    def _fetch(self, stems: list[str]) -> None:
        """Read the counts of `stems` not read yet: this process's and the store's."""
        wanted = [s for s in dict.fromkeys(stems) if s not in self._merged]
        got = self.stored.terms(wanted) if self.stored is not None and wanted else {}
        for s in wanted:
            per = dict(got.get(s, {}))
            for p, c in self.counts.get(s, {}).items():
                per[p] = per.get(p, 0) + c
            self._merged[s] = per

    def postings(self, s: str) -> dict[str, int]:
        """path → occurrences of the stem `s`."""
        if self.stored is None:
            return self.counts.get(s, {})
        self._fetch([s])
        return self._merged[s]

    def related(self, s: str) -> list[str]:
        """Stems of the vocabulary that start with `s` or contain it (`route` in `subrouter`),
        `s` itself excluded; at most MAX_PARTIAL, the most frequent first."""
        if len(s) < MIN_PARTIAL:
            return []
        vocab = self._vocabulary()
        out: set[str] = set()
        i = bisect.bisect_left(vocab, s)
        while i < len(vocab) and vocab[i].startswith(s):
            out.add(vocab[i])
            i += 1
        out.update(v for v in vocab if len(v) > len(s) + 1 and s in v)
        out.discard(s)
        if self.stored is not None:
            self._fetch(sorted(out))
        found = [v for v in out if self.postings(v)]  # (a stored stem of no file here: none)
        return sorted(found, key=lambda v: (-len(self.postings(v)), v))[:MAX_PARTIAL]

    def scores(self, query: list[str]) -> dict[str, float]:
        """BM25 of every file with any query word: each distinct stem once, weighted by how
        few files have it; a related word (a longer word holding the query word) counts
        PARTIAL; a query word in the file's path counts PATH_TF occurrences, and in the
        file's own name adds NAME_WEIGHT × its idf."""
        n = len(self.lengths)
        if not n:
            return {}
        avg = (sum(self.lengths.values()) / n) or 1.0
        out: dict[str, float] = {}
        for s in dict.fromkeys(stem(w) for w in query):
            tf: dict[str, float] = {p: float(c) for p, c in self.postings(s).items()}
            for r in self.related(s):
                for p, c in self.postings(r).items():
                    tf[p] = tf.get(p, 0.0) + PARTIAL * c
            for p, stems in self.path_stems.items():
                if s in stems and PATH_TF > 0:
                    tf[p] = tf.get(p, 0.0) + PATH_TF
            if not tf:
                continue
            idf = bm25_idf(n, len(tf))
            for p, f in tf.items():
                norm = K1 * (1 - B + B * self.lengths.get(p, 0) / avg)
                named = NAME_WEIGHT if s in self.name_stems.get(p, ()) else 0.0
                out[p] = out.get(p, 0.0) + idf * (f * (K1 + 1) / (f + norm) + named)
        return out

    def vagueness(self, query: list[str]) -> float:
        """How little the query's words single out files: 1 − the mean idf of its stems (of
        those in any file) as a share of the idf of a stem in one file. 0: every word is in
        one file; near 1: every word is in every file; 0 when no word is found."""
        n = len(self.lengths)
        if n < 2:
            return 0.0
        top = bm25_idf(n, 1)
        found = [len(self.postings(s)) for s in dict.fromkeys(stem(w) for w in query)
                 if self.postings(s)]
        if not found:
            return 0.0
        return 1.0 - sum(min(1.0, bm25_idf(n, df) / top) for df in found) / len(found)

    def normalised(self, query: list[str]) -> dict[str, float]:
        """`scores` scaled so the best file has 1."""
        raw = self.scores(query)
        top = max(raw.values(), default=0.0) or 1.0
        return {p: v / top for p, v in raw.items()}


def bm25_idf(n: int, df: int) -> float:
    """BM25's idf of a stem found in `df` of `n` files."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))
