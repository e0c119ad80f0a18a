"""The repository's recent history: how often commits changed each file (a prior for vague
questions), the words of the commit messages that changed it (document expansion; explore,
docs/explore.md) and which files changed together (test suggestions, query/cochange.py)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from spyglass.errors import GitRefused, IndexUnavailable
from spyglass.index import gitcall
from spyglass.query.names import words
from spyglass.query.terms import bm25_idf, stem
from spyglass.query.view import View

COMMITS = 300  # newest non-merge commits read (at the view's snapshot commit)
MAX_FILES = 20  # a commit changing more files than this says little about each: not read
MAX_TOGETHER = 40  # files a commit may change and still say which files change together
# (the root commit, an import of the whole tree, is never read: diff-tree without --root)
K1 = 1.2  # BM25 saturation of a stem's count in a commit message
B = 0.75  # BM25 length normalisation of commit messages
_START, _END = "\x01", "\x02"  # around each commit's message in diff-tree's output
_CACHE: dict[tuple[str, str], History] = {}


@dataclass(frozen=True)
class History:
    """The change prior per file, each read commit's message stems with its files, and the
    files of every read commit changing at most MAX_TOGETHER files (newest first)."""

    prior: dict[str, float] = field(default_factory=dict)
    commits: tuple[tuple[Counter[str], tuple[str, ...]], ...] = ()
    together: tuple[tuple[str, ...], ...] = ()


def history(view: View) -> History:
    """The newest COMMITS non-merge commits of the view's snapshot commit (never later
    ones); empty without a commit or git history. Kept per repository and commit."""
    commit = view.snapshot.commit if view.snapshot is not None else None
    return history_at(view.root, commit)


def history_at(root: Path, commit: str | None) -> History:
    """The newest COMMITS non-merge commits reachable from `commit` (itself included, never
    later ones); empty without a commit or git history. The last two are kept."""
    if not commit:
        return History()
    cache_key = (str(root), commit)
    if cache_key not in _CACHE:
        while len(_CACHE) >= 2:  # the snapshot's and a diff's base: older ones are dropped
            del _CACHE[next(iter(_CACHE))]
        try:
            _CACHE[cache_key] = _read(root, commit)
        except (GitRefused, IndexUnavailable, OSError):  # no history rather than no answer
            _CACHE[cache_key] = History()
    return _CACHE[cache_key]


def change_prior(view: View) -> dict[str, float]:
    """log(1 + commits changing the file) among the newest COMMITS non-merge commits of the
    view's snapshot, scaled so the most changed file has 1."""
    return history(view).prior


def message_scores(view: View, query: list[str]) -> dict[str, float]:
    """Files by the commit messages that changed them: BM25 of the query's stems against
    each commit's message (stems weighted by how few messages have them), each commit's
    score shared among the files it changed, summed per file; the best file has 1."""
    commits = history(view).commits
    if not commits:
        return {}
    lengths = [sum(c.values()) for c, _ in commits]
    avg = (sum(lengths) / len(lengths)) or 1.0
    stems = list(dict.fromkeys(stem(w) for w in query))
    df = {s: sum(1 for c, _ in commits if s in c) for s in stems}
    out: dict[str, float] = {}
    for (c, files), n in zip(commits, lengths):
        score = 0.0
        for s in stems:
            tf = c.get(s, 0)
            if tf:
                norm = K1 * (1 - B + B * n / avg)
                score += bm25_idf(len(commits), df[s]) * tf * (K1 + 1) / (tf + norm)
        for f in files if score else ():
            out[f] = out.get(f, 0.0) + score / len(files)
    top = max(out.values(), default=0.0) or 1.0
    return {f: v / top for f, v in out.items()}


def _read(root: Path, commit: str) -> History:
    listed = gitcall.call(root, "rev-list", "--no-merges", f"--max-count={COMMITS}", commit)
    if listed.returncode != 0 or not listed.stdout.strip():
        return History()
    changed = gitcall.call(root, "diff-tree", "--stdin", "-r", "-z", "--name-only",
                           "--no-renames", f"--format={_START}%s{_END}", input=listed.stdout)
    if changed.returncode != 0:
        return History()
    counts: Counter[str] = Counter()
    commits: list[tuple[Counter[str], tuple[str, ...]]] = []
    together: list[tuple[str, ...]] = []
    for record in changed.stdout.decode("utf-8", "replace").split(_START)[1:]:
        message, _, listing = record.partition(_END)
        files = tuple(f for f in listing.lstrip("\0\n").split("\0") if f)  # -z: unquoted
        counts.update(files)
        if files and len(files) <= MAX_TOGETHER:
            together.append(files)
        if not files or len(files) > MAX_FILES:
            continue
        subject = message.partition("\n")[0]  # bodies were tried: no gain (docs/explore.md)
        stems = Counter(stem(w) for w in words(subject) if not w.isdigit())
        if stems:
            commits.append((stems, files))
    top = math.log1p(max(counts.values(), default=0)) or 1.0
    return History({p: math.log1p(c) / top for p, c in counts.items()}, tuple(commits),
                   tuple(together))
