"""What a query helper needs to build a tool answer: the view, limits, locations, coverage, envelope."""

from __future__ import annotations

import functools
import importlib.metadata
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from spyglass.config import Config
from spyglass.query import paths as client_paths
from spyglass.query import unparsed
from spyglass.query.display import display
from spyglass.query.results import DefRow, Page
from spyglass.query.view import View
from spyglass.syntax.langpack import (
    all_packs,
    grammar_versions,
    pack_for_path,
    unsupported_language,
)
from spyglass.types import Accounting, CodeLocation, Coverage, Provenance, Skipped, ToolResult

MAX_SKIPPED_LISTED = 50


@functools.cache
def _tree_sitter_version() -> str:
    """The installed py-tree-sitter's version (read once: a metadata scan costs ~5 ms)."""
    return importlib.metadata.version("tree-sitter")


def provenance(view: View | None, repo: str) -> Provenance:
    """Where an answer's facts come from (the view's snapshot and workspace, the parsers)."""
    snap = view.snapshot if view else None
    packs = grammar_versions()  # every pack's, read without loading every grammar
    return Provenance(
        repo=repo, ref=snap.ref if snap else "working-tree",
        commit=snap.commit if snap else None,
        indexed_at=snap.indexed_at if snap else None,
        workspace_digest=view.changes.digest() if view else None,
        tree_sitter=_tree_sitter_version(),
        grammars=tuple((name, f"{module} {version}") for name, module, version, _ in packs),
        query_packs=tuple((name, pack_version) for name, _, _, pack_version in packs),
        worktree_mismatch=view.mismatch if view else None,
    )


# A bound hit by several walks of one answer (the alias closure of each target): said once,
# naming the walks.
SAME_BOUND = re.compile(r"^(alias closure) of (.+?) (stopped (?:at \d+ names|after \d+ alias "
                        r"hops)[^:]*): (.*)$")
MAX_LABELS = 3


def merged(notes: Iterable[str]) -> tuple[str, ...]:
    """Notes in order, each once; the same bound hit by several walks becomes one note
    naming them (the first MAX_LABELS, then how many more)."""
    out: dict[str, list[str]] = {}
    for note in notes:
        m = SAME_BOUND.match(note)
        key = f"{m.group(1)}\0{m.group(3)}\0{m.group(4)}" if m else note
        labels = out.setdefault(key, [])
        if m:
            labels += [x for x in m.group(2).split(", ") if x not in labels]
    said = []
    for key, labels in out.items():
        if not labels:
            said.append(key)
            continue
        what, bound, rest = key.split("\0")
        more = f" (+{len(labels) - MAX_LABELS} more)" if len(labels) > MAX_LABELS else ""
        said.append(f"{what} of {', '.join(labels[:MAX_LABELS])}{more} {bound}: {rest}")
    return tuple(said)


def touched(prov: Provenance, items: Iterable[object], paths: Iterable[str] = ()
            ) -> Provenance:
    """The provenance naming only the grammars and query packs of the languages the answer
    touched: those of its results' files and of `paths` (the files it was asked about)."""
    names = {pack.name for p in [*(getattr(i, "path", None) for i in items), *paths]
             if isinstance(p, str) and (pack := pack_for_path(p)) is not None}
    return replace(prov, grammars=tuple(g for g in prov.grammars if g[0] in names),
                   query_packs=tuple(q for q in prov.query_packs if q[0] in names))


def languages_only(prov: Provenance, names: Iterable[str]) -> Provenance:
    """The provenance naming only the grammars and query packs of these languages."""
    keep = set(names)
    return replace(prov, grammars=tuple(g for g in prov.grammars if g[0] in keep),
                   query_packs=tuple(q for q in prov.query_packs if q[0] in keep))


def coverage(view: View, paths: list[str] | None = None) -> Coverage:
    """Repository-wide coverage (computed once per state of the view), or coverage of the
    given paths."""
    if paths is None:
        key = view.state_key
        memo = view.memo.get("coverage")
        if memo is not None and memo[0] == key and isinstance(memo[1], Coverage):
            return memo[1]
        files, own = view.listed_files()
        found = _coverage(view, files, own, paths)
        view.memo["coverage"] = (key, found)
        return found
    return _coverage(view, [(p, None) for p in paths], False, paths)


def _coverage(view: View, files: list[tuple[str, str | None]], own: bool,
              paths: list[str] | None) -> Coverage:
    """Coverage of `files` (path, skip reason); `own`: the reasons are the snapshot's, so
    its members need no look-up."""
    analysed: list[str] = []
    skipped: list[Skipped] = []
    unsupported: Counter[str] = Counter()
    langs: set[str] = set()
    for path, reason in files:
        pack = pack_for_path(path)
        if reason is None and path in view.live_skipped:
            reason = view.live_skipped[path]
        member = None if own else view.members.get(path)
        if reason is None and member is not None and member.skipped and pack is not None \
                and path not in view.changes.modified:
            reason = member.skipped
        if reason is None and pack is not None:
            analysed.append(path)
            langs.add(pack.name)
            continue
        lang = unsupported_language(path) if pack is None else None  # a pack wins
        if lang:
            unsupported[lang] += 1
            reason = reason or f"unsupported language: {lang}"
        skipped.append(Skipped(path, reason or "not source code"))
    limitations = [f"{lang} is not supported: {n} file(s) not analysed"
                   for lang, n in unsupported.most_common()]
    broken = unparsed.of_view(view, None if paths is None else analysed)
    if broken.files:
        limitations.append(broken.limitation())
    if not analysed:
        supported = ", ".join(sorted(all_packs()))
        limitations.append(f"no supported source files here (supported: {supported})")
    limitations += view.notes  # the store's own (a team store without this repository)
    # Documentation, data and configuration files are counted, and listed only when asked
    # for by path: a repository-wide list of them is noise in every answer.
    listed = skipped if paths else [s for s in skipped if s.reason != "not source code"]
    return Coverage(analysed=len(analysed),
                    analysed_files=tuple(analysed[:MAX_SKIPPED_LISTED]) if paths else (),
                    skipped=tuple(listed[:MAX_SKIPPED_LISTED]),
                    limitations=tuple(limitations), languages=tuple(sorted(langs)),
                    skipped_total=len(skipped))


def location(view: View | None, repo: str, path: str, start: int, end: int, symbol: str,
             kind: str, source: str, stale: bool, uncertain: bool = False, evidence: str = ""
             ) -> CodeLocation:
    snap = view.snapshot if view else None
    cached = source == "cached-index"
    return CodeLocation(
        repo=repo, ref=snap.ref if snap else "working-tree", path=path,
        start_line=start, end_line=end, symbol=symbol, kind=kind,
        source="cached-index" if cached else "text-fallback",
        indexed_at=snap.indexed_at if (cached and snap) else None,
        stale=stale, uncertain=uncertain, evidence=evidence,
    )


@dataclass(frozen=True)
class Answer:
    """One tool call's answer builder: the refreshed view, the workspace root, the limits,
    the client-path check of the facade, and the result envelope."""

    current: View
    root: Path
    repo: str
    config: Config
    rel_path: Callable[[str], str]

    def view(self) -> View:
        return self.current

    def limit_files(self, paths: Sequence[object]) -> None:
        client_paths.check_count(paths, self.config.limits.max_files_per_request)

    def provenance(self) -> Provenance:
        return provenance(self.current, self.repo)

    def coverage(self, paths: list[str] | None = None) -> Coverage:
        return coverage(self.current, paths)

    def location(self, path: str, start: int, end: int, symbol: str, kind: str, source: str,
                 stale: bool, uncertain: bool = False, evidence: str = "") -> CodeLocation:
        return location(self.current, self.repo, path, start, end, symbol, kind, source,
                        stale, uncertain, evidence)

    def def_location(self, d: DefRow, uncertain: bool = False, evidence: str = ""
                     ) -> CodeLocation:
        return self.location(d.path, d.start_line, d.end_line, display(d), d.kind, d.source,
                             d.stale, uncertain, evidence)

    def envelope(self, results: list[object], paths: list[str] | None = None,
                 extra: tuple[tuple[str, object], ...] = (), notes: tuple[str, ...] = (),
                 offset: int | None = None, accounting: Accounting | None = None
                 ) -> ToolResult:
        """Results cut at max_matches_per_request, with coverage (plus `notes`) and
        provenance. With `offset` (a tool that continues: references, callers) the answer
        is the page from `offset` on, and a `page` section says where the next one starts
        whenever the answer is a slice."""
        limit = self.config.limits.max_matches_per_request
        cov = self.coverage(paths)
        if notes:
            cov = replace(cov, limitations=cov.limitations + merged(notes))
        if accounting is not None:
            cov = replace(cov, accounting=accounting)
        start = offset or 0
        shown = results[start:start + limit]
        more = len(results) > start + limit
        if offset is not None and (start or more):
            page = Page(start, len(shown), len(results), start + limit if more else None)
            extra = (*extra, ("page", page))
        return ToolResult(tuple(shown), more, cov, touched(self.provenance(), shown, paths or ()),
                          extra)
