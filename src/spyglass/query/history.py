"""Files by how often the repository's recent commits changed them: a prior for vague
free-text questions (explore; docs/explore.md)."""

from __future__ import annotations

import math
from pathlib import Path

from spyglass.errors import GitRefused, IndexUnavailable
from spyglass.index import gitcall
from spyglass.query.view import View

COMMITS = 300  # newest non-merge commits read (at the view's snapshot commit)
_CACHE: dict[tuple[str, str], dict[str, float]] = {}


def change_prior(view: View) -> dict[str, float]:
    """log(1 + commits changing the file) among the newest COMMITS non-merge commits of the
    view's snapshot, scaled so the most changed file has 1; empty without a commit or git
    history. Kept per repository and commit."""
    commit = view.snapshot.commit if view.snapshot is not None else None
    if not commit:
        return {}
    cache_key = (str(view.root), commit)
    if cache_key not in _CACHE:
        _CACHE.clear()  # one commit at a time: a new snapshot replaces the old prior
        try:
            _CACHE[cache_key] = _read(view.root, commit)
        except (GitRefused, IndexUnavailable, OSError):  # no prior rather than no answer
            _CACHE[cache_key] = {}
    return _CACHE[cache_key]


def _read(root: Path, commit: str) -> dict[str, float]:
    listed = gitcall.call(root, "rev-list", "--no-merges", f"--max-count={COMMITS}", commit)
    if listed.returncode != 0 or not listed.stdout.strip():
        return {}
    changed = gitcall.call(root, "diff-tree", "--stdin", "-r", "--name-only",
                           "--no-commit-id", "--no-renames", input=listed.stdout)
    if changed.returncode != 0:
        return {}
    counts: dict[str, int] = {}
    for line in changed.stdout.decode("utf-8", "replace").splitlines():
        if line.strip():
            counts[line] = counts.get(line, 0) + 1
    top = math.log1p(max(counts.values(), default=0)) or 1.0
    return {p: math.log1p(c) / top for p, c in counts.items()}
