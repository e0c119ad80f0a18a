"""Index discovery for the outer layers: which workspace and store a start folder means."""

from __future__ import annotations

from pathlib import Path

from spyglass.index.store import find_store, locate


def discover(start: Path) -> tuple[Path, Path, bool]:
    """(workspace root, store root, whether an index exists there) for a start directory.

    The workspace root confines client paths; linked git worktrees share the main
    worktree's store (see `spyglass.index.store.locate`)."""
    root, store_root = locate(start)
    return root, store_root, find_store(store_root) == store_root
