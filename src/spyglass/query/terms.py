"""Files by the words of a free-text question: a BM25 term score over each file's words
(identifiers split, comments, strings) and path words, with light stemming, fused with the
files' unnormalised term mass as far as the question's words are vague (explore;
docs/explore.md)."""

from __future__ import annotations

import bisect
import functools
import math
from collections import Counter
from dataclasses import dataclass, field

K1 = 1.2  # BM25 term-frequency saturation
B = 0.3  # BM25 length normalisation (small: a big file is more often the one to change)
PATH_TF = 4.0  # a query word among a file's path words counts as this many occurrences
PARTIAL = 0.4  # a word of the file that starts with (or contains) the query word
# A vague question (its words in most files) says little about where to look; the files
# holding the most of its words are then the best bet. Their term mass (scaled to 1) joins
# the BM25 score with this weight times the question's vagueness (0..1).
MASS_WEIGHT = 4.0
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


@dataclass
class FileTerms:
    """Stemmed word counts per file (stem → path → occurrences), file lengths in words and
    the stems of each file's path words."""

    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    lengths: dict[str, int] = field(default_factory=dict)
    path_stems: dict[str, frozenset[str]] = field(default_factory=dict)
    _sorted: list[str] = field(default_factory=list)

    def add(self, path: str, words: list[str], path_words: list[str]) -> None:
        """Count one file's words (already split like identifiers)."""
        for w, c in Counter(words).items():
            if len(w) > 1 and not w.isdigit():
                per = self.counts.setdefault(stem(w), {})
                per[path] = per.get(path, 0) + c
        self.lengths[path] = len(words)
        self.path_stems[path] = frozenset(stem(w) for w in path_words if len(w) > 1)
        self._sorted = []

    def _vocabulary(self) -> list[str]:
        if not self._sorted:
            self._sorted = sorted(self.counts)
        return self._sorted

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
        return sorted(out, key=lambda v: (-len(self.counts[v]), v))[:MAX_PARTIAL]

    def _tf(self, s: str) -> dict[str, float]:
        """Occurrences of stem `s` per file: the stem itself, PARTIAL for each related word,
        PATH_TF when it is among the file's path words."""
        tf: dict[str, float] = {p: float(c) for p, c in self.counts.get(s, {}).items()}
        for r in self.related(s):
            for p, c in self.counts[r].items():
                tf[p] = tf.get(p, 0.0) + PARTIAL * c
        for p, stems in self.path_stems.items():
            if s in stems and PATH_TF > 0:
                tf[p] = tf.get(p, 0.0) + PATH_TF
        return tf

    def _weighted(self, query: list[str]) -> list[tuple[float, dict[str, float]]]:
        """Each distinct stem of the query found in any file: (idf, occurrences per file)."""
        n = len(self.lengths)
        out: list[tuple[float, dict[str, float]]] = []
        for s in dict.fromkeys(stem(w) for w in query):
            tf = self._tf(s)
            if tf:
                out.append((_idf(n, len(tf)), tf))
        return out

    def scores(self, query: list[str]) -> dict[str, float]:
        """BM25 of every file with any query word: each distinct stem once, weighted by how
        few files have it; a related word (a longer word holding the query word) counts
        PARTIAL; a query word in the file's path counts PATH_TF occurrences."""
        return self._bm25(self._weighted(query))

    def _bm25(self, weighted: list[tuple[float, dict[str, float]]]) -> dict[str, float]:
        n = len(self.lengths)
        if not n:
            return {}
        avg = (sum(self.lengths.values()) / n) or 1.0
        out: dict[str, float] = {}
        for idf, tf in weighted:
            for p, f in tf.items():
                norm = K1 * (1 - B + B * self.lengths.get(p, 0) / avg)
                out[p] = out.get(p, 0.0) + idf * f * (K1 + 1) / (f + norm)
        return out

    def mass(self, query: list[str]) -> dict[str, float]:
        """Each file's term mass: its occurrences of the query's stems weighted by idf, with
        no saturation and no length normalisation (the more of the words, the higher)."""
        return _mass(self._weighted(query))

    def vagueness(self, query: list[str]) -> float:
        """How little the query's words single out files: 1 − their mean idf as a share of
        the idf of a word in one file (0: every word in one file; near 1: in every file).
        Words in no file are left out; 0 when none is found."""
        return self._vagueness(self._weighted(query))

    def _vagueness(self, weighted: list[tuple[float, dict[str, float]]]) -> float:
        n = len(self.lengths)
        if not weighted or n < 2:
            return 0.0
        top = _idf(n, 1)
        return 1.0 - sum(min(1.0, idf / top) for idf, _ in weighted) / len(weighted)

    def normalised(self, query: list[str]) -> dict[str, float]:
        """`scores` scaled so the best file has 1, fused with the term mass (scaled so the
        heaviest file has 1) by MASS_WEIGHT × the query's vagueness, scaled to 1 again."""
        weighted = self._weighted(query)
        fused = _scaled(self._bm25(weighted))
        w = MASS_WEIGHT * self._vagueness(weighted)
        if w > 0:
            for p, m in _scaled(_mass(weighted)).items():
                fused[p] = fused.get(p, 0.0) + w * m
        return _scaled(fused)


def _idf(n: int, df: int) -> float:
    """BM25's idf of a stem found in `df` of `n` files."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def _mass(weighted: list[tuple[float, dict[str, float]]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for idf, tf in weighted:
        for p, f in tf.items():
            out[p] = out.get(p, 0.0) + idf * f
    return out


def _scaled(raw: dict[str, float]) -> dict[str, float]:
    top = max(raw.values(), default=0.0) or 1.0
    return {p: v / top for p, v in raw.items()}
