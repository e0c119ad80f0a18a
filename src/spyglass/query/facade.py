"""CodeIntel: the one public query API; every tool, command and endpoint goes through it."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Self, TypeVar

from spyglass.config import Config, load_config
from spyglass.errors import BadInput, IndexUnavailable, SpyglassError
from spyglass.index import confined, gitcall, gitguard, writer
from spyglass.index import source as src
from spyglass.index.store import (
    SCHEMA,
    STORE_DIR,
    Conn,
    JobRow,
    SnapshotRow,
    connect,
    find_store,
    latest_complete,
    latest_job,
    latest_snapshot,
    locate,
    open_store,
)
from spyglass.query import files as file_ops
from spyglass.query import paths as client_paths
from spyglass.query import suggest
from spyglass.query import symbols as sym
from spyglass.query.answer import Answer, location, touched
from spyglass.query.answer import coverage as coverage_of
from spyglass.query.answer import provenance as provenance_of
from spyglass.query.display import display, module_symbol
from spyglass.query.references import locations as reference_locations
from spyglass.query.results import (
    DefRow,
    DiagnosticsSummary,
    QueuedJob,
    Site,
    StatusReport,
)
from spyglass.query.view import View
from spyglass.types import (
    Accounting,
    CodeLocation,
    Coverage,
    PreciseStatus,
    Provenance,
    ScipExport,
    ToolResult,
)

PRECISE_NOTE = "precise facts ("  # query/precise_answer.py's note on a merged answer

if TYPE_CHECKING:  # indexing, the team store, escalation: imported where used (a question
    # pays for none of them; docs/explore.md "Latency")
    from spyglass.bridge.manager import Bridge
    from spyglass.index.builder import Progress
    from spyglass.index.jobs import Event
    from spyglass.index.queue import Job
    from spyglass.query.changeset import ChangeSet
    from spyglass.query.escalate import Escalator
    from spyglass.query.impact import Radius
    from spyglass.query.precise import Run
    from spyglass.query.repos import Repos


def repo_name(root: Path) -> str:
    """owner/name from the origin remote when there is one, else the folder name."""
    try:
        url = gitcall.run(root, "config", "--get", "remote.origin.url",
                          check=False).decode().strip()
    except OSError:
        url = ""
    if url:
        tail = url.rstrip("/").removesuffix(".git").replace(":", "/").split("/")
        if len(tail) >= 2:
            return f"{tail[-2]}/{tail[-1]}"
    return root.name


class CallLock:
    """A re-entrant lock that knows its depth: one tool call = one outermost acquisition,
    so the view is refreshed once per call however many helpers ask for it."""

    def __init__(self, on_release: Callable[[], None] | None = None) -> None:
        self._lock = threading.RLock()
        self.depth = 0
        self.fresh = False
        self._on_release = on_release  # runs when the outermost block is left

    def __enter__(self) -> Self:
        self._lock.acquire()
        self.depth += 1
        if self.depth == 1:
            self.fresh = False
        return self

    def __exit__(self, *exc: object) -> None:
        self.depth -= 1
        try:
            if self.depth == 0 and self._on_release is not None:
                self._on_release()
        finally:
            self._lock.release()


_T = TypeVar("_T")


def stop_children(thread: int | None = None) -> int:
    """Kill every git process of this process (a server stopping: requests waiting on git
    end now, and no git is left behind as an orphan), or those of one worker thread (its
    request was cancelled); how many there were."""
    return gitcall.kill_all(thread)


def run_cancellable(fn: Callable[[], _T], started: list[int]) -> _T:
    """Run `fn`, recording the running thread in `started` first: a caller whose request
    is cancelled passes it to `stop_children`."""
    started.append(threading.get_ident())
    return fn()


def read_small(path: Path) -> bytes | None:
    """A small regular file's first 4 KiB, never blocking (`.git`, HEAD: the web summary)."""
    return gitguard.read_small(path)


class CodeIntel:
    """Facade over one repository: open it, then ask questions. Thread-safe (one lock)."""

    def __init__(self, start: Path | str = ".", *, config: Config | None = None,
                 root: Path | None = None, detached: bool = False) -> None:
        self.start = Path(start).resolve()
        # detached: a repository of the team store with no checkout here (`start` is an
        # empty private folder): its newest snapshot answers, with no overlay (query/repos.py)
        self.detached = detached
        if config is None:  # the host's git timeout, before the first git call
            gitcall.set_timeout(load_config().git_timeout_s)
        # root: the workspace (confinement root); store_root: where `.spyglass/` lives
        # (shared by every worktree of a git repository).
        self.root, self.store_root = locate(self.start, root)
        self._config = config or load_config(repo_root=self.root)
        gitcall.set_timeout(self._config.git_timeout_s)
        self.config_path: Path | None = None  # the host config file a CLI named
        self.repo = (self._config.store_repo or "") if detached else \
            repo_name(self.store_root)  # one name for every worktree
        # Leaving a tool call ends the view's read transaction: one store state per answer.
        self.lock = CallLock(self._end_read)
        self._conn: Conn | None = None
        self._view: View | None = None
        self._escalator: Escalator | None = None
        self._team: bool | None = None
        self.notes: list[str] = []  # said once per process (the team store's fallback)
        self._repos: Repos | None = None

    # -- plumbing --------------------------------------------------------------------------
    @property
    def store_repo(self) -> str:
        """This repository's id in the store ([store] repo, else owner/name or the folder)."""
        return self.config.store_repo or self.repo

    @property
    def repos(self) -> Repos:
        """The team store's repositories this front end answers for (query/repos.py)."""
        if self._repos is None:
            from spyglass.query.repos import Repos
            self._repos = Repos(self)
        return self._repos

    def for_repo(self, repo: str | None) -> CodeIntel:
        """The facade answering for a repository of the team store (None: this one)."""
        if not repo or repo in (self.store_repo, self.repo):
            return self  # as Repos.intel answers, without loading the team store's client
        return self.repos.intel(repo)

    @property
    def team(self) -> bool:
        """Whether answers come from the team store: it is configured and holds a complete
        snapshot of this repository (else the local index answers, with a note)."""
        if not self.config.store_url:
            return False
        if self._team is None:
            conn = open_store(self.store_root, self.config.store_url, self.store_repo)
            try:
                found = latest_complete(conn) is not None
            finally:
                conn.close()
            if not found and self.detached:
                raise IndexUnavailable(f"the team store has no snapshot of {self.store_repo}")
            self._team = found
            if self.detached:
                self.notes.append(f"no checkout of {self.store_repo} here: answering from its "
                                  "newest team snapshot as indexed (no overlay; live source "
                                  "is not available)")
            elif not self._team:
                self.notes.append(f"the team store has no snapshot of {self.store_repo}; "
                                  "answering from the local index")
        return self._team

    @property
    def config(self) -> Config:
        return self._config

    @config.setter
    def config(self, config: Config) -> None:
        """The effective config; its git timeout applies to every git call of the process."""
        self._config = config
        gitcall.set_timeout(config.git_timeout_s)

    @property
    def has_index(self) -> bool:
        return self.team or find_store(self.store_root) == self.store_root

    def _open(self) -> Conn:
        """A connection to the store answers come from (the team store or the local one)."""
        if self.team:
            return open_store(self.store_root, self.config.store_url, self.store_repo)
        return connect(self.store_root)

    def _end_read(self) -> None:
        if self._view is not None:
            self._view.end_read()

    def _connection(self) -> Conn:
        if self._conn is None:
            if self.has_index:
                self._conn = self._open()
            else:
                self._conn = sqlite3.connect(":memory:", check_same_thread=False)
                self._conn.executescript(SCHEMA)
        return self._conn

    @property
    def escalator(self) -> Escalator:
        """The language servers and SCIP import of this workspace (docs/bridge.md), for
        the current config."""
        from spyglass.query.escalate import Escalator
        if self._escalator is None or self._escalator.config is not self.config:
            self._escalator = Escalator(self.root, self.config, self.store_root / ".spyglass")
        return self._escalator

    def view(self) -> View:
        """The current view, refreshed against the newest snapshot and the files on disk —
        once per tool call: nested calls inside one `with self.lock:` block reuse it."""
        with self.lock:
            if self.lock.depth > 1 and self.lock.fresh and self._view is not None:
                return self._view
            self.lock.fresh = True
            if self._view is None or (self.has_index and self._conn is not None
                                      and self._conn.execute("PRAGMA database_list").fetchone()[2]
                                      == ""):
                self._conn = None
                self._view = View(self.root, self._connection(), self.config, self.repo,
                                  detached=self.detached)
                self._view.notes = self.notes
            self._view.refresh()
            return self._view

    def rel_path(self, path: str) -> str:
        """A client path (relative to the root, or absolute) as a root-relative path.
        Anything resolving outside the root, symlinks included, is refused before reading
        (query/paths.py); reads then go through index/confined.py."""
        return client_paths.resolve(self.root, path)

    # -- envelope (query/answer.py) -----------------------------------------------------
    def answer(self) -> Answer:
        """The answer builder of the current tool call (refreshes the view once per call)."""
        return Answer(self.view(), self.root, self.repo, self.config, self.rel_path)

    def provenance(self) -> Provenance:
        return provenance_of(self._view, self.repo)

    def coverage(self, paths: list[str] | None = None) -> Coverage:
        assert self._view is not None
        return coverage_of(self._view, paths)

    def def_location(self, d: DefRow, uncertain: bool = False, evidence: str = ""
                     ) -> CodeLocation:
        return location(self._view, self.repo, d.path, d.start_line, d.end_line, display(d),
                        d.kind, d.source, d.stale, uncertain, evidence)

    # -- tools -----------------------------------------------------------------------------
    def find_symbol(self, name: str, kind: str | None = None, path: str | None = None,
                    all_repos: bool = False) -> ToolResult:
        if all_repos:
            return self._find_everywhere(name, kind)
        with self.lock:
            view = self.view()
            rel = self.rel_path(path) if path else None
            if rel is not None:
                self._check_exists(rel)
            defs = sym.find_defs(view, name, kind, rel)
            notes: tuple[str, ...] = ()
            if not defs and kind and kind not in (known := suggest.kinds(view)):
                raise BadInput(f"unknown kind {kind!r}; kinds in this index: "
                               + ", ".join(known))
            close = suggest.similar_names(view, name) if not defs else []
            if not defs and close:
                notes = (f"no definition named {name!r}; did you mean "
                         + ", ".join(repr(n) for n in close) + "?",)
            ans = self.answer()
            return ans.envelope([ans.def_location(d) for d in defs], notes=notes)

    def _find_everywhere(self, name: str, kind: str | None) -> ToolResult:
        """Definitions of a name in every repository of the team store (query/orgwide.py)."""
        from spyglass.query import orgwide
        if not self.config.store_url:
            raise BadInput("all_repos reads the team store: set [store] url (docs/team.md)")
        found = orgwide.find_everywhere(self.config.store_url, name, kind)
        notes = [(f"{found.total} definition(s) in {found.repos} repositor(ies) of the team "
                  "store (the newest indexed snapshot of each; uncommitted work is not seen)")]
        if found.total > len(found.locations):
            notes.append(f"only the first {len(found.locations)} read: narrow with kind or a "
                         "qualified name")
        with self.lock:
            ans = self.answer()
            return ans.envelope(list(found.locations), notes=tuple(notes))

    def _check_exists(self, rel: str) -> None:
        """A path filter names a file or folder that exists (on disk or in the snapshot)."""
        if rel in ("", ".") or os.path.lexists(self.root / rel):
            return
        view = self.view()
        prefix = rel.rstrip("/") + "/"
        if any(f.path == rel or f.path.startswith(prefix) for f in view.disk_files()):
            return
        raise BadInput(f"no file or folder {rel!r} under {self.root}")

    def _targets(self, name: str | None, path: str | None, line: int | None,
                 column: int | None) -> list[DefRow]:
        view = self.view()
        if path is not None and line is not None:
            rel = self.rel_path(path)
            self._check_line(rel, line)
            return sym.targets_at(view, rel, line, column)
        if not name:
            raise BadInput("give a symbol name, or path and line")
        defs = sym.find_defs(view, name, None, self.rel_path(path) if path else None)
        if not defs:
            close = suggest.similar_names(view, name)
            hint = ("did you mean " + ", ".join(repr(n) for n in close) + "?" if close else
                    "try code_find_symbol with a pattern such as '*"
                    + name.split(".")[-1] + "*'")
            raise BadInput(f"no definition named {name!r}; {hint}")
        return defs

    def file_bytes(self, path: str) -> tuple[str, bytes]:
        """A workspace file as on disk (the web code view): its root-relative path and its
        bytes, through the confined reader within max_file_bytes (query/paths.py)."""
        self._live_source("its files")
        rel = self.rel_path(path)
        return rel, client_paths.read(self.root, rel, self.config.limits.max_file_bytes)

    def _check_line(self, rel: str, line: int) -> None:
        if line < 1:
            raise BadInput("line numbers are 1-based")
        data = client_paths.read(self.root, rel, self.config.limits.max_file_bytes)
        count = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        if line > max(count, 1):
            raise BadInput(f"line {line} is out of range: {rel} has {count} lines")

    def references(self, name: str | None = None, path: str | None = None,
                   line: int | None = None, column: int | None = None,
                   include_declaration: bool = False, exact_only: bool = False,
                   lsp_budget_ms: int | None = None, offset: int = 0) -> ToolResult:
        """Uses of a symbol; `offset` continues a truncated answer (its `page` section). A
        module's name (``pkg.mod``) that names no definition: the imports of it."""
        from spyglass.query import modules
        with self.lock:
            if name and line is None and not sym.find_defs(self.view(), name, None, None) \
                    and modules.is_module(self.answer(), name):
                return modules.module_imports(self.answer(), name, offset)
            targets = self._targets(name, path, line, column)
            return self._sites(targets, include_declaration, exact_only, False, lsp_budget_ms,
                               offset)

    def callers(self, name: str | None = None, path: str | None = None, line: int | None = None,
                column: int | None = None, exact_only: bool = False,
                lsp_budget_ms: int | None = None, offset: int = 0) -> ToolResult:
        """Call sites of a function; `offset` continues a truncated answer. A module's name:
        the imports of it (a module is not called; importing it runs it)."""
        from spyglass.query import modules
        with self.lock:
            if name and line is None and not sym.find_defs(self.view(), name, None, None) \
                    and modules.is_module(self.answer(), name):
                return modules.module_imports(self.answer(), name, offset)
            targets = self._targets(name, path, line, column)
            return self._sites(targets, False, exact_only, True, lsp_budget_ms, offset)

    def callees(self, name: str | None = None, path: str | None = None, line: int | None = None,
                column: int | None = None, exact_only: bool = False) -> ToolResult:
        """What a function calls (query/callees.py): the called definitions, certain or
        uncertain with evidence."""
        from spyglass.query.callees import callees
        with self.lock:
            ans = self.answer()
            return callees(ans, self._targets(name, path, line, column), exact_only,
                           self.escalator.scip_index(ans.view()))

    def type_hierarchy(self, name: str | None = None, path: str | None = None,
                       line: int | None = None, column: int | None = None) -> ToolResult:
        """Supertypes and subtypes of a type, or what a member overrides and what overrides
        it (query/hierarchy.py)."""
        from spyglass.query.hierarchy import hierarchy
        with self.lock:
            return hierarchy(self.answer(), self._targets(name, path, line, column))

    def _sites(self, targets: list[DefRow], include_declaration: bool, exact_only: bool,
               calls_only: bool, lsp_budget_ms: int | None, offset: int = 0) -> ToolResult:
        """The index answer (query/references.py), made precise by an imported SCIP index
        and a configured language server within the budget (query/escalate.py;
        `lsp_budget_ms` 0 = index only)."""
        ans = self.answer()
        own: list[tuple[list[CodeLocation], tuple[str, ...], Accounting]] = []

        def index_answer() -> tuple[list[CodeLocation], tuple[str, ...]]:
            own.append(reference_locations(ans, targets, include_declaration, exact_only,
                                           calls_only=calls_only, reach=max(offset, 0)))
            return own[-1][0], own[-1][1]
        found, notes = self.escalator.answer(
            ans.view(), targets, calls_only, include_declaration, lsp_budget_ms,
            index_answer)
        ambiguous = sym.ambiguity(targets)
        if offset < 0:
            raise BadInput(f"offset must be >= 0, got {offset}")
        # The accounting is the index answer's when the answer is the index's own, redone
        # from its decisions when precise facts decided it (a language server's answer is
        # not accounted by name).
        acct = own[-1][2] if own and found is own[-1][0] else None
        tool = next((n[len(PRECISE_NOTE):].split(")", 1)[0] for n in notes
                     if n.startswith(PRECISE_NOTE)), None)
        if acct is None and own and tool is not None and targets \
                and self.escalator.server_for(targets[0].language) is None:
            from spyglass.query import accounting, references
            decided = references.decisions(ans, targets, include_declaration, exact_only,
                                           calls_only)
            acct = accounting.merged(decided, own[-1][0], list(found), tool.split(" ")[0])
            notes = (*[n for n in notes if not n.startswith(("complete:", "not complete:"))],
                     accounting.statement(acct, targets[0].name))
        return ans.envelope(list(found), notes=(ambiguous, *notes) if ambiguous else notes,
                            offset=offset, accounting=acct)

    def file_sites(self, path: str) -> tuple[list[Site], bool]:
        """The indexed sites of a file, each with the definition it resolves to (the web
        code view's links, query/sites.py), and whether their cap cut them."""
        from spyglass.query.sites import file_sites
        with self.lock:
            return file_sites(self.view(), self.rel_path(path))

    def start_bridges(self, wait: float = 180.0) -> None:
        """Start the configured language servers now; with `[codeintel] required = true`
        a server that cannot start raises BridgeUnavailable with the reason."""
        if self.config.required:
            self.escalator.start_all(wait)
        else:
            for bridge in self.escalator.bridges():
                threading.Thread(target=_start_quietly, args=(bridge,), daemon=True).start()

    def structure(self, path: str) -> ToolResult:
        with self.lock:
            rel = self.rel_path(path)
            return file_ops.structure(self.answer(), rel)

    def context(self, spans: list[tuple[str, int, int]]) -> ToolResult:
        """Live source of spans; a span starting at line 0 names a symbol: the spans of its
        definitions (an unknown name is bad input, with suggestions)."""
        self._live_source("code_context")
        with self.lock:
            out: list[tuple[str, int, int]] = []
            for path, start, end in spans:
                if start != 0:
                    out.append((path, start, end))
                    continue
                out += [(d.path, d.start_line, d.end_line)
                        for d in self._targets(path, None, None, None)]
            return file_ops.context(self.answer(), out)

    def _live_source(self, what: str) -> None:
        """A repository answering from its snapshot alone has no files to read here."""
        if self.detached:
            raise BadInput(f"{what} reads live source; {self.repo} has no checkout on this "
                           "server (it answers from its team snapshot: index tools only)")

    def diagnostics(self, paths: list[str]) -> ToolResult:
        self._live_source("code_diagnostics")
        with self.lock:
            return file_ops.diagnostics(self.answer(), paths)

    def ast_query(self, query: str, paths: list[str]) -> ToolResult:
        self._live_source("code_ast_query")
        with self.lock:
            return file_ops.ast_query(self.answer(), query, paths)

    def status(self, tools: tuple[str, ...] = ()) -> ToolResult:
        """Index state; with no completed snapshot, from the workspace's listing alone."""
        with self.lock:
            if self._complete_snapshot() is None:
                return self._with_store_repos(file_ops.status_unindexed(
                    self.root, self.repo, self.config, tools or self.config.capabilities,
                    self.last_index_job(), self.store_root,
                    tuple(b.status() for b in self.escalator.bridges())))
            ans = self.answer()
            result = file_ops.status(ans, tools or self.config.capabilities,
                                     self.last_index_job(), self.store_root,
                                     tuple(b.status() for b in self.escalator.bridges()),
                                     self._precise_status(ans.view()))
            result = self._with_store_repos(result)
            rejected = self._store_rejected()
            if rejected is None:
                return result
            return dataclasses.replace(result, coverage=dataclasses.replace(
                result.coverage, limitations=(*result.coverage.limitations, rejected)))

    def _with_store_repos(self, result: ToolResult) -> ToolResult:
        """code_status on a team store: this repository's newest jobs on the queue and (but
        for a repository answering from its snapshot alone) the store's repositories."""
        if not self.config.store_url or not result.results:
            return result
        report = result.results[0]
        if not isinstance(report, StatusReport):
            return result
        try:
            queued = tuple(self.queued_jobs(limit=5))
            listed = () if self.detached else tuple(self.repos.listing())
        except SpyglassError:  # the store is unreachable: the status says so elsewhere
            return result
        return dataclasses.replace(result, results=(
            dataclasses.replace(report, store_repos=listed, queued=queued),
            *result.results[1:]))

    # -- the team store's queue ------------------------------------------------------------
    def enqueue(self, ref: str | None = None) -> QueuedJob:
        """Queue an index job of this repository in the team store (the workers build it),
        or the same job already waiting; ref: default the target branch, else HEAD."""
        url = self.config.store_url
        if not url:
            raise BadInput("no team store: the queue is the team store's (docs/team.md)")
        job = enqueue_job(url, self.store_repo, ref or self.config.target_branch or "HEAD")
        return _queued(job)

    def queued_jobs(self, limit: int = 20, job: int | None = None) -> list[QueuedJob]:
        """This repository's jobs on the team store's queue, newest first (or one job)."""
        from spyglass.index import postgres, queue
        url = self.config.store_url
        if not url:
            return []
        conn = postgres.Connection(url, self.store_repo)
        try:
            return [_queued(j) for j in queue.jobs(conn, self.store_repo, limit, job)]
        finally:
            conn.close()

    def _store_rejected(self) -> str | None:
        """When the latest index run replaced a store that failed validation (it came with
        the repository, was copied, damaged or edited): the message it journaled."""
        if not self.has_index:
            return None
        conn = self._open()
        try:
            row = conn.execute("SELECT detail FROM events WHERE kind='store_rejected' "
                               "ORDER BY id DESC LIMIT 1").fetchone()
            jobs = conn.execute("SELECT COUNT(*) FROM jobs").fetchone()[0]
        finally:
            conn.close()
        return str(row[0]) if row and jobs <= 1 else None

    # -- indexing --------------------------------------------------------------------------
    def index(self, ref: str | None = None, progress: Progress | None = None, *,
              wait: bool = True, on_wait: Callable[[str], None] | None = None,
              precise: str = "thread") -> SnapshotRow:
        """Build or update the snapshot under the writer lock (one writer at a time; readers
        keep the previous snapshot until the new one is complete), then collect garbage;
        then the precise pass (docs/precise.md): `precise` "wait" runs it here, "thread"
        in a background thread (servers), "detach" in a detached spyglass process (the
        CLI), "off" not at all."""
        from spyglass.index.jobs import run_index
        try:
            snap = run_index(self.store_root, self.root, self.config, self.store_repo, ref,
                             progress, wait=wait, on_wait=on_wait)
            self._team = None
            if not (self.store_root / STORE_DIR).is_dir():
                raise IndexUnavailable(f"the index store {self.store_root / STORE_DIR} was "
                                       "deleted while indexing; run the index again")
        finally:
            with self.lock:
                if self._conn is not None:
                    self._conn.close()
                self._conn = None
                self._view = None
        self._open_view_of(snap)
        if snap.state == "completed" and precise != "off":
            self.precise_pass(snap.id, precise)
        return snap

    def precise_pass(self, snapshot: int | None = None, mode: str = "wait") -> list[Run]:
        """Run the precise pass over `snapshot` (default: the newest complete one); with
        `mode` "thread"/"detach" it runs in the background and this returns at once."""
        from spyglass.query import precise
        if self.config.precise.enabled == "false" or not self.has_index:
            return []
        if snapshot is None:
            conn = connect(self.store_root)
            try:
                snap = latest_complete(conn)
            finally:
                conn.close()
            if snap is None:
                raise IndexUnavailable("no complete snapshot yet: index the repository first")
            snapshot = snap.id
        if mode == "thread":
            threading.Thread(target=self._precise_quietly, args=(snapshot,), daemon=True,
                             name="spyglass-precise").start()
            return []
        if mode == "detach":
            precise.detach(self.start, snapshot, self.config_path)
            return []
        return precise.pass_over(self.store_root, self.root, self.config, snapshot)

    def _precise_status(self, view: View) -> tuple[PreciseStatus, ...]:
        """The newest pass per language at or before the view's snapshot; a "running"
        pass whose process is gone shows as interrupted."""
        from spyglass.query import precise
        if view.snapshot is None or not self.has_index:
            return ()
        rows = view.conn.execute(
            "SELECT language, tool, state, files, seconds, peak_mb, error, snapshot FROM "
            "precise_runs p WHERE snapshot = (SELECT max(snapshot) FROM precise_runs q WHERE "
            "q.language = p.language AND q.snapshot <= ?) ORDER BY language",
            (view.snapshot.id,)).fetchall() if _has_table(view.conn, "precise_runs") else []
        live = precise.running(self.store_root)
        return tuple(PreciseStatus(str(a), str(b), "interrupted" if c == "running" and not
                                   live else str(c), int(d), float(e), float(f), str(g),
                                   int(h)) for a, b, c, d, e, f, g, h in rows)

    def _precise_quietly(self, snapshot: int) -> None:
        from spyglass.query import precise
        try:
            precise.pass_over(self.store_root, self.root, self.config, snapshot)
        except (OSError, sqlite3.Error, SpyglassError):
            pass  # recorded in precise_runs and the events; status shows it

    def _open_view_of(self, snap: SnapshotRow) -> None:
        """After indexing the commit the workspace has checked out: open the view on the
        new snapshot now, while the index command runs (the full refresh: listing, stats,
        resolution contexts). It saves the workspace's stats, so the next process —
        a CLI question after `spyglass index` — starts clean (query/view.py) instead of
        paying that refresh itself, and a server keeps this view for its next answer
        (docs/kernel.md). Another ref indexed, or a failure here, changes nothing: the
        next answer refreshes as it would have."""
        if snap.state != "completed" or snap.commit is None:
            return
        try:
            if src.head(self.root).sha != snap.commit:
                return
            with self.lock:
                self.view()
                self._end_read()
        except (OSError, sqlite3.Error, SpyglassError):
            with self.lock:
                self._view = None

    def import_scip(self, scip_file: Path) -> tuple[str, int, list[str]]:
        """Keep a SCIP index (docs/bridge.md) with the newest complete snapshot: its
        occurrences make the index's references exact where the documents' files are
        unchanged; garbage collection drops it with its snapshot."""
        from spyglass.index import scip
        if not self.has_index:
            raise IndexUnavailable("no index yet: index the repository first, then --scip")
        conn = self._open()
        try:
            snap = latest_complete(conn)
            if snap is None:
                raise IndexUnavailable("no complete snapshot yet: index the repository first")
            out = scip.import_scip(self.root, conn, snap.id, scip_file,
                                   self.config.limits.max_file_bytes)
        finally:
            conn.close()
        return out

    def export_scip(self, out: Path, ref: str | None = None) -> ScipExport:
        """Write a complete snapshot (the newest, or REF's) as a SCIP index (docs/indexing.md
        "SCIP export"): definitions and exact references; uncertain ones are left out."""
        from spyglass.index import scipexport
        if not self.has_index:
            raise IndexUnavailable("no index yet: run `spyglass index` first")
        conn = self._open()
        try:
            snap = scipexport.choose_snapshot(conn, ref, self.root)
            return scipexport.export(self.root, conn, snap, out, ref)
        finally:
            conn.close()

    def last_job(self) -> SnapshotRow | None:
        """The newest snapshot row in any state (the current or last build)."""
        if not self.has_index:
            return None
        conn = self._open()
        try:
            return latest_snapshot(conn)
        finally:
            conn.close()

    def _complete_snapshot(self) -> SnapshotRow | None:
        """The newest completed snapshot (None: no index to answer from)."""
        if not self.has_index:
            return None
        conn = self._open()
        try:
            return latest_complete(conn)
        finally:
            conn.close()

    def last_index_job(self) -> JobRow | None:
        """The newest entry of the job journal (accepted/progress/completed/unavailable/
        failed), including jobs that never produced a snapshot."""
        if not self.has_index:
            return None
        conn = self._open()
        try:
            return latest_job(conn)
        finally:
            conn.close()

    def events(self, after: int = 0) -> list[Event]:
        """Journal events newer than id `after` (written by any process)."""
        from spyglass.index.jobs import events_since
        if not self.has_index:
            return []
        conn = self._open()
        try:
            return events_since(conn, after)
        finally:
            conn.close()

    def wait_for_update(self, after: int, timeout: float = 30.0) -> Event | None:
        """Block until a `code_graph_updated` event newer than id `after` is journaled by
        any process (a CLI, a server, another session), or `timeout` passes."""
        from spyglass.index.jobs import wait_for_event
        if not self.has_index:
            return None
        conn = self._open()
        try:
            return wait_for_event(conn, after, timeout=timeout)
        finally:
            conn.close()

    def limit_files(self, paths: Sequence[object]) -> None:
        client_paths.check_count(paths, self.config.limits.max_files_per_request)

    # -- change impact (query/changes.py, explore.py) -------------------------------------------
    def blast_radius(self, targets: list[str], diff: str | None = None, depth: int = 3,
                     lsp_budget_ms: int | None = None) -> ToolResult:
        """Affected symbols, files, packages and tests of a change (targets, a diff, or the
        workspace's changes against the snapshot), by distance, each with its evidence; the
        distance-1 users checked by a configured language server (query/escalate.py)."""
        from spyglass.query import changes
        with self.lock:
            ans = self.answer()

            def refine(cs: ChangeSet, walk: Callable[[], Radius]) -> Radius:
                seeds = [s.d for s in cs.seeds if not s.removed]
                return self.escalator.radius(ans.view(), seeds, lsp_budget_ms, walk)
            return changes.blast_radius(ans, targets, diff, depth, refine)

    def suggest_tests(self, targets: list[str], diff: str | None = None, depth: int = 3
                      ) -> ToolResult:
        """Focused test targets for a change, each with evidence and a command."""
        from spyglass.query import changes
        with self.lock:
            return changes.suggest_tests(self.answer(), targets, diff, depth)

    def explore(self, query: str, budget: int = 2000, path: str | None = None) -> ToolResult:
        """Likely symbols for a query with callers, callees, references, tests and
        diagnostics, within a token budget; citations only, never source."""
        from spyglass.query import explore
        with self.lock:
            return explore.explore(self.answer(), query, budget, path)

    # -- run views (query/baseline.py) -----------------------------------------------------
    def overlay_diff(self) -> ToolResult:
        """The workspace overlay against the baseline snapshot: one FileChange per path;
        extra `base` (BaseSnapshot), `workspace_digest`, `summary` (OverlaySummary)."""
        from spyglass.query import baseline
        from spyglass.query.changeset import from_workspace
        with self.lock:
            view = self.view()
            base = baseline.base_of(view)
            if base is None:
                raise IndexUnavailable("no baseline snapshot yet: index the repository first")
            owners: dict[tuple[str, str], str] = {}
            if view.changes.added or view.changes.modified or view.changes.deleted:
                for seed in from_workspace(self.answer()).seeds:
                    if not seed.removed:
                        owners.setdefault((seed.d.path, seed.d.full), seed.why)
            files, truncated = baseline.overlay_files(
                view, self.config.limits.max_files_per_request, owners,
                lambda d, uncertain, why: self.def_location(d, uncertain, why))
            analysed = [f.path for f in files if f.definitions is not None
                        and f.status != "deleted"]
            return ToolResult(tuple(files), truncated, self.coverage(analysed or None),
                              touched(self.provenance(), files), (("base", base[0]),
                                                  ("workspace_digest", view.changes.digest()),
                                                  ("summary", base[1])))

    def diagnostics_summary(self) -> DiagnosticsSummary:
        """Parse diagnostics of every analysed file in the view, bounded (the web summary)."""
        from spyglass.query import baseline
        with self.lock:
            return baseline.diagnostics_summary(self.view())


def _has_table(conn: Conn, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() \
        is not None


def _start_quietly(bridge: Bridge) -> None:
    from spyglass.bridge.manager import BridgeDown
    try:
        bridge.client(180.0)
    except BridgeDown:
        pass  # status and the answers' notes name the reason


__all__ = ["CodeIntel", "display", "module_symbol", "repo_name"]


# -- repository files for the front ends (`spyglass init`) ------------------------------------
def repository_file_kind(root: Path, rel: str) -> str | None:
    """What the root-relative `rel` is ("file", "dir", "symlink", "special"), links not
    followed; None when absent (index/confined.py)."""
    return confined.kind(root, rel)


def read_repository_file(root: Path, rel: str, max_bytes: int) -> bytes:
    """The bytes of a plain root-relative file, read through descriptors only; raises
    `confined.Refused` (an OSError) with the reason otherwise."""
    return confined.read_bytes(root, rel, max_bytes)


def write_repository_file(root: Path, rel: str, data: bytes) -> None:
    """Write a root-relative file atomically through the one writer (index/writer.py);
    raises `IndexUnavailable` with the reason when a link or non-folder is in the way."""
    writer.write_file(root, rel, data)


# -- the team store's queue (docs/team.md) ------------------------------------------------

def _queued(job: Job) -> QueuedJob:
    return QueuedJob(job.id, job.ref, job.state, job.attempts, job.worker, job.snapshot,
                     job.error)


def enqueue_job(url: str, repo: str, ref: str) -> Job:
    """Queue an index job of `repo` at `ref` in the team store (or the same one waiting)."""
    from spyglass.index import postgres, queue
    conn = postgres.Connection(url, "", create=True)
    try:
        return queue.enqueue(conn, repo, ref)
    finally:
        conn.close()


def run_worker(url: str, repos: dict[str, Path], config: Config, *, once: bool, poll: float,
         lease: float, name: str, log: Callable[[str], None]) -> int:
    """Take and build jobs of `repos` until stopped (index/queue.py); the jobs done."""
    from spyglass.index import queue
    return queue.work(url, repos, config, once=once, poll=poll, lease=lease, name=name,
                      log=log)
