"""References and callers decided by precise facts (docs/precise.md): where a SCIP document
(the precise pass's, or `spyglass index --scip`) matches its file's current content, the
index's sites there become certain when the facts hold them, are dropped (and counted)
when the facts refute them, and sites only the facts know are added. Other files keep the
index's answer, flagged as before. The target's symbols include the members it overrides
or implements (SCIP relationships), since a use through a base member reaches it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from spyglass.config import Config
from spyglass.index import confined, scip
from spyglass.query import symbols as sym
from spyglass.query.answer import location
from spyglass.query.display import display, module_symbol
from spyglass.query.results import DefRow
from spyglass.query.view import View
from spyglass.types import CodeLocation

Answer = tuple[list[CodeLocation], tuple[str, ...]]
Site = tuple[str, int]
UPWARD = scip.REL_REFERENCE | scip.REL_IMPLEMENTATION
NOT_CALLERS = frozenset({"variable", "constant", "field", "property", "parameter",
                         "attribute", "enum_member"})
IMPORT_HEADS = ("import ", "from ", "export {", "export *", "export type {")


class Freshness:
    """Which documents match their file's current content (read once per answer)."""

    def __init__(self, root: Path, config: Config, precise: scip.ScipIndex) -> None:
        self.root, self.config, self.precise = root, config, precise
        self._fresh: dict[str, bool] = {}
        self._lines: dict[str, list[str]] = {}

    def __call__(self, path: str) -> bool:
        if path not in self._fresh:
            doc = self.precise.documents.get(path)
            raw = confined.read_or_none(self.root, path, self.config.limits.max_file_bytes)
            self._fresh[path] = doc is not None and raw is not None and \
                scip.digest(raw) == doc[0]
            if self._fresh[path] and raw is not None:
                self._lines[path] = raw.decode("utf-8", "replace").splitlines()
        return self._fresh[path]

    def line(self, path: str, line: int) -> str:
        lines = self._lines.get(path, [])
        return lines[line] if 0 <= line < len(lines) else ""


def target_symbols(precise: scip.ScipIndex, fresh: Freshness, d: DefRow) -> str | None:
    """The SCIP symbol defined at the target's name (its file fresh), or None."""
    doc = precise.documents.get(d.path)
    if doc is None or not fresh(d.path):
        return None
    on_line = [o for o in doc[1] if o.definition and o.line == d.name_line - 1]
    return min(on_line, key=lambda o: abs(o.col - d.name_col)).symbol if on_line else None


def related(precise: scip.ScipIndex, seeds: set[str]) -> set[str]:
    """The seeds plus every symbol they override or implement, transitively."""
    up: dict[str, set[str]] = {}
    for a, b, bits in precise.relations:
        if bits & UPWARD and a != b:
            up.setdefault(a, set()).add(b)
    out, todo = set(seeds), list(seeds)
    while todo:
        for b in up.get(todo.pop(), ()):
            if b not in out:
                out.add(b)
                todo.append(b)
    return out


def _is_call(text: str, end_col: int) -> bool:
    rest = text[end_col:].lstrip() if end_col >= 0 else ""
    return rest.startswith(("(", "<", "`"))


def _caller(defs: list[DefRow], path: str, line: int) -> tuple[str, str]:
    inside = [d for d in defs if d.start_line <= line <= d.end_line
              and d.kind not in NOT_CALLERS and not (d.start_line == line == d.name_line)]
    if not inside:
        return module_symbol(path), "module"
    best = min(inside, key=lambda d: d.end_line - d.start_line)
    return display(best), best.kind


def merge(root: Path, config: Config, view: View, precise: scip.ScipIndex,
          targets: list[DefRow], calls: bool, answer: Answer) -> Answer:
    """The index answer decided by the precise facts where they are fresh."""
    locations, notes = answer
    fresh = Freshness(root, config, precise)
    seeds = {s for d in targets if (s := target_symbols(precise, fresh, d)) is not None}
    if not seeds:
        return answer
    undecided = len(seeds) < len({(d.path, d.name_line) for d in targets})
    wanted = related(precise, seeds)
    sites: dict[Site, tuple[str, int, int]] = {}  # site -> (tool, 0-based line, end col)
    decided: set[str] = set()
    stale: list[str] = []
    for path, (_, occs) in sorted(precise.documents.items()):
        if not fresh(path):
            if any(o.symbol in wanted for o in occs):
                stale.append(path)
            continue
        decided.add(path)
        tool = precise.tools.get(path, precise.tool)
        for o in occs:
            if o.symbol in wanted and not o.definition:
                sites.setdefault((path, o.line + 1), (tool, o.line, o.end_col))
    out: list[CodeLocation] = []
    held: set[Site] = set()
    confirmed = dropped = 0
    for loc in locations:
        key = (loc.path, loc.start_line)
        if key in sites:
            confirmed += 1
            held.add(key)
            out.append(replace(loc, uncertain=False,
                               evidence=f"precise: {sites[key][0]} (SCIP)"))
        elif loc.path in decided and not undecided and not _declaration(loc, targets):
            dropped += 1
        else:
            out.append(loc)
    added = 0
    repo = locations[0].repo if locations else view_repo(view)
    defs_cache: dict[str, list[DefRow]] = {}
    for (path, line), (tool, line0, end_col) in sorted(sites.items()):
        if (path, line) in held:
            continue
        text = fresh.line(path, line0)
        if text.lstrip().startswith(IMPORT_HEADS):
            continue  # an import or re-export names the symbol; it is not a use
        if calls:
            if not _is_call(text, end_col):
                continue
            if path not in defs_cache:
                defs_cache[path] = sym.defs_in_file(view, path)
            symbol, kind = _caller(defs_cache[path], path, line)
        else:
            symbol, kind = display(targets[0]), "reference"
        added += 1
        out.append(location(view, repo, path, line, line,
                            symbol, kind, "cached-index", False, False,
                            f"precise: {tool} (SCIP); not found by the index"))
    out.sort(key=lambda c: (c.uncertain, c.path, c.start_line))
    tools = sorted({precise.tools.get(p, precise.tool) for p in decided})
    note = (f"precise facts ({', '.join(tools)}) decided {len(decided)} file(s): "
            f"{confirmed} site(s) confirmed, {added} added, {dropped} refuted and dropped")
    if undecided:
        note += "; some targets have no precise symbol, so none of the index's sites was dropped"
    if stale:
        note += (f"; {len(stale)} file(s) changed since the pass keep the index's answer: "
                 + ", ".join(stale[:5]) + (", ..." if len(stale) > 5 else ""))
    return out, notes + (note,)


def _declaration(loc: CodeLocation, targets: list[DefRow]) -> bool:
    """The target's own definition line (listed with include_declaration): never refuted."""
    return any(loc.path == d.path and loc.start_line in (d.name_line, d.start_line)
               for d in targets)


def view_repo(view: View) -> str:
    snap = view.snapshot
    return snap.repo if snap is not None else ""


def pass_notes(view: View, targets: list[DefRow]) -> tuple[str, ...]:
    """A limitation for each of the targets' languages whose newest precise pass did not
    complete: the answer is the index's there, and why."""
    from spyglass.query.precise import INDEXERS, runs
    if view.snapshot is None or not targets:
        return ()
    langs = {i.language for i in INDEXERS for d in targets if d.language in i.languages}
    out = []
    for run in runs(view.conn, view.snapshot.id):
        if run.language in langs and run.state not in ("completed", "running"):
            out.append(f"precise pass ({run.language}, {run.tool}) {run.state}: {run.error}; "
                       "the answer is the index's")
    return tuple(out)
