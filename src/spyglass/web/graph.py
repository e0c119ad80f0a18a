"""A bounded graph around a symbol or a file: one relation (callers, callees, type hierarchy)
followed to a depth, and the referencing files. The page asks for a relation by name; a
relation the facade does not offer yet is reported unavailable with the reason."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from spyglass.errors import BadInput, SpyglassError
from spyglass.query.facade import CodeIntel
from spyglass.query.results import call_lines
from spyglass.types import CodeLocation, ToolResult
from spyglass.wire import coverage_json, plain, provenance_json

MAX_CENTERS = 12
CALLABLE = frozenset({"func", "method", "class", "struct", "test", "type", "interface"})


@dataclass(frozen=True)
class Relation:
    """A graph relation: the facade method answering it and which way its edges point."""

    name: str
    method: str  # CodeIntel method taking (name, path, line, column)
    inward: bool  # True: the answer's rows point at the center (callers); False: away
    kind: str  # the edge kind
    sites: bool  # the rows are use sites inside the neighbour (callers), not definitions
    label: str


RELATIONS = {r.name: r for r in (
    Relation("callers", "callers", True, "calls", True, "callers"),
    Relation("callees", "callees", False, "calls", False, "callees"),
    Relation("hierarchy", "type_hierarchy", False, "inherits", False, "type hierarchy"),
)}


def relation_status(ci: CodeIntel) -> dict[str, dict[str, Any]]:
    """Each relation by name: available, or the reason it is not (the page disables it)."""
    out: dict[str, dict[str, Any]] = {}
    for r in RELATIONS.values():
        ok = callable(getattr(ci, r.method, None))
        out[r.name] = {"available": ok, "label": r.label,
                       "reason": None if ok else f"{r.label} are not offered by this "
                       f"version of spyglass yet (no CodeIntel.{r.method})"}
    return out


def relation(ci: CodeIntel, name: str) -> Relation:
    """The relation named by the request, or a clear 400/409-style error."""
    r = RELATIONS.get(name)
    if r is None:
        raise BadInput(f"unknown relation {name!r}; one of: {', '.join(RELATIONS)}")
    if not callable(getattr(ci, r.method, None)):
        raise BadInput(relation_status(ci)[name]["reason"])
    return r


@dataclass
class Graph:
    """Nodes and edges under construction, with the evidence sites that produced them."""

    limit: int
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    edges: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    sites: list[CodeLocation] = field(default_factory=list)
    truncated: bool = False
    notes: list[str] = field(default_factory=list)

    def node(self, node_id: str, **attrs: Any) -> bool:
        """Add a node unless present; False (and truncated) when the limit is reached."""
        if node_id in self.nodes:
            return True
        if len(self.nodes) >= self.limit:
            self.truncated = True
            return False
        self.nodes[node_id] = {"id": node_id, **attrs}
        return True

    def edge(self, source: str, target: str, kind: str, site: CodeLocation,
             lines: list[int] | None = None) -> None:
        """Add one site to an edge: its lines are the site's line, or `lines` (a callee row
        is the callee's definition: its calls are at the lines its evidence names)."""
        key = (source, target, kind)
        e = self.edges.setdefault(key, {"source": source, "target": target, "kind": kind,
                                        "count": 0, "lines": [], "uncertain": False,
                                        "evidence": ""})
        for n in lines or [site.start_line]:
            e["count"] += 1
            if len(e["lines"]) < 20 and n not in e["lines"]:
                e["lines"].append(n)
        if site.uncertain:
            e["uncertain"] = True
            e["evidence"] = e["evidence"] or site.evidence
        self.sites.append(site)


def node_id(path: str, symbol: str) -> str:
    return f"{path}#{symbol}"


def _centers(ci: CodeIntel, symbol: str | None, path: str | None, line: int | None
             ) -> tuple[list[CodeLocation], ToolResult]:
    """The definitions the graph is about: a symbol, the one at path:line, or a file's."""
    if symbol:
        found = ci.find_symbol(symbol, None, path)
        if not found.results:
            raise BadInput(f"no definition named {symbol!r}; try a pattern such as "
                           f"'*{symbol.split('.')[-1]}*'")
        return [r for r in found.results if isinstance(r, CodeLocation)], found
    if not path:
        raise BadInput("give symbol=NAME, or path=FILE (and optionally line=N)")
    outline = ci.structure(path)
    defs = [r for r in outline.results if isinstance(r, CodeLocation)]
    if line is not None:
        holding = [d for d in defs if d.start_line <= line <= d.end_line]
        if not holding:
            raise BadInput(f"no definition spans {path}:{line}")
        return [min(holding, key=lambda d: d.end_line - d.start_line)], outline
    top = [d for d in defs if d.kind in CALLABLE]
    return top or defs, outline


def _points_in(rel: Relation, site: CodeLocation) -> bool:
    """Whether the edge runs from the row to the center: callers always; in the type
    hierarchy a subtype (or an overriding member) points at what it extends."""
    if rel.name == "hierarchy":
        return site.evidence.startswith(("subtype", "overriding"))
    return rel.inward


def _neighbours(ci: CodeIntel, rel: Relation, loc: CodeLocation) -> list[CodeLocation]:
    """The rows of one relation at a definition (errors of one neighbour end that branch)."""
    try:
        found = getattr(ci, rel.method)(None, loc.path, loc.start_line, None)
    except SpyglassError:
        return []
    return [r for r in found.results if isinstance(r, CodeLocation)]


def _def_of(ci: CodeIntel, outlines: dict[str, list[CodeLocation]], caller: CodeLocation
            ) -> CodeLocation | None:
    """The definition of a calling symbol, found in the caller's own file (outlines cached)."""
    if caller.path not in outlines:
        try:
            found = ci.structure(caller.path).results
        except SpyglassError:
            found = ()
        outlines[caller.path] = [d for d in found if isinstance(d, CodeLocation)]
    for d in outlines[caller.path]:
        if d.symbol == caller.symbol and d.start_line <= caller.start_line <= d.end_line:
            return d
    return None


def build_graph(ci: CodeIntel, run_id: str, symbol: str | None = None, path: str | None = None,
                line: int | None = None, depth: int = 2, limit: int = 60,
                references: bool = True, relation_name: str = "callers") -> dict[str, Any]:
    """Nodes (definitions and files) and edges (calls, references) around the center(s)."""
    rel = relation(ci, relation_name)
    if not 1 <= depth <= 5:
        raise BadInput("depth must be between 1 and 5")
    if not 1 <= limit <= 500:
        raise BadInput("limit must be between 1 and 500")
    with ci.lock:
        centers, first = _centers(ci, symbol, path, line)
        g = Graph(limit)
        if len(centers) > MAX_CENTERS:
            g.notes.append(f"{len(centers)} definitions match; the graph starts from the first "
                           f"{MAX_CENTERS}")
            g.truncated = True
            centers = centers[:MAX_CENTERS]
        frontier: list[tuple[str, CodeLocation]] = []
        for c in centers:
            cid = node_id(c.path, c.symbol)
            if g.node(cid, symbol=c.symbol, kind=c.kind, path=c.path, start_line=c.start_line,
                      end_line=c.end_line, role="center", distance=0):
                frontier.append((cid, c))
        if len(centers) > 1:
            g.notes.append(f"{len(centers)} candidate definitions: the name is ambiguous")
        expanded: set[str] = set()
        outlines: dict[str, list[CodeLocation]] = {}
        for distance in range(1, depth + 1):
            following: list[tuple[str, CodeLocation]] = []
            for target_id, target in frontier:
                if len(g.nodes) >= g.limit:  # full: more callers could only add edges
                    g.truncated = True
                    break
                if target_id in expanded:
                    continue
                expanded.add(target_id)
                for site in _neighbours(ci, rel, target):
                    cid = node_id(site.path, site.symbol)
                    known = cid in g.nodes
                    if not g.node(cid, symbol=site.symbol, kind=site.kind, path=site.path,
                                  start_line=site.start_line, end_line=site.end_line,
                                  role=rel.name, distance=distance):
                        continue
                    if _points_in(rel, site):
                        g.edge(cid, target_id, rel.kind, site)
                    else:
                        g.edge(target_id, cid, rel.kind, site,
                               call_lines(site.evidence) if rel.name == "callees" else None)
                    if known or site.kind not in CALLABLE:
                        continue
                    d = _def_of(ci, outlines, site) if rel.sites else site
                    if d is None:
                        continue
                    g.nodes[cid].update(start_line=d.start_line, end_line=d.end_line)
                    if distance < depth:
                        following.append((cid, d))
            frontier = following
        if references:
            _reference_files(ci, g, centers)
        return {
            "run_id": run_id,
            "relation": rel.name,
            "center": [node_id(c.path, c.symbol) for c in centers],
            "nodes": list(g.nodes.values()),
            "edges": list(g.edges.values()),
            "notes": g.notes,
            "results": [plain(s) for s in g.sites],
            "truncated": g.truncated,
            "coverage": coverage_json(first.coverage),
            "provenance": provenance_json(ci.provenance()),
        }


def _reference_files(ci: CodeIntel, g: Graph, centers: list[CodeLocation]) -> None:
    """One `file` node per file referencing a center, with a `references` edge."""
    for c in centers:
        try:
            refs = ci.references(None, c.path, c.start_line, None)
        except SpyglassError:
            continue
        target = node_id(c.path, c.symbol)
        for site in refs.results:
            if not isinstance(site, CodeLocation):
                continue
            fid = f"file:{site.path}"
            if g.node(fid, symbol=site.path, kind="file", path=site.path,
                      start_line=1, end_line=1, role="referrer", distance=1):
                g.edge(fid, target, "references", site)
