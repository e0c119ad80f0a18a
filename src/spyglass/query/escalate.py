"""Escalation of references and callers to a language server (docs/bridge.md): takes the
index answer and returns it with the server's verdict — confirmed sites become `live-lsp`,
refuted ones are dropped and counted, sites only the server finds are added — or unchanged
with a note when the server cannot answer within the budget."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from spyglass.bridge.lsp import LspClient, LspError, LspTimeout, settle, utf16_col
from spyglass.bridge.manager import Bridge, BridgeDown, bridge_for
from spyglass.bridge.mcpclient import McpClient
from spyglass.config import Config, LspServer
from spyglass.errors import BridgeUnavailable
from spyglass.index import confined, scip
from spyglass.query import precise_answer, radius_verdict
from spyglass.query.display import display, module_symbol
from spyglass.query.impact import Radius
from spyglass.query.radius_verdict import doubted, folder, innermost, served
from spyglass.query.results import DefRow
from spyglass.query.view import View
from spyglass.syntax.langpack import pack_for_path
from spyglass.types import CodeLocation

Answer = tuple[list[CodeLocation], tuple[str, ...]]
Site = tuple[str, int]  # root-relative path, 1-based line
T = TypeVar("T")
LATE_GRACE = 30.0  # seconds a worker waits for a server past the question's budget
INDEX_QUIET = 0.3  # seconds without work-done progress before a server counts as indexed
RADIUS_SEEDS = 20  # changed definitions whose distance-1 users a server is asked about
CACHE_MAX = 512


def describe(server: LspServer) -> str:
    """How notes and errors name a bridge: "language server gopls (go)"."""
    kind = "MCP server" if server.protocol == "mcp" else "language server"
    return f"{kind} {server.label} ({server.language})"


@dataclass(frozen=True, slots=True)
class Question:
    """What the server is asked: positions of the targets, live content of changed files."""

    positions: tuple[tuple[str, int, int], ...]  # path, 0-based line, UTF-16 column
    calls: bool
    declaration: bool
    changed: tuple[tuple[str, str | None], ...]  # path, live text (None: deleted)
    names: tuple[tuple[str, int], ...] = ()  # MCP: each target's name, 1-based column
    unseen: tuple[str, ...] = ()  # MCP: files changed since the server read the checkout


@dataclass(frozen=True, slots=True)
class Verdict:
    """The server's sites per position asked. `uses[i]`: position i was answered from the
    server's references because it has no call hierarchy item for the target (tsc for a
    function held in a typed `let`); such sites confirm or refute the index's callers but
    never add one, since a reference need not be a call (`f = g` is not a call of g)."""

    sites: tuple[frozenset[Site], ...]
    uses: tuple[bool, ...] = ()
    # Files the server could not be given their live content (an MCP tool that takes no
    # `overlay`): its sites there are not its verdict; the index's stand.
    blind: frozenset[str] = frozenset()
    # A language server's call hierarchy answered a callers question for a target (it has
    # an item for it): its incoming calls, none included, are its verdict on the callers,
    # so the empty-answer rule ("it may not analyse this file") does not keep the index's.
    decided: bool = False

    def calls(self) -> frozenset[Site]:
        """The sites the server itself answered as the question's (calls or references)."""
        return frozenset().union(*(s for i, s in enumerate(self.sites) if not self.used(i)))

    def referenced(self) -> frozenset[Site]:
        """The sites of positions answered from references instead of a call hierarchy."""
        return frozenset().union(*(s for i, s in enumerate(self.sites) if self.used(i)))

    def used(self, i: int) -> bool:
        return i < len(self.uses) and self.uses[i]



NONE = Verdict(())


class NotOffered(Exception):
    """An MCP bridge that does not declare (or may not answer) the tool a question needs."""


@dataclass(frozen=True, slots=True)
class Asked:
    """What became of one question to a server: its sites per position, or why none."""

    server: LspServer
    label: str
    verdict: Verdict
    failure: str | None  # why the server did not answer (a note; an error when required)
    unoffered: str | None = None  # why it was not asked (a note only)


def _noted(work: Callable[[], Answer], notes: tuple[str, ...]) -> Callable[[], Answer]:
    def run() -> Answer:
        locations, before = work()
        return locations, before + notes
    return run


class Escalator:
    """One per facade: the bridges of its workspace, a cache of server verdicts keyed by
    the snapshot and the overlay's content digest, and the threads that ask."""

    def __init__(self, root: Path, config: Config, store: Path | None = None) -> None:
        self.root = root
        self.config = config
        self.store = store  # .spyglass/
        self._scip: tuple[tuple[int, str], scip.ScipIndex] | None = None
        # (connection, snapshot, its changes, data_version) -> the newest import's identity
        self._newest: tuple[tuple[object, ...], tuple[int, str] | None] | None = None
        self._cache: dict[tuple[object, ...], Verdict] = {}
        # MCP servers: the workspace's files (path -> blob) when each launch began reading it
        self._seen: dict[LspServer, tuple[int, dict[str, str]]] = {}
        # One late worker per server may wait out its grace: one more thread than servers
        # keeps a question to another server from queueing behind it.
        self._pool = ThreadPoolExecutor(max_workers=len(config.lsp) + 1,
                                        thread_name_prefix="escalate")
        self.asked = 0  # questions sent to a server (cache misses; for tests and benches)

    def server_for(self, language: str) -> LspServer | None:
        return next((s for s in self.config.lsp if language in s.languages), None)

    def bridges(self) -> list[Bridge]:
        return [bridge_for(s, self.root) for s in self.config.lsp]

    def start_all(self, wait: float) -> None:
        """Start every configured server (for `required`): BridgeUnavailable on failure."""
        for bridge in self.bridges():
            try:
                bridge.client(wait)
            except BridgeDown as exc:
                raise BridgeUnavailable(f"{describe(bridge.server)} is required but "
                                        f"unavailable: {exc}") from exc

    def answer(self, view: View, targets: list[DefRow], calls: bool, declaration: bool,
               budget_ms: int | None, index_answer: Callable[[], Answer]) -> Answer:
        """The index answer, escalated to the language server of the targets' language."""
        precise = self._scip_index(view)
        if precise is not None and targets:
            plain = index_answer
            index_answer = lambda: precise_answer.merge(self.root, self.config, view, precise,
                                                        targets, calls, plain())
        failed = precise_answer.pass_notes(view, targets)
        if failed:
            index_answer = _noted(index_answer, failed)
        (locations, notes), asked = self._escalate(view, targets, calls, declaration,
                                                   budget_ms, index_answer)
        if asked is None:
            return locations, notes
        if asked.unoffered is not None:
            note = f"{asked.label}: {asked.unoffered}; the answer is the index's"
            return locations, notes + (note,)
        if asked.failure is not None:
            return self._down(locations, notes, asked.label, asked.failure)
        return self._merge(view, targets, calls, asked.server, asked.label, asked.verdict,
                           locations, notes)

    def radius(self, view: View, seeds: list[DefRow], budget_ms: int | None,
               walk: Callable[[], Radius]) -> Radius:
        """A blast radius whose distance-1 edges are escalated like references: the
        server's references to each changed definition confirm, refute or add users."""
        server = self.server_for(seeds[0].language) if seeds else None
        asked_seeds = [d for d in seeds if server is not None and d.language in
                       server.languages][:RADIUS_SEEDS]
        radius, asked = self._escalate(view, asked_seeds, False, False, budget_ms, walk)
        if asked is None:
            return radius
        if asked.unoffered is not None:
            note = f"{asked.label}: {asked.unoffered}; distance 1 is the index's"
            radius.limits.append(note)
            radius.notes.append(note)
            return radius
        if asked.failure is not None:
            self._down([], (), asked.label, asked.failure)  # raises when required
            note = f"{asked.label} not used: {asked.failure}; distance 1 is the index's"
            radius.limits.append(note)
            radius.notes.append(note)
            return radius
        return radius_verdict.merge(view, radius, asked_seeds, asked.verdict.sites,
                                    asked.server, asked.label, len(seeds) - len(asked_seeds),
                                    asked.verdict.blind)

    def _escalate(self, view: View, targets: list[DefRow], calls: bool, declaration: bool,
                  budget_ms: int | None, work: Callable[[], T]) -> tuple[T, Asked | None]:
        """`work()` (the index's answer) while the server is asked about `targets` in a
        worker thread, within the budget; None when no server is asked."""
        budget = self.config.lsp_budget_ms if budget_ms is None else budget_ms
        server = self.server_for(targets[0].language) if targets else None
        if budget <= 0 or server is None:
            return work(), None
        bridge = bridge_for(server, self.root)
        label = describe(server)
        tool = "code_callers" if calls else "code_references"
        if server.protocol == "mcp" and tool not in server.tools:
            return work(), Asked(server, label, NONE, None, f"{tool} is not approved for it "
                                 "in the host config")
        question = self._question(view, targets, calls, declaration, server)
        if server.protocol == "mcp":
            question = replace(question, unseen=self._unseen(view, bridge))
        key = (view.snapshot.id if view.snapshot else None, view.changes.digest(),
               server, question.positions, calls, declaration, question.unseen)
        deadline = time.monotonic() + budget / 1000
        cached = self._cache.get(key)
        pending: Future[Verdict] | None = None
        if cached is None:
            pending = self._pool.submit(self._ask, bridge, question, deadline)
        value = work()
        if pending is not None:
            pending.add_done_callback(lambda f: self._keep(key, f))  # late answers too
            try:
                cached = pending.result(timeout=max(deadline - time.monotonic(), 0.0))
            except (FutureTimeout, LspTimeout):
                return value, Asked(server, label, NONE, f"no answer within {budget} ms")
            except NotOffered as exc:
                return value, Asked(server, label, NONE, None, str(exc))
            except (BridgeDown, LspError, OSError) as exc:
                return value, Asked(server, label, NONE, str(exc))
        assert cached is not None
        return value, Asked(server, label, cached, None)

    def scip_index(self, view: View) -> scip.ScipIndex | None:
        """The newest imported precise facts for the view's snapshot (callees use them)."""
        return self._scip_index(view)

    def _scip_index(self, view: View) -> scip.ScipIndex | None:
        """The SCIP import of the view's snapshot (or the newest earlier one still kept),
        reloaded when `spyglass index --scip` replaced it. Which import is newest is asked
        again only when the store changed (another connection's commit moves SQLite's
        `data_version`, this one's writes its `total_changes`): the question reads every
        document's row, milliseconds on a large import."""
        snapshot = view.snapshot.id if view.snapshot else None
        conn = view.conn
        stamp: tuple[object, ...] | None = None
        if isinstance(conn, sqlite3.Connection):  # (the team store asks each time)
            stamp = (id(conn), snapshot, conn.total_changes,
                     conn.execute("PRAGMA data_version").fetchone()[0])
        if stamp is not None and self._newest is not None and self._newest[0] == stamp:
            found = self._newest[1]
        else:
            found = scip.ScipIndex.newest(conn, snapshot)
            self._newest = (stamp, found) if stamp is not None else None
        if found is None:
            return None
        if self._scip is None or self._scip[0] != found:
            self._scip = (found, scip.ScipIndex.load(view.conn, found[0]))
        return self._scip[1]

    def _keep(self, key: tuple[object, ...], done: Future[Verdict]) -> None:
        """Cache a verdict, also one that arrives after its question gave up waiting."""
        if done.cancelled() or done.exception() is not None:
            return
        if len(self._cache) >= CACHE_MAX:
            self._cache.clear()
        self._cache[key] = done.result()

    def _down(self, locations: list[CodeLocation], notes: tuple[str, ...], label: str,
              reason: str) -> Answer:
        if self.config.required:
            raise BridgeUnavailable(f"{label} is required but did not answer: {reason}")
        return locations, notes + (f"{label} not used: {reason}; the answer is the index's",)

    def _question(self, view: View, targets: list[DefRow], calls: bool, declaration: bool,
                  server: LspServer) -> Question:
        positions, names = [], []
        for d in targets:
            col = chars = d.name_col
            raw = confined.read_or_none(self.root, d.path, self.config.limits.max_file_bytes)
            lines = raw.split(b"\n") if raw is not None else []
            if 0 < d.name_line <= len(lines):  # name_col counts bytes; LSP counts UTF-16
                head = lines[d.name_line - 1][:d.name_col].decode("utf-8", "replace")
                col, chars = utf16_col(head, len(head)), len(head)
            positions.append((d.path, d.name_line - 1, col))
            names.append((d.name, chars + 1))
        changed: list[tuple[str, str | None]] = []
        for path in sorted(set(view.changes.added) | set(view.changes.modified)):
            pack = pack_for_path(path)
            if pack is None or pack.name not in server.languages:
                continue
            text = self._text(path)
            if text is not None:
                changed.append((path, text))
        changed += [(p, None) for p in sorted(view.changes.deleted)]
        # Bounded: a server reads files it has not opened from disk (the live content) itself.
        changed = changed[:self.config.limits.max_files_per_request]
        return Question(tuple(positions), calls, declaration, tuple(changed), tuple(names))

    def _unseen(self, view: View, bridge: Bridge) -> tuple[str, ...]:
        """The files of an external MCP server's languages whose content changed since its
        current launch began: it read the checkout then, and keeps caches (an index of its
        own) spyglass cannot see into, so it may not have seen those edits. The first
        question to a launch records the workspace's files as that launch reads them."""
        launch = bridge.launches + (bridge.state not in ("starting", "ready"))
        now = view.probe.current
        seen = self._seen.get(bridge.server)
        if seen is None or seen[0] != launch:
            self._seen[bridge.server] = (launch, dict(now))
            return ()
        then = seen[1]
        return tuple(sorted(p for p in now.keys() | then.keys()
                            if now.get(p) != then.get(p) and served(p, bridge.server)))

    def _ask(self, bridge: Bridge, q: Question, deadline: float) -> Verdict:
        """The server's sites per position. The worker waits for the server longer than
        the question waits for it (LATE_GRACE): a slow answer is cached for the next time,
        and only a server that does not answer within the grace counts as hanging."""
        self.asked += 1
        client = bridge.client(deadline - time.monotonic())
        # One question at a time per server: a late worker and the next question must not
        # interleave their document updates.
        if not client.session.acquire(timeout=max(deadline - time.monotonic(), 0.001)):
            raise BridgeDown("the server is busy with an earlier question")
        late = max(deadline, time.monotonic() + LATE_GRACE)
        try:
            if isinstance(client, McpClient):
                sites = self._ask_mcp(client, q, late)
            else:
                sites = self._ask_lsp(client, q, late)
        except LspTimeout:
            bridge.note_answer(in_time=False)
            raise
        except LspError as exc:
            raise BridgeDown(bridge.note_failure(str(exc))) from exc
        finally:
            client.session.release()
        bridge.note_answer(in_time=True)
        return sites

    def _ask_lsp(self, client: LspClient, q: Question, deadline: float) -> Verdict:
        self._sync(client, q)
        if client.progress_active > 0:
            self._indexed(client, deadline)
        sites: list[frozenset[Site]] = []
        uses: list[bool] = []
        for path, line, col in q.positions:
            text = self._text(path)
            if text is None:
                raise BridgeDown(f"cannot read {path}")
            client.sync(self.root / path, text)
            found, used = self._sites(client, q, self.root / path, line, col, deadline)
            if client.progress_active > 0:  # it began (re)indexing while answering
                self._indexed(client, deadline)
                found, used = self._sites(client, q, self.root / path, line, col, deadline)
            sites.append(frozenset(found))
            uses.append(used)
        return Verdict(tuple(sites), tuple(uses), decided=q.calls and not all(uses))

    @staticmethod
    def _indexed(client: LspClient, deadline: float) -> None:
        """Wait while the server reports work-done progress (clangd's background index
        starts with the first opened document; its answers until it ends are partial, and
        two partial answers can agree). Still indexing at the deadline: BridgeDown, which
        does not count the server as unresponsive (a restart would start indexing anew)."""
        client.wait_idle(quiet=INDEX_QUIET, limit=max(deadline - time.monotonic(), 0.0))
        if client.progress_active > 0:
            raise BridgeDown("still indexing the workspace (work-done progress); its answers "
                             "until then would be partial")

    def _ask_mcp(self, client: McpClient, q: Question, deadline: float) -> Verdict:
        """The external server's declared tool, once per target. It reads the checkout
        itself, with caches of its own: the files changed since it began reading (`unseen`)
        are given to it only when its tool declares an `overlay` argument (path -> live
        text, null for a deleted file; bounded); otherwise it is not trusted on them
        (`blind`), and not asked at all when a target's own file changed (its position may
        mean another symbol in the server's view)."""
        tool = "code_callers" if q.calls else "code_references"
        if client.tools_changed:  # notifications/tools/list_changed since the last list
            client.list_tools(max(deadline - time.monotonic(), 0.001))
        if tool not in client.tools:
            raise NotOffered(f"the server does not declare {tool}")
        takes = client.takes(tool, "overlay")
        given: dict[str, str | None] = {}
        if takes:
            given = {p: self._text(p) for p in
                     q.unseen[:self.config.limits.max_files_per_request]}
        blind = frozenset(q.unseen) - given.keys()
        own = sorted({p for p, _, _ in q.positions} & blind)
        if own:
            raise NotOffered(f"the target's file {own[0]} changed since the server read the "
                             f"workspace and its {tool} takes no unsaved content (no "
                             "`overlay` argument)")
        extra: dict[str, object] = {"overlay": given} if takes else {}
        sites: list[frozenset[Site]] = []
        for (path, line, _), (name, column) in zip(q.positions, q.names, strict=True):
            found, stale = client.sites(tool, {"path": path, "line": line + 1,
                                               "column": column, "name": name, **extra},
                                        max(deadline - time.monotonic(), 0.001))
            sites.append(frozenset(found))
            blind |= stale  # the server itself says its answer there is older than the file
        return Verdict(tuple(sites), blind=blind)

    def _text(self, rel: str) -> str | None:
        """A workspace file's live content, read confined to the root and bounded."""
        raw = confined.read_or_none(self.root, rel, self.config.limits.max_file_bytes)
        return raw.decode("utf-8", "replace") if raw is not None else None

    @staticmethod
    def _sites(client: LspClient, q: Question, full: Path, line: int, col: int,
               deadline: float) -> tuple[set[Site], bool]:
        """The server's sites for one position; True when a callers question was answered
        from references because the server has no call hierarchy item for the target."""
        if q.calls:
            calls = settle(lambda t: client.call_hierarchy(full, line, col, t), deadline)
            if calls is not None:
                return {(p, ln) for p, ln, _, _ in calls}, False
        refs = settle(lambda t: client.references(full, line, col, t, q.declaration), deadline)
        return {(p, ln) for p, ln, _ in refs}, q.calls

    def _sync(self, client: LspClient, q: Question) -> None:
        """didOpen/didChange the overlay's live content; re-send open documents that
        changed on disk since; close deleted ones."""
        live = {self.root / p: text for p, text in q.changed}
        for full in list(client.synced):
            if full not in live:
                live[full] = self._text(full.relative_to(self.root).as_posix())
        for full, text in live.items():
            if text is not None:
                client.sync(full, text)
            elif full in client.synced:
                client.notify("textDocument/didClose", {"textDocument": {
                    "uri": full.resolve().as_uri()}})
                del client.synced[full.resolve()]

    def _merge(self, view: View, targets: list[DefRow], calls: bool, server: LspServer,
               label: str, verdict: Verdict, locations: list[CodeLocation],
               notes: tuple[str, ...]) -> Answer:
        blind = verdict.blind

        def judged(path: str) -> bool:  # a file the server's verdict covers
            return served(path, server) and path not in blind
        own, uses = verdict.calls(), verdict.referenced()
        sites = own | uses
        if not sites and not verdict.decided and \
                any(not loc.uncertain and judged(loc.path) for loc in locations):
            why = (f"{label} found no sites for the target (it may not analyse this file); "
                   "the answer is the index's")
            return locations, notes + (why,)
        certain = {(loc.path, loc.start_line) for loc in locations
                   if not loc.uncertain and judged(loc.path)}
        denied = len(certain - sites)
        kept = doubted(certain, sites, {folder(d.path) for d in targets})
        out: list[CodeLocation] = []
        seen: set[Site] = set()
        confirmed = dropped = unjudged = 0
        for loc in locations:
            site = (loc.path, loc.start_line)
            if not judged(loc.path) or site in kept:
                unjudged += loc.path in blind
                out.append(loc)
            elif site in sites:
                confirmed += 1
                seen.add(site)
                how = "" if site in own else " (a reference; it has no call hierarchy here)"
                out.append(replace(loc, source="live-lsp", uncertain=False, stale=False,
                                   indexed_at=None, evidence=f"confirmed by {server.label}{how}"))
            else:
                dropped += 1
        added = 0
        for path, line in sorted(own - seen):  # a reference alone never adds a caller
            if not judged(path) or not (self.root / path).is_file():
                continue
            added += 1
            symbol, kind = display(targets[0]), "reference"
            if calls:
                caller = innermost(view, path, line)
                symbol = display(caller) if caller else module_symbol(path)
                kind = caller.kind if caller else "module"
            out.append(CodeLocation(
                repo=view.repo, ref=view.snapshot.ref if view.snapshot else "working-tree",
                path=path, start_line=line, end_line=line, symbol=symbol, kind=kind,
                source="live-lsp", indexed_at=None, stale=False, uncertain=False,
                evidence=f"found by {server.label}; not in the index's answer"))
        out.sort(key=lambda c: (c.path, c.start_line))
        if kept:
            note = (f"{label} denied {denied} of the index's {len(certain)} certain site(s): "
                    f"its view of the workspace looks incomplete (a package it could not "
                    f"load?), so the {len(kept)} in folders it reported nothing for are kept "
                    f"as the index gave them; {confirmed} site(s) confirmed (live-lsp), "
                    f"{dropped} refuted and dropped, {added} added")
        else:
            note = (f"{label}: {confirmed} site(s) confirmed (live-lsp), {dropped} index "
                    f"site(s) refuted and dropped, {added} site(s) only the server found added")
        if any(verdict.uses):
            note += (f"; for {sum(verdict.uses)} target(s) it has no call hierarchy, so the "
                     "index's callers were checked against its references (a reference "
                     "confirms or refutes a call, never adds one)")
        if blind:
            note += (f"; {len(blind)} file(s) it has not seen as they are now (changed since "
                     "it read the workspace and its tool takes no unsaved content, or flagged "
                     f"stale in its answer): their {unjudged} site(s) are the index's, "
                     "unconfirmed")
        return out, notes + (note,)
