"""Files and definitions by relevance to a free-text question: the definitions' match scores
joined with each file's term score, the words of the commit subjects that changed it and, as
far as the question is vague, how often it changed; a representative definition for a file
found by its words alone (explore; docs/explore.md)."""

from __future__ import annotations

from spyglass.index import confined
from spyglass.query.names import words
from spyglass.query.results import DefRow
from spyglass.query.rows import DEF_COLS, DEF_FROM, Key, chunks, defs, key, marks
from spyglass.query.terms import stem
from spyglass.query.view import View

TERM_WEIGHT = 1.0  # a file's term score (0..1) beside its best definition's match (0..1)
OTHERS = 0.25  # each further matching definition of a file adds this share of its score
FILE_SHARE = 0.8  # a definition's rank: this share from its file's, the rest its own
FILLED = 10  # files represented in the ranking when the terms find them
DECAY = 0.85  # the k-th definition of a file (best first) counts DECAY**k: files interleave
MAX_READ = 1024 * 1024  # bytes of a file read to choose its representative
# A vague question's words are in most files; the files the repository changes most are
# then the better bet. A file's change prior (0..1, query/history.py) adds this share of the
# best file's relevance, times the question's vagueness (0..1, query/terms.py).
PRIOR_WEIGHT = 1.0
# How well the subjects of the commits that changed a file match the question (0..1,
# query/history.py `message_scores`: document expansion) adds this share of the best
# file's relevance, whatever the question's vagueness.
HISTORY_WEIGHT = 0.5


def file_scores(scored: list[tuple[DefRow, float]], terms: dict[str, float]
                ) -> dict[str, float]:
    """Each file's relevance: its best definition's score, a share of its others', and
    TERM_WEIGHT times its term score (a file can be relevant by its words alone)."""
    per: dict[str, list[float]] = {}
    for d, s in scored:
        per.setdefault(d.path, []).append(s)
    total = {p: max(v) + OTHERS * (sum(v) - max(v)) for p, v in per.items()}
    for p, t in terms.items():
        total[p] = total.get(p, 0.0) + TERM_WEIGHT * t
    return total


def with_prior(files: dict[str, float], prior: dict[str, float], weight: float
               ) -> dict[str, float]:
    """Each file's relevance plus `weight` × its prior × the best file's relevance."""
    if weight <= 0 or not prior or not files:
        return files
    top = max(files.values())
    return {p: v + weight * top * prior.get(p, 0.0) for p, v in files.items()}


def by_file(view: View, scored: list[tuple[DefRow, float]], terms: dict[str, float],
            query: list[str], prior: dict[str, float] | None = None, vagueness: float = 0.0,
            messages: dict[str, float] | None = None
            ) -> tuple[list[tuple[DefRow, float]], set[Key]]:
    """The definitions again, each ranked by FILE_SHARE of its file's relevance and the rest
    its own score; a file's relevance gains PRIOR_WEIGHT × `vagueness` × its change `prior`
    and HISTORY_WEIGHT × its commit `messages` score (shares of the best file's); a file
    among the FILLED most relevant with no definition in the ranking gets its representative
    (the definition whose lines hold the most query words; their keys returned beside the
    ranking)."""
    if not terms:
        return scored, set()
    files = with_prior(file_scores(scored, terms), prior or {}, PRIOR_WEIGHT * vagueness)
    files = with_prior(files, messages or {}, HISTORY_WEIGHT)
    top = max(files.values(), default=0.0) or 1.0
    have = {d.path for d, _ in scored}
    best = sorted(files, key=lambda p: (-files[p], p))[:FILLED]
    extra = representatives(view, [p for p in best if p not in have], query)
    rows = sorted([*scored, *((d, 0.0) for d in extra)],
                  key=lambda s: (-s[1], s[0].path, s[0].start_line))
    seen: dict[str, int] = {}
    out: list[tuple[DefRow, float]] = []
    for d, s in rows:
        k = seen.get(d.path, 0)
        seen[d.path] = k + 1
        out.append((d, round((FILE_SHARE * files[d.path] / top + (1 - FILE_SHARE) * s)
                             * DECAY ** k, 4)))
    out.sort(key=lambda s: (-s[1], s[0].path, s[0].start_line))
    return out, {key(d) for d in extra}


def representatives(view: View, paths: list[str], query: list[str]) -> list[DefRow]:
    """For each file, the definition whose lines hold the most query words (stemmed); the
    innermost on a tie, then the first. Files without definitions give none."""
    if not paths:
        return []
    wanted = {stem(w) for w in query}
    found: dict[str, list[DefRow]] = {}
    for chunk in chunks(paths):
        for d in defs(view.each(f"SELECT {DEF_COLS} {DEF_FROM} WHERE f.path IN "
                                f"({marks(chunk)})", tuple(chunk))):
            found.setdefault(d.path, []).append(d)
    out: list[DefRow] = []
    for path in paths:
        ds = found.get(path)
        if not ds:
            continue
        data = confined.read_or_none(view.root, path, MAX_READ)
        lines = data.decode("utf-8", "replace").split("\n") if data is not None else []
        out.append(_best(ds, [sum(1 for w in words(line) if stem(w) in wanted)
                              for line in lines]))
    return out


def _best(ds: list[DefRow], hits: list[int]) -> DefRow:
    """The definition whose lines hold the most hits (`hits` per line), innermost first."""
    prefix = [0]
    for h in hits:
        prefix.append(prefix[-1] + h)

    def count(d: DefRow) -> int:
        lo, hi = max(d.start_line - 1, 0), min(d.end_line, len(hits))
        return prefix[hi] - prefix[lo] if hi > lo else 0
    return min(ds, key=lambda d: (-count(d), d.end_line - d.start_line, d.start_line, key(d)))
