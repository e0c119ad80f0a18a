"""Git change enumeration for a workspace overlay: what differs from the pinned merge-base."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from spyglass.index import filenames, gitcall
from spyglass.index import source as src
from spyglass.index.probe import Probe

# committed: base..HEAD; staged: HEAD..index; unstaged: index..disk (supported files);
# untracked: not in the index and not ignored; deleted: gone at any step; target: changed on
# the snapshot's side since the merge-base (when no snapshot of the merge-base exists).
KINDS = ("committed", "staged", "unstaged", "untracked", "deleted", "target")


@dataclass(frozen=True, slots=True)
class OverlayReport:
    """A workspace's changes by kind. A rename is a tombstone (in `deleted`) plus an added
    path (in the kind where it happened), and is also listed in `renamed`."""

    workspace: str
    head: str | None
    head_state: str
    base: str | None
    snapshot_commit: str | None
    digest: str
    kinds: tuple[tuple[str, tuple[str, ...]], ...]
    renamed: tuple[tuple[str, str], ...]

    def paths(self, kind: str) -> tuple[str, ...]:
        return dict(self.kinds).get(kind, ())

    @property
    def changed(self) -> bool:
        return any(paths for _, paths in self.kinds)


def name_status(out: bytes) -> list[tuple[str, str, str | None]]:
    """Parse `-z --name-status` output into (status letter, path, old path for renames)."""
    parts = [filenames.from_bytes(p)[0] for p in out.split(b"\0")]
    rows: list[tuple[str, str, str | None]] = []
    i = 0
    while i < len(parts) and parts[i]:
        status = parts[i][0]
        if status in "RC":
            rows.append((status, parts[i + 2], parts[i + 1]))
            i += 3
        else:
            rows.append((status, parts[i + 1], None))
            i += 2
    return rows


def _diff(root: Path, *args: str) -> list[tuple[str, str, str | None]]:
    """Tree against tree, or tree against the index (`--cached`): never the work tree.
    Renames are detected from blob contents, except in a partial clone (never fetched)."""
    renames = "--no-renames" if gitcall.repo_config(root).promisor else "-M"
    return name_status(gitcall.run(root, *args[:1], "-r", "-z", "--name-status", renames,
                                   *args[1:]))


def index_blobs(root: Path) -> dict[str, str]:
    out = gitcall.run(root, "ls-files", "-s", "-z")
    blobs: dict[str, str] = {}
    for entry in out.split(b"\0"):
        if entry:
            meta, _, path = entry.partition(b"\t")
            blobs[filenames.from_bytes(path)[0]] = meta.split()[1].decode()
    return blobs


def classify(probe: Probe, head: src.Head, base: str | None, snapshot_commit: str | None,
             digest: str) -> OverlayReport:
    """Enumerate a git workspace's changes against `base`, by kind. Reads only git objects,
    the index and the probe's content ids: no command here reads the worktree through git,
    so no clean filter or other configured program can run."""
    root = probe.root
    kinds: dict[str, set[str]] = {k: set() for k in KINDS}
    renamed: list[tuple[str, str]] = []

    def take(rows: list[tuple[str, str, str | None]], kind: str) -> None:
        for status, path, old in rows:
            if status == "D":
                kinds["deleted"].add(path)
            else:
                kinds[kind].add(path)
            if old is not None and status == "R":
                kinds["deleted"].add(old)
                renamed.append((old, path))

    if base and head.sha and base != head.sha:
        take(_diff(root, "diff-tree", base, head.sha), "committed")
    if head.sha:
        take(_diff(root, "diff-index", "--cached", head.sha), "staged")
    staged_blobs = index_blobs(root)
    if not head.sha:
        kinds["staged"].update(staged_blobs)
    for path, blob in probe.current.items():
        if path in staged_blobs and staged_blobs[path] != blob:
            kinds["unstaged"].add(path)
    kinds["untracked"].update(probe.untracked)
    kinds["deleted"].update(probe.deleted)
    if base and snapshot_commit and base != snapshot_commit:
        for _, path, old in _diff(root, "diff-tree", base, snapshot_commit):
            kinds["target"].add(path)
            if old is not None:
                kinds["target"].add(old)
    return OverlayReport(
        workspace=str(root), head=head.sha, head_state=head.describe(), base=base,
        snapshot_commit=snapshot_commit, digest=digest,
        kinds=tuple((k, tuple(sorted(kinds[k]))) for k in KINDS),
        renamed=tuple(sorted(renamed)))


def classify_disk(root: Path, added: list[str], modified: list[str], deleted: list[str],
                  digest: str) -> OverlayReport:
    """A folder that is not a git repository: only content differences can be named."""
    return OverlayReport(
        workspace=str(root), head=None, head_state="not a git repository", base=None,
        snapshot_commit=None, digest=digest,
        kinds=(("untracked", tuple(sorted(added))), ("unstaged", tuple(sorted(modified))),
               ("deleted", tuple(sorted(deleted)))),
        renamed=())
