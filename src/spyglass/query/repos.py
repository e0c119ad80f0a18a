"""The repositories of the team store a front end answers for, and a facade for each."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
import threading
import time
import weakref
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from spyglass.config import apply_policy
from spyglass.errors import BadInput, IndexUnavailable
from spyglass.index import postgres
from spyglass.index import source as src
from spyglass.query.results import StoreRepo

if TYPE_CHECKING:  # the facade makes the registry (CodeIntel.repos): no import cycle
    from spyglass.query.facade import CodeIntel

MAX_OPEN = 16  # facades (each one store connection) kept open; the least used is closed
MAX_ID = 200  # characters of a repository id a client may name
MAX_LISTED = 200  # repositories code_status lists (the configured ones and this one first)


def _age(stamp: str | None) -> int | None:
    if not stamp:
        return None
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    return max(0, int(time.time() - when.timestamp()))


def newest_snapshots(url: str) -> dict[str, tuple[int, str | None, str, str | None]]:
    """repository id → (snapshot, commit, ref, indexed at) of its newest complete snapshot."""
    conn = postgres.Connection(url, "")
    try:
        with conn.lock:
            rows = conn.raw.execute(
                f"SELECT DISTINCT ON (repo) repo, id, commit_sha, ref, indexed_at FROM "
                f"{postgres.SCHEMA_NAME}.snapshots WHERE state='completed' "
                "ORDER BY repo, id DESC").fetchall()
    finally:
        conn.close()
    return {str(r[0]): (int(r[1]), r[2], str(r[3]), r[4]) for r in rows}


def _checkout(path: str) -> Path | None:
    """A configured clone that has a working tree (a bare mirror has none)."""
    folder = Path(path)
    if not folder.is_dir() or not (folder / ".git").exists():
        return None
    return folder if src.is_git_repo(folder) else None


class Repos:
    """The repositories one front end answers for: its own (`home`), and with a team store
    every repository of it — only those of `[team] repos` when that is configured (a client
    naming any other is refused). A configured clone with a working tree answers with its
    overlay; any other repository from its newest snapshot in an empty private folder, so
    nothing outside the store is ever read for it."""

    def __init__(self, home: CodeIntel) -> None:
        self.home = home
        self._open: dict[str, CodeIntel] = {}
        self._lock = threading.Lock()
        self._empty: Path | None = None

    @property
    def url(self) -> str | None:
        return self.home.config.store_url

    def configured(self) -> dict[str, str]:
        return dict(self.home.config.team_repos)

    def listing(self) -> list[StoreRepo]:
        """The store's repositories this server answers for, by id (none without a store)."""
        if not self.url:
            return []
        wanted = self.configured()
        out = []
        for repo, (snap, commit, ref, at) in sorted(newest_snapshots(self.url).items()):
            if wanted and repo not in wanted and repo != self.home.store_repo:
                continue
            home = repo == self.home.store_repo
            how = "checkout" if home or (repo in wanted and _checkout(wanted[repo])) \
                else "snapshot"
            out.append(StoreRepo(repo, snap, commit, ref, at, _age(at), how))
        out.sort(key=lambda r: (r.repo != self.home.store_repo, r.repo not in wanted, r.repo))
        return out[:MAX_LISTED]

    def intel(self, repo: str | None) -> CodeIntel:
        """The facade answering for `repo` (None or this server's own: `home`)."""
        if not repo or repo in (self.home.store_repo, self.home.repo):
            return self.home
        if len(repo) > MAX_ID or any(ord(c) < 32 for c in repo):
            raise BadInput("repo is not a repository id")
        url = self.url
        if not url:
            raise BadInput(f"unknown repository {repo!r}: this server answers for "
                           f"{self.home.store_repo!r} only (no team store: docs/team.md)")
        wanted = self.configured()
        if wanted and repo not in wanted:
            raise BadInput(f"unknown repository {repo!r}: this server answers for "
                           f"{', '.join(sorted({*wanted, self.home.store_repo}))}")
        with self._lock:
            ci = self._open.pop(repo, None)
            if ci is None:
                if repo not in newest_snapshots(url):
                    raise IndexUnavailable(f"the team store has no snapshot of {repo!r} "
                                           "(code_status lists its repositories)")
                ci = self._make(repo, wanted.get(repo))
            self._open[repo] = ci  # most recently used last
            while len(self._open) > MAX_OPEN:
                self._close(self._open.pop(next(iter(self._open))))
            return ci

    def _make(self, repo: str, clone: str | None) -> CodeIntel:
        config = dataclasses.replace(self.home.config, store_repo=repo)
        folder = _checkout(clone) if clone else None
        facade = type(self.home)
        if folder is not None:  # its own policy (spyglass.toml) narrows the host's config
            ci = facade(folder, config=apply_policy(config, folder), root=folder)
        else:
            # no language servers and no precise pass: there are no files to give them
            config = dataclasses.replace(config, lsp=(), precise=dataclasses.replace(
                config.precise, enabled="false"))
            root = Path(tempfile.mkdtemp(prefix="snapshot-", dir=self._empty_root()))
            ci = facade(root, config=config, root=root, detached=True)
        ci.config_path = self.home.config_path
        return ci

    def _empty_root(self) -> Path:
        """A private folder (mode 0700) holding one empty folder per snapshot-only facade."""
        if self._empty is None:
            self._empty = Path(tempfile.mkdtemp(prefix="spyglass-repos-"))
            weakref.finalize(self, shutil.rmtree, self._empty, True)
        return self._empty

    @staticmethod
    def _close(ci: CodeIntel) -> None:
        with ci.lock:
            conn = ci._conn
            ci._conn = None
            ci._view = None
        if conn is not None:
            conn.close()

    def close(self) -> None:
        with self._lock:
            for ci in self._open.values():
                self._close(ci)
            self._open.clear()
