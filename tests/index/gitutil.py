"""Helpers for the index tests: git commands, store dumps and answer summaries."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
from pathlib import Path

from fixture import write_files as write

from spyglass.query.facade import CodeIntel

ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
       "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_CONFIG_NOSYSTEM": "1"}


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=root, env={**ENV, "HOME": str(root)},
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout.strip()


def commit(root: Path, message: str = "change") -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD")


def init(root: Path, files: dict[str, str]) -> str:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    write(root, files)
    return commit(root, "initial")


STORE_TABLES = ("units", "defs", "bases", "refs", "imports", "aliases", "diags", "tokens", "snapshots",
                "snapshot_files")


def store_digest(store_root: Path) -> str:
    """One hash over every persisted row (overlays must never change it)."""
    conn = sqlite3.connect(f"file:{store_root / '.spyglass' / 'graph.db'}?mode=ro", uri=True)
    h = hashlib.sha1()
    try:
        for table in STORE_TABLES:
            for row in sorted(map(repr, conn.execute(f"SELECT * FROM {table}"))):
                h.update(row.encode())
    finally:
        conn.close()
    return h.hexdigest()


def defs(ci: CodeIntel, pattern: str = "*") -> dict[str, tuple[str, str]]:
    """name -> (path, source) of the definitions a query sees."""
    return {r.symbol.rsplit(".", 1)[-1]: (r.path, r.source)  # type: ignore[attr-defined]
            for r in ci.find_symbol(pattern).results}


def ref_sites(ci: CodeIntel, name: str) -> set[tuple[str, int]]:
    return {(r.path, r.start_line) for r in ci.references(name).results}  # type: ignore[attr-defined]


def age(root: Path, seconds: float = 60.0) -> None:
    """Backdate every file so its stat can be trusted (outside the racy window)."""
    import time
    when = time.time() - seconds
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", ".spyglass")]
        for name in names:
            os.utime(os.path.join(folder, name), (when, when))
