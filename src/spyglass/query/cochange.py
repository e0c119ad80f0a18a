"""Co-change evidence: test files that changed together with a changed file in earlier commits."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from spyglass.query.history import history_at


@dataclass(frozen=True, slots=True)
class CoChange:
    """A test file that moved with a changed file: in `together` of the `touching` read
    commits (before the change) that changed that file."""

    test: str
    changed: str
    together: int
    touching: int

    @property
    def confidence(self) -> float:
        """together / (touching + 1): one commit in one is weaker evidence than nine in ten."""
        return self.together / (self.touching + 1)

    @property
    def strong(self) -> bool:
        """Moved together at least twice and in at least half the commits touching the file."""
        return self.together >= 2 and 2 * self.together >= self.touching

    def said(self) -> str:
        """The evidence as the answer states it."""
        return (f"changed with {self.changed} in {self.together} of the last {self.touching} "
                f"commits touching it")


def cochanges(root: Path, commit: str | None, changed: list[str], tests: set[str]
              ) -> list[CoChange]:
    """For each changed file, the test files (among `tests`, the ones present now) that
    earlier commits changed with it: the newest non-merge commits reachable from `commit`
    (the change's base: never a later commit), sweeps of many files left out
    (history.MAX_TOGETHER). Strongest first."""
    together = history_at(root, commit).together
    if not together:
        return []
    out: list[CoChange] = []
    for path in changed:
        touching = [files for files in together if path in files]
        if not touching:
            continue
        counts = Counter(t for files in touching for t in files if t in tests and t != path)
        out += [CoChange(t, path, k, len(touching)) for t, k in counts.items()]
    out.sort(key=lambda c: (-c.confidence, c.test, c.changed))
    return out
