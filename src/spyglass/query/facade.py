"""CodeIntel: the one public query API; every tool, command and endpoint goes through it."""

from __future__ import annotations

import importlib.metadata
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Self

from spyglass.config import Config, load_config
from spyglass.errors import BadInput, IndexUnavailable
from spyglass.index import gitcall
from spyglass.index.builder import Progress
from spyglass.index.jobs import Event, events_since, run_index, wait_for_event
from spyglass.index.store import (
    SCHEMA,
    JobRow,
    SnapshotRow,
    connect,
    find_store,
    latest_job,
    latest_snapshot,
    locate,
)
from spyglass.query import candidates, dispatch, related
from spyglass.query import files as file_ops
from spyglass.query import paths as client_paths
from spyglass.query import symbols as sym
from spyglass.query.display import display, module_symbol
from spyglass.query.results import DefRow, DiagnosticsSummary
from spyglass.query.symbols import RefRow
from spyglass.query.view import View
from spyglass.syntax.langpack import all_packs, pack_for_path, unsupported_language
from spyglass.types import CodeLocation, Coverage, Provenance, Skipped, ToolResult

MAX_SKIPPED_LISTED = 50


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


class CodeIntel:
    """Facade over one repository: open it, then ask questions. Thread-safe (one lock)."""

    def __init__(self, start: Path | str = ".", *, config: Config | None = None,
                 root: Path | None = None) -> None:
        self.start = Path(start).resolve()
        # root: the workspace (confinement root); store_root: where `.spyglass/` lives
        # (shared by every worktree of a git repository).
        self.root, self.store_root = locate(self.start, root)
        self.config = config or load_config(repo_root=self.root)
        self.repo = repo_name(self.store_root)  # one name for every worktree
        # Leaving a tool call ends the view's read transaction: one store state per answer.
        self.lock = CallLock(self._end_read)
        self._conn: sqlite3.Connection | None = None
        self._view: View | None = None

    # -- plumbing --------------------------------------------------------------------------
    @property
    def has_index(self) -> bool:
        return find_store(self.store_root) == self.store_root

    def _end_read(self) -> None:
        if self._view is not None:
            self._view.end_read()

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            if self.has_index:
                self._conn = connect(self.store_root)
            else:
                self._conn = sqlite3.connect(":memory:", check_same_thread=False)
                self._conn.executescript(SCHEMA)
        return self._conn

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
                self._view = View(self.root, self._connection(), self.config, self.repo)
            self._view.refresh()
            return self._view

    def rel_path(self, path: str) -> str:
        """A client path (relative to the root, or absolute) as a root-relative path.
        Anything resolving outside the root, symlinks included, is refused before reading
        (query/paths.py); reads then go through index/confined.py."""
        return client_paths.resolve(self.root, path)

    # -- envelope --------------------------------------------------------------------------
    def provenance(self) -> Provenance:
        view = self._view
        snap = view.snapshot if view else None
        packs = all_packs()
        mismatch = view.mismatch if view else None
        return Provenance(
            repo=self.repo, ref=snap.ref if snap else "working-tree",
            commit=snap.commit if snap else None,
            indexed_at=snap.indexed_at if snap else None,
            workspace_digest=view.changes.digest() if view else None,
            tree_sitter=importlib.metadata.version("tree-sitter"),
            grammars=tuple((p.name, f"{p.grammar_module} {p.grammar_version}")
                           for p in packs.values()),
            query_packs=tuple((p.name, p.pack_version) for p in packs.values()),
            worktree_mismatch=mismatch,
        )

    def coverage(self, paths: list[str] | None = None) -> Coverage:
        """Repository-wide coverage, or coverage of the given paths."""
        view = self._view
        assert view is not None
        analysed: list[str] = []
        skipped: list[Skipped] = []
        unsupported: Counter[str] = Counter()
        if paths is None:
            files = [(f.path, f.skipped) for f in view.disk_files()]
        else:
            files = [(p, None) for p in paths]
        langs: set[str] = set()
        for path, reason in files:
            pack = pack_for_path(path)
            if reason is None and path in view.live_skipped:
                reason = view.live_skipped[path]
            member = view.members.get(path)
            if reason is None and member is not None and member.skipped and pack is not None \
                    and path not in view.changes.modified:
                reason = member.skipped
            if reason is None and pack is not None:
                analysed.append(path)
                langs.add(pack.name)
                continue
            lang = unsupported_language(path)
            if lang:
                unsupported[lang] += 1
                reason = reason or f"unsupported language: {lang}"
            skipped.append(Skipped(path, reason or "not source code"))
        limitations = [f"{lang} is not supported: {n} file(s) not analysed"
                       for lang, n in unsupported.most_common()]
        if not analysed:
            supported = ", ".join(sorted(all_packs()))
            limitations.append(f"no supported source files here (supported: {supported})")
        important = [s for s in skipped if s.reason != "not source code"] or skipped
        return Coverage(analysed=len(analysed),
                        analysed_files=tuple(analysed[:MAX_SKIPPED_LISTED]) if paths else (),
                        skipped=tuple(important[:MAX_SKIPPED_LISTED]),
                        limitations=tuple(limitations), languages=tuple(sorted(langs)))

    def _envelope(self, results: list[object], paths: list[str] | None = None,
                  extra: tuple[tuple[str, object], ...] = (), notes: tuple[str, ...] = ()
                  ) -> ToolResult:
        limit = self.config.limits.max_matches_per_request
        coverage = self.coverage(paths)
        if notes:
            coverage = replace(coverage, limitations=coverage.limitations + notes)
        return ToolResult(tuple(results[:limit]), len(results) > limit, coverage,
                          self.provenance(), extra)

    def location(self, path: str, start: int, end: int, symbol: str, kind: str, source: str,
                 stale: bool, uncertain: bool = False, evidence: str = "") -> CodeLocation:
        view = self._view
        snap = view.snapshot if view else None
        cached = source == "cached-index"
        return CodeLocation(
            repo=self.repo, ref=snap.ref if snap else "working-tree", path=path,
            start_line=start, end_line=end, symbol=symbol, kind=kind,
            source="cached-index" if cached else "text-fallback",
            indexed_at=snap.indexed_at if (cached and snap) else None,
            stale=stale, uncertain=uncertain, evidence=evidence,
        )

    def def_location(self, d: DefRow, uncertain: bool = False, evidence: str = ""
                     ) -> CodeLocation:
        return self.location(d.path, d.start_line, d.end_line, display(d), d.kind, d.source,
                             d.stale, uncertain, evidence)

    # -- tools -----------------------------------------------------------------------------
    def find_symbol(self, name: str, kind: str | None = None, path: str | None = None
                    ) -> ToolResult:
        with self.lock:
            view = self.view()
            rel = self.rel_path(path) if path else None
            defs = sym.find_defs(view, name, kind, rel)
            return self._envelope([self.def_location(d) for d in defs])

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
            raise BadInput(f"no definition named {name!r}; try code_find_symbol with a "
                           "pattern such as '*" + name.split(".")[-1] + "*'")
        return defs

    def _check_line(self, rel: str, line: int) -> None:
        if line < 1:
            raise BadInput("line numbers are 1-based")
        data = client_paths.read(self.root, rel, self.config.limits.max_file_bytes)
        count = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        if line > max(count, 1):
            raise BadInput(f"line {line} is out of range: {rel} has {count} lines")

    def references(self, name: str | None = None, path: str | None = None,
                   line: int | None = None, column: int | None = None,
                   include_declaration: bool = False, exact_only: bool = False) -> ToolResult:
        with self.lock:
            targets = self._targets(name, path, line, column)
            locations, notes = self._reference_locations(targets, include_declaration,
                                                         exact_only, calls_only=False)
            return self._envelope(list(locations), notes=notes)

    def callers(self, name: str | None = None, path: str | None = None, line: int | None = None,
                column: int | None = None, exact_only: bool = False) -> ToolResult:
        with self.lock:
            targets = self._targets(name, path, line, column)
            locations, notes = self._reference_locations(targets, False, exact_only,
                                                         calls_only=True)
            return self._envelope(list(locations), notes=notes)

    def _reference_locations(self, targets: list[DefRow], include_declaration: bool,
                             exact_only: bool, calls_only: bool
                             ) -> tuple[list[CodeLocation], tuple[str, ...]]:
        """The sites, and notes on name-matched sites left out: members used on parameters
        without a type annotation (most hold other classes' objects), counted not listed."""
        view = self.view()
        unlisted: dict[tuple[str, int, int], RefRow] = {}
        several = len(targets) > 1
        cands = ", ".join(f"{d.path}:{d.start_line}" for d in targets[:5])
        out: dict[tuple[str, int, int], CodeLocation] = {}
        cap_notes: list[str] = []
        for d in targets:
            if include_declaration and not calls_only:
                out[(d.path, d.name_line, -1)] = self.def_location(d)
            names = sym.closure(view, d)
            is_call = sym.call_filter(view, d)  # a property is called by reading it
            rows: list[tuple[RefRow, bool, str]] = []
            found = sym.exact_refs(view, names)
            cls = sym.constructed_class(view, d)
            if cls is not None:  # `new C()` calls C's constructor
                found += [r for r in sym.exact_refs(view, sym.closure(view, cls))
                          if r.role == "call"]
            declared = sym.declaration_sites(d.language, include_declaration)
            if "redefinition" not in declared:
                found += _outside_stubs(d, sym.redefinitions(view, d), include_declaration)
            linked = [] if exact_only else related.related_sites(view, d, names, calls_only)
            keep = sym.site_filter(view, d, declared)
            found = [r for r in found if keep(r)]
            linked = [(r, why) for r, why in linked if keep(r)]
            through = {} if exact_only else dispatch.dispatched(view, d)
            for r in sym.exact_refs(view, set(through) - names):
                if keep(r):
                    rows.append((r, True, f"{through[r.target or '']}; resolved to {r.target}"))
            if not exact_only:
                rows += [(r, True, why) for r, why in dispatch.predeclared_sites(view, d)
                         if keep(r)]
            for r in found:
                if r.conf == "exact" and several and exact_only:
                    continue  # bound, but to one of several candidates: not exact
                if r.conf == "exact":
                    rows.append((r, several, f"{len(targets)} candidate definitions: {cands}"
                                 if several else ""))
                elif not exact_only:
                    why = f"inferred ({r.head.split(':')[0]} binding): resolved to {r.target}"
                    rows.append((r, True, why))
            rows += [(r, True, why) for r, why in linked]
            if not exact_only:
                loose: list[RefRow] = []
                for r in sym.unresolved_refs(view, d):
                    if r.head != sym.PARAM:
                        loose.append(r)
                    elif not calls_only or is_call(r) is not None:
                        unlisted[(r.path, r.line, r.col)] = r
                if loose:
                    owner = sym.owner_class(view, d) if d.kind in sym.MEMBER_KINDS else None
                    loose, capped = candidates.rank_and_cap(d, owner.name if owner else "",
                                                            loose)
                    if capped:
                        cap_notes.append(capped)
                    n_same = len(sym.find_defs(view, d.name))
                    for r in loose:
                        why = ("receiver type unknown" if r.qualifier else "unresolved name")
                        why = (f"{why}; matched by name: {n_same} definition(s) "
                               f"named {d.name!r}")
                        rows.append((r, True, why))
            for r, uncertain, evidence in rows:
                how = is_call(r) if calls_only else None
                if calls_only and how is None:
                    continue
                if how == "indirect":
                    uncertain, evidence = True, ("used as a value (a callback or handler), "
                                                 "called indirectly from here")
                key = (r.path, r.line, r.col)
                if key in out and not out[key].uncertain:
                    continue
                if calls_only:
                    caller = sym.enclosing(view, r)
                    symbol = display(caller) if caller else module_symbol(r.path)
                    kind = caller.kind if caller else "module"
                else:
                    symbol, kind = display(d), r.role
                out[key] = self.location(r.path, r.line, r.line, symbol, kind, r.source,
                                         r.stale, uncertain, evidence)
        listed = sorted(out.values(), key=lambda c: (c.path, c.start_line))
        return listed, tuple(cap_notes) + unlisted_note(
            [r for k, r in sorted(unlisted.items()) if k not in out], calls_only)

    def structure(self, path: str) -> ToolResult:
        with self.lock:
            rel = self.rel_path(path)
            return file_ops.structure(self, rel)

    def context(self, spans: list[tuple[str, int, int]]) -> ToolResult:
        with self.lock:
            self.view()
            return file_ops.context(self, spans)

    def diagnostics(self, paths: list[str]) -> ToolResult:
        with self.lock:
            self.view()
            return file_ops.diagnostics(self, paths)

    def ast_query(self, query: str, paths: list[str]) -> ToolResult:
        with self.lock:
            self.view()
            return file_ops.ast_query(self, query, paths)

    def status(self, tools: tuple[str, ...] = ()) -> ToolResult:
        with self.lock:
            return file_ops.status(self, tools or self.config.capabilities)

    # -- indexing --------------------------------------------------------------------------
    def index(self, ref: str | None = None, progress: Progress | None = None, *,
              wait: bool = True, on_wait: Callable[[str], None] | None = None) -> SnapshotRow:
        """Build or update the snapshot under the writer lock (one writer at a time; readers
        keep the previous snapshot until the new one is complete), then collect garbage."""
        try:
            return run_index(self.store_root, self.root, self.config, self.repo, ref, progress,
                             wait=wait, on_wait=on_wait)
        finally:
            with self.lock:
                if self._conn is not None:
                    self._conn.close()
                self._conn = None
                self._view = None

    def last_job(self) -> SnapshotRow | None:
        """The newest snapshot row in any state (the current or last build)."""
        if not self.has_index:
            return None
        conn = connect(self.store_root)
        try:
            return latest_snapshot(conn)
        finally:
            conn.close()

    def last_index_job(self) -> JobRow | None:
        """The newest entry of the job journal (accepted/progress/completed/unavailable/
        failed), including jobs that never produced a snapshot."""
        if not self.has_index:
            return None
        conn = connect(self.store_root)
        try:
            return latest_job(conn)
        finally:
            conn.close()

    def events(self, after: int = 0) -> list[Event]:
        """Journal events newer than id `after` (written by any process)."""
        if not self.has_index:
            return []
        conn = connect(self.store_root)
        try:
            return events_since(conn, after)
        finally:
            conn.close()

    def wait_for_update(self, after: int, timeout: float = 30.0) -> Event | None:
        """Block until a `code_graph_updated` event newer than id `after` is journaled by
        any process (a CLI, a server, another session), or `timeout` passes."""
        if not self.has_index:
            return None
        conn = connect(self.store_root)
        try:
            return wait_for_event(conn, after, timeout=timeout)
        finally:
            conn.close()

    def limit_files(self, paths: Sequence[object]) -> None:
        client_paths.check_count(paths, self.config.limits.max_files_per_request)

    # -- change impact (query/blast.py, testmap.py, explore.py) ------------------------------
    def blast_radius(self, targets: list[str], diff: str | None = None, depth: int = 3
                     ) -> ToolResult:
        """Affected symbols, files, packages and tests of a change (targets, a diff, or the
        workspace's changes against the snapshot), by distance, each with its evidence."""
        from spyglass.query import blast
        with self.lock:
            self.view()
            return blast.blast_radius(self, targets, diff, depth)

    def suggest_tests(self, targets: list[str], diff: str | None = None, depth: int = 3
                      ) -> ToolResult:
        """Focused test targets for a change, each with evidence and a command."""
        from spyglass.query import testmap
        with self.lock:
            self.view()
            return testmap.suggest_tests(self, targets, diff, depth)

    def explore(self, query: str, budget: int = 2000, path: str | None = None) -> ToolResult:
        """Likely symbols for a query with callers, callees, references, tests and
        diagnostics, within a token budget; citations only, never source."""
        from spyglass.query import explore
        with self.lock:
            self.view()
            return explore.explore(self, query, budget, path)

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
                for seed in from_workspace(self).seeds:
                    if not seed.removed:
                        owners.setdefault((seed.d.path, seed.d.full), seed.why)
            files, truncated = baseline.overlay_files(
                view, self.config.limits.max_files_per_request, owners,
                lambda d, uncertain, why: self.def_location(d, uncertain, why))
            analysed = [f.path for f in files if f.definitions is not None
                        and f.status != "deleted"]
            return ToolResult(tuple(files), truncated, self.coverage(analysed or None),
                              self.provenance(), (("base", base[0]),
                                                  ("workspace_digest", view.changes.digest()),
                                                  ("summary", base[1])))

    def diagnostics_summary(self) -> DiagnosticsSummary:
        """Parse diagnostics of every analysed file in the view, bounded (the web summary)."""
        from spyglass.query import baseline
        with self.lock:
            return baseline.diagnostics_summary(self.view())


MAX_UNLISTED_SHOWN = 3


def _outside_stubs(d: DefRow, rows: list[RefRow], listed: bool) -> list[RefRow]:
    """Redefinitions of `d` (a call only where is_call says so), less those that pair a
    stub with its module (manifest `declaration_files`, Python's `.pyi`): a stub and the
    module it describes are one symbol, the stub's lines declarations, listed only with
    the declaration."""
    stubs = sym.manifest_value(d.language, "declaration_files")
    if listed or not isinstance(stubs, list) or not stubs:
        return rows
    suffixes = tuple(str(x) for x in stubs)
    if d.path.endswith(suffixes):
        return []
    return [r for r in rows if not r.path.endswith(suffixes)]


def unlisted_note(rows: list[RefRow], calls: bool) -> tuple[str, ...]:
    """One limitation per member name for name-matched sites on parameters without a type
    annotation (or values taken from them: `c = client.get()`), which the answer leaves
    out: how many, why, and the first few."""
    by_name: dict[str, list[RefRow]] = {}
    for r in rows:
        by_name.setdefault(r.name, []).append(r)
    notes = []
    for name, sites in sorted(by_name.items()):
        what = "call" if calls else "use"
        first = ", ".join(f"{r.path}:{r.line}" for r in sites[:MAX_UNLISTED_SHOWN])
        more = ", ..." if len(sites) > MAX_UNLISTED_SHOWN else ""
        notes.append(f"{len(sites)} {what}(s) of `.{name}` on parameters without a type "
                     f"annotation (or values taken from them) not listed: the receiver's "
                     f"type is unknown and such parameters mostly hold other objects "
                     f"({first}{more})")
    return tuple(notes)
