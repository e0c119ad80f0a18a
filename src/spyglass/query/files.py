"""File questions: outline, live source spans, diagnostics, ad hoc AST queries, status."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

from spyglass.errors import BadInput
from spyglass.index import confined, filenames
from spyglass.index import source as src
from spyglass.index.probe import Probe
from spyglass.index.units import binary_or_undecodable
from spyglass.query import coverage, unparsed
from spyglass.query import paths as client_paths
from spyglass.query import symbols as sym
from spyglass.query.adhoc import AdHocQuery
from spyglass.query.answer import languages_only, provenance
from spyglass.query.results import AstMatch, DiagnosticItem, LanguageCount, SourceSpan, StatusReport
from spyglass.syntax.budget import Budget
from spyglass.syntax.langpack import pack_for_path, unsupported_language
from spyglass.syntax.parsing import parse, syntax_errors
from spyglass.types import BridgeStatus, Coverage, PreciseStatus, ToolResult

if TYPE_CHECKING:
    from pathlib import Path

    from spyglass.config import Config, IndexRules
    from spyglass.index.store import JobRow
    from spyglass.query.answer import Answer


def _expand(ci: Answer, rel: str) -> list[str]:
    """A file, or the supported files directly and recursively under a folder."""
    if ci.view().detached:  # no checkout here: the snapshot's files are the repository
        return _expand_snapshot(ci, rel)
    found = confined.kind(ci.root, rel)
    if found == "file":
        return [rel]
    if found is None:
        raise BadInput(f"{client_paths.named(rel or '.')} does not exist in the repository")
    if found != "dir":
        what = "a symbolic link" if found == "symlink" else "not a regular file"
        raise BadInput(f"{client_paths.named(rel)} is not read: {what}")
    prefix = f"{rel}/" if rel else ""
    view = ci.view()
    paths = sorted(f.path for f in view.disk_files()
                   if f.path.startswith(prefix) and f.skipped is None and pack_for_path(f.path))
    return paths


def _expand_snapshot(ci: Answer, rel: str) -> list[str]:
    """`_expand` over the files of a snapshot (a repository of the team store answering
    without a checkout)."""
    files = ci.view().disk_files()
    if any(f.path == rel for f in files):
        return [rel]
    prefix = f"{rel}/" if rel else ""
    inside = [f for f in files if f.path.startswith(prefix)]
    if not inside:
        raise BadInput(f"{client_paths.named(rel or '.')} does not exist in the repository")
    return sorted(f.path for f in inside if f.skipped is None and pack_for_path(f.path))


def _expand_all(ci: Answer, paths: list[str]) -> list[str]:
    """Every client path expanded; their count and shapes are checked before any is
    resolved, the expanded count after."""
    rels = _expanded(ci, paths)
    ci.limit_files(rels)
    return rels


def _expanded(ci: Answer, paths: list[str]) -> list[str]:
    """Every client path expanded to files (the start dir for none), after checking
    their count and shapes; the expanded count is the caller's to bound."""
    ci.limit_files(paths)
    for p in paths:
        if p:
            client_paths.check(p)
    rels: list[str] = []
    for p in paths or [""]:
        rels += _expand(ci, ci.rel_path(p) if p else "")
    return rels


def structure(ci: Answer, rel: str) -> ToolResult:
    view = ci.view()
    paths = _expand(ci, rel)
    if len(paths) > ci.config.limits.max_files_per_request:
        direct = [p for p in paths if "/" not in p[len(rel) + 1 if rel else 0:]]
        paths = direct if direct else paths
        ci.limit_files(paths)
    results: list[object] = []
    limit = ci.config.limits.max_matches_per_request
    for path in paths:  # one past the limit is enough for the envelope to mark truncation
        for d in sym.defs_in_file(view, path):
            results.append(ci.def_location(d))
            if len(results) > limit:
                break
        if len(results) > limit:
            break
    return ci.envelope(results, paths or [rel])


def _read_live(ci: Answer, rel: str) -> bytes:
    return client_paths.read(ci.root, rel, ci.config.limits.max_file_bytes)


def context(ci: Answer, spans: list[tuple[str, int, int]]) -> ToolResult:
    ci.limit_files(spans)
    for span in spans:
        client_paths.check(span[0])
    budget = ci.config.limits.max_capture_bytes
    results: list[object] = []
    paths: list[str] = []
    for path, start, end in spans:
        rel = ci.rel_path(path)
        data = _read_live(ci, rel)
        if binary_or_undecodable(data):
            raise BadInput(f"{client_paths.named(rel)} is not a text file")
        lines = data.decode("utf-8").splitlines(keepends=True)
        if start < 1 or start > max(len(lines), 1):
            raise BadInput(f"line {start} is out of range: {rel} has {len(lines)} lines")
        end = min(max(end, start), len(lines))
        text = "".join(lines[start - 1:end])
        raw = text.encode()
        truncated = len(raw) > budget
        if truncated:
            text = raw[:budget].decode("utf-8", "ignore")
            end = start + text.count("\n")
        results.append(SourceSpan(rel, start, end, hashlib.sha1(data).hexdigest(), text,
                                  truncated))
        paths.append(rel)
    return ci.envelope(results, paths)


def _first_files(ci: Answer, paths: list[str]) -> tuple[list[str], tuple[str, ...]]:
    """Every client path expanded, cut to the first max_files_per_request files (in path
    order), with the note counting the rest (none when nothing was cut). More paths than
    that named by the client are refused before any is looked at (a bound on the request,
    docs/security.md); a folder holding more is answered in part."""
    limit = ci.config.limits.max_files_per_request
    rels = list(dict.fromkeys(_expanded(ci, paths)))
    if len(rels) <= limit:
        return rels, ()
    return rels[:limit], ((f"{len(rels)} files asked for: the first {limit} (in path order) "
                          f"were checked, {len(rels) - limit} were not "
                          "(max_files_per_request); ask for a sub-folder to see them"),)


def diagnostics(ci: Answer, paths: list[str]) -> ToolResult:
    rels, cut = _first_files(ci, paths)
    results: list[object] = []
    for rel in rels:
        pack = pack_for_path(rel)
        if pack is None:
            continue
        try:
            data = _read_live(ci, rel)
        except BadInput as exc:  # changed since it was listed (a link now, grown, gone)
            results.append(DiagnosticItem(rel, 1, 1, 1, "warning", f"skipped: {exc}"))
            continue
        reason = binary_or_undecodable(data)
        if reason:
            results.append(DiagnosticItem(rel, 1, 1, 1, "warning", f"skipped: {reason}"))
            continue
        pack = pack_for_path(rel, data) or pack  # a C++ `.h`: the C++ grammar's errors
        for g in syntax_errors(pack, data):
            results.append(DiagnosticItem(rel, g.line, g.end_line, g.col + 1, g.severity,
                                          g.message))
    answer = ci.envelope(results, rels, notes=cut)
    return replace(answer, truncated=True) if cut else answer


SHARE_SAMPLE_SECONDS = 0.02  # a parse this long tells the thread's share of a core


def ast_query(ci: Answer, query: str, paths: list[str]) -> ToolResult:
    adhoc = AdHocQuery(query)  # regex predicates on RE2, shape limits (docs/security.md)
    rels = _expand_all(ci, paths)
    limit = ci.config.limits.max_matches_per_request
    budget = ci.config.limits.max_capture_bytes
    results: list[object] = []
    for rel in rels:
        pack = pack_for_path(rel)
        if pack is None:
            continue
        compiled = adhoc.compiled(pack.name, pack.language)
        if adhoc.remaining() <= 0:
            adhoc.timed_out = True
            break
        try:
            data = _read_live(ci, rel)
        except BadInput:
            if len(rels) == 1:
                raise
            continue  # one file of a folder changed since it was listed: as for binary files
        if binary_or_undecodable(data):
            continue
        if (claimed := pack_for_path(rel, data) or pack) is not pack:  # a C++ `.h`
            pack, compiled = claimed, adhoc.compiled(claimed.name, claimed.language)
        clock = Budget()  # parse of one file: OverBudget (a LimitExceeded) past it
        tree = parse(pack, data, clock)
        share = clock.spent / clock.wall if clock.wall >= SHARE_SAMPLE_SECONDS else 1.0
        for name, nodes in adhoc.captures(compiled, tree.root_node, limit + 1,
                                          share).items():
            for node in nodes:
                text = (node.text or b"")[:budget].decode("utf-8", "replace")
                results.append(AstMatch(rel, name, node.type, node.start_point[0] + 1,
                                        node.end_point[0] + 1, node.start_point[1] + 1,
                                        node.end_point[1] + 1, text))
                if len(results) > limit:
                    break
        if len(results) > limit or adhoc.timed_out:
            break
    results.sort(key=lambda m: (m.path, m.start_line, m.start_column))  # type: ignore[attr-defined]
    note = adhoc.limitation()
    answer = ci.envelope(results, rels, notes=(note,) if note else ())
    return replace(answer, truncated=True) if note else answer


def gitignore_note(is_git: bool, files: list[src.SourceFile], rules: IndexRules
                   ) -> tuple[str, ...]:
    """Outside a git repository `.gitignore` files are not applied (as ripgrep): said
    when the tree has some."""
    if is_git or rules.gitignore_outside_git:
        return ()
    found = [f.path for f in files if f.path.rsplit("/", 1)[-1] == ".gitignore"]
    if not found:
        return ()
    return ((f"not a git repository: {len(found)} .gitignore file(s) not applied, "
            f"{found[0]} among them (set [index] gitignore_outside_git = true to apply them)"),)


def status_unindexed(root: Path, repo: str, config: Config, tools: tuple[str, ...],
                     job: JobRow | None, store_root: Path,
                     bridges: tuple[BridgeStatus, ...] = ()) -> ToolResult:
    """Status with no completed snapshot: the files by language from the workspace's
    listing alone (nothing is read, hashed or parsed, so it is quick on any tree), and
    what the last index job did, said plainly."""
    langs: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    others: set[str] = set()
    probe = Probe(root, config.limits.max_file_bytes, config.index)
    for f in probe.files():
        pack = pack_for_path(f.path) if not f.skipped else None
        lang = unsupported_language(f.path) if pack is None and not f.skipped else None
        reason = f.skipped or (f"unsupported language: {lang}" if lang else
                               None if pack is not None else "not source code")
        if reason is None and pack is not None:
            langs[pack.name] += 1
            continue
        assert reason is not None
        head, _, tail = reason.partition(": ")
        reasons[head] += 1
        if head == "unsupported language":
            others.add(tail)
    ignored = len(probe.ignored())
    if ignored and probe.is_git:
        reasons["ignored by .gitignore"] += ignored
    if job is not None and job.state != "completed":
        hint = (f"no index: the last index job {job.state} after persisting {job.persisted} "
                "files; run `spyglass index` again (it reuses them)")
    else:
        hint = "no index: run `spyglass index` in the repository to build one"
    limits = config.limits
    report = StatusReport(
        root=str(root), repo=repo, indexed=False, snapshot_commit=None, snapshot_ref=None,
        indexed_at=None, job_state=job.state if job else None,
        job_error=job.error if job else None,
        languages=tuple(LanguageCount(k, langs[k], -1) for k in sorted(langs)),
        skipped_by_reason=tuple(sorted(reasons.items())), overlay_added=(),
        overlay_modified=(), overlay_deleted=(), fresh=False, worktree_mismatch=None,
        limits=(("max_file_bytes", limits.max_file_bytes),
                ("max_files_per_request", limits.max_files_per_request),
                ("max_matches_per_request", limits.max_matches_per_request),
                ("max_capture_bytes", limits.max_capture_bytes)),
        tools=tuple(tools), store=str(store_root / ".spyglass"), hint=hint,
        job_parsed=job.parsed if job else None, job_persisted=job.persisted if job else None,
        head=src.head(root).describe() if probe.is_git else None,
        bridges=bridges, coverage=coverage.for_languages(langs, others))
    cov = Coverage(analysed=sum(langs.values()), languages=tuple(sorted(langs)),
                   skipped_total=sum(reasons.values()),
                   limitations=gitignore_note(probe.is_git, probe.files(), config.index))
    return ToolResult((report,), False, cov, languages_only(provenance(None, repo), langs))


def status(ci: Answer, tools: tuple[str, ...], job: JobRow | None, store_root: Path,
           bridges: tuple[BridgeStatus, ...] = (),
           precise: tuple[PreciseStatus, ...] = ()) -> ToolResult:
    view = ci.view()
    snap = view.snapshot
    overlay = view.overlay()
    langs: Counter[str] = Counter()
    lines: Counter[str] = Counter()
    for language, n, total in view.conn.execute(
            "SELECT f.language, COUNT(*), COALESCE(SUM(COALESCE(u.lines, o.lines)), 0) "
            "FROM temp.vfiles f LEFT JOIN main.units u ON u.id = f.unit "
            "LEFT JOIN temp.ounits o ON o.id = f.unit GROUP BY f.language"):
        langs[str(language)] += int(n)
        lines[str(language)] += int(total)
    reasons: Counter[str] = Counter()
    others: set[str] = set()  # languages without a pack among the skipped files
    for member in view.members.values():
        if member.skipped:
            reason, _, lang = member.skipped.partition(": ")
            reasons[reason] += 1
            if reason == "unsupported language":
                others.add(lang)
    for f in view.disk_files():  # not in the snapshot (untracked, or no snapshot yet)
        if f.skipped == filenames.UNDECODABLE and f.path not in view.members:
            reasons[f.skipped] += 1
    ignored = len(view.probe.ignored())
    if ignored and view.probe.is_git:
        reasons["ignored by .gitignore"] += ignored
    prov = languages_only(ci.provenance(), langs)
    broken = unparsed.of_view(view)
    limits = ci.config.limits
    hint = ("" if snap else "no index yet: answers come from live parsing (text-fallback); "
            "run `spyglass index` in the repository to build one")
    report = StatusReport(
        root=str(ci.root), repo=ci.repo, indexed=snap is not None,
        snapshot_commit=snap.commit if snap else None,
        snapshot_ref=snap.ref if snap else None,
        indexed_at=snap.indexed_at if snap else None,
        job_state=job.state if job else None, job_error=job.error if job else None,
        languages=tuple(LanguageCount(k, langs[k], lines[k], broken.files[k], broken.errors[k])
                        for k in sorted(langs)),
        skipped_by_reason=tuple(sorted(reasons.items())),
        overlay_added=tuple(view.changes.added), overlay_modified=tuple(view.changes.modified),
        overlay_deleted=tuple(view.changes.deleted),
        fresh=not view.changes.paths,
        worktree_mismatch=prov.worktree_mismatch,
        limits=(("max_file_bytes", limits.max_file_bytes),
                ("max_files_per_request", limits.max_files_per_request),
                ("max_matches_per_request", limits.max_matches_per_request),
                ("max_capture_bytes", limits.max_capture_bytes)),
        tools=tuple(tools), store=str(store_root / ".spyglass"), hint=hint,
        snapshot_ref_source=snap.ref_source if snap else None,
        head=view.head.describe() if view.probe.is_git else None,
        overlay_base=overlay.base, overlay_kinds=overlay.kinds,
        overlay_renamed=overlay.renamed, workspace_digest=overlay.digest,
        job_parsed=job.parsed if job else None, job_persisted=job.persisted if job else None,
        bridges=bridges,
        coverage=coverage.for_languages(langs, others),
        parse_errors=broken.first,
        precise=precise,
    )
    notes = gitignore_note(view.probe.is_git, view.disk_files(), ci.config.index)
    return replace(ci.envelope([report], notes=notes), provenance=prov)  # the repository's languages
