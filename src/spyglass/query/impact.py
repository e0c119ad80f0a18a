"""Blast radius: what a change affects, walking the reference graph outward by distance."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from spyglass.errors import BadInput
from spyglass.query import closure, edges, references
from spyglass.query.accounting import Ledger
from spyglass.query.changeset import ChangeSet, ModuleChange
from spyglass.query.display import display
from spyglass.query.results import AffectedFile, AffectedPackage, DefRow, RefRow
from spyglass.query.rows import REF_COLS, REF_FROM, Key, chunks, key, marks, refs
from spyglass.query.view import View
from spyglass.types import CodeLocation, Source

if TYPE_CHECKING:
    from spyglass.query.answer import Answer

VERBS = {"call": "calls", "import": "imports", "type": "uses type", "read": "uses",
         "write": "writes", "ref": "references", "subclass": "subclasses"}
NAME_FOLLOW = 20  # users reached by name only are followed further when the name has <= this
NAME_LISTED = 50  # name-matched sites listed per name and distance
MAX_DEPTH = 10
WALK_BOUND = 400  # affected symbols after which the walk goes no layer further
REFERENCE_SEEDS = 50  # changed definitions whose first layer is the references tool's sites
NodeKey = tuple[int, int] | tuple[str, str]


@dataclass(frozen=True, slots=True)
class Hop:
    """One edge of an evidence chain: `user` uses `used` at path:line."""

    user: str
    verb: str
    used: str
    path: str
    line: int
    note: str = ""  # why the edge is uncertain; "" when it is resolved exactly

    def text(self) -> str:
        base = f"{self.user} {self.verb} {self.used} at {self.path}:{self.line}"
        return f"{base} ({self.note})" if self.note else base


@dataclass(frozen=True, slots=True)
class Hit:
    """An affected definition, or a module-level site (`d` None), at a distance."""

    d: DefRow | None
    path: str
    line: int
    symbol: str
    distance: int
    chain: tuple[Hop, ...]
    origin: str  # what changed at the start of the chain, and why it counts
    uncertain: bool
    follow: bool = True  # whether its own users are followed further
    source: Source | None = None  # "live-lsp" when a language server decided the edge (query/escalate.py)

    @property
    def seed(self) -> str:
        """The changed symbol this hit's chain starts from."""
        return self.chain[-1].used if self.chain else self.symbol

    def evidence(self) -> str:
        seed = self.seed
        hops = "; ".join(h.text() for h in self.chain)
        widened = self.origin.startswith(WIDENED)
        verb = "is in a changed file" if widened else "changed"
        why = self.origin.removeprefix(WIDENED)
        if not hops:
            return f"distance 0: {verb} ({why})"
        return f"distance {self.distance}: {hops}; {seed} {verb} ({why})"

    def chain_text(self) -> str:
        """The chain alone, from this hit to the changed symbol: ``test_x → pkg.c.top →
        pkg.a.f (tests/test_c.py:5)``, where the first edge is; ``→?`` is an uncertain edge."""
        if not self.chain:
            return f"{self.symbol} (changed)"
        names = [self.chain[0].user]
        for hop in self.chain:
            names.append(("→? " if hop.note else "→ ") + hop.used)
        first = self.chain[0]
        return f"{' '.join(names)} ({first.path}:{first.line})"


# A seed's reason starting with this was not changed itself: a rule widened the change to it
# (test suggestions' same-file rule takes every definition of a partly changed file).
WIDENED = "widened: "


@dataclass
class Radius:
    """One walk's outcome (internal to query)."""

    change: ChangeSet
    depth: int = 3
    hits: list[Hit] = field(default_factory=list)
    truncated: bool = False
    notes: list[str] = field(default_factory=list)
    limits: list[str] = field(default_factory=list)  # what the alias closure's bounds cut


def _module_hits(view: View, m: ModuleChange) -> list[Hit]:
    """A module-level change: the file itself, and each file using names of its module."""
    unit = next((int(str(u)) for (u,) in view.conn.execute(
        "SELECT unit FROM temp.vfiles WHERE path = ?", (m.path,)).fetchall()[:1]), None)
    module = edges.module_names(view, [unit]).get(unit, m.path) if unit is not None else m.path
    out = [Hit(None, m.path, m.line, module, 0, (), m.why, False, False)]
    rows: list[RefRow] = []
    for sep in (".", "#", "/"):
        lo, hi = module + sep, module + chr(ord(sep) + 1)
        rows += refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.target >= ? AND "
                               "r.target < ?", (lo, hi)))
    firsts: dict[str, RefRow] = {}
    for r in rows:
        if r.path != m.path and (r.path not in firsts or r.line < firsts[r.path].line):
            firsts[r.path] = r
    names = edges.module_names(view, [r.unit for r in firsts.values()])
    for path, r in sorted(firsts.items()):
        user = names.get(r.unit, path)
        hop = Hop(user, "imports" if r.role == "import" else "uses", module, path, r.line,
                  "module-level change; which names it affects is unknown")
        out.append(Hit(None, path, r.line, user, 1, (hop,), m.why, True, False))
    return out


def walk(ans: Answer, cs: ChangeSet, depth: int, resolved_only: bool = False,
         bound: int = WALK_BOUND, seconds: float | None = None) -> Radius:
    """Breadth-first over users of the changed definitions, up to `depth` edges; a node
    keeps its shortest chain, preferring exact edges at equal distance. `resolved_only`
    leaves out sites matched by name only (a cheaper, narrower walk); no layer is walked
    once `bound` symbols are affected, nor once `seconds` have passed (a note says so)."""
    if not 0 <= depth <= MAX_DEPTH:
        raise BadInput(f"depth must be between 0 and {MAX_DEPTH}, got {depth}")
    view = ans.view()
    limit = ans.config.limits.max_matches_per_request
    radius = Radius(cs, depth, notes=list(cs.notes))
    seen: dict[NodeKey, Hit] = {}
    for s in cs.seeds:
        k: NodeKey = key(s.d)
        if k not in seen or (seen[k].uncertain and not s.uncertain):
            seen[k] = Hit(s.d, s.d.path, s.d.start_line, display(s.d), 0, (), s.why,
                          s.uncertain)
    for m in cs.modules:
        for hit in _module_hits(view, m):
            seen.setdefault(("mod", hit.path), hit)
    frontier = [h for h in seen.values() if h.d is not None]
    started = time.monotonic()
    for distance in range(1, depth + 1):
        if not frontier:
            break
        bound = min(limit, bound)
        if len(seen) >= bound:
            radius.truncated = True
            radius.notes.append(f"not walked past distance {distance - 1}: {len(seen)} "
                                f"affected symbols already (bound {bound}); narrow the change "
                                "or lower the depth to see all of it")
            break
        if seconds is not None and time.monotonic() - started > seconds:
            radius.truncated = True
            radius.notes.append(f"not walked past distance {distance - 1}: the walk's time "
                                f"budget ({seconds:g} s) ran out")
            break
        layer = _layer(view, frontier, distance, seen, radius, resolved_only)
        seen.update(layer)
        frontier = [h for h in layer.values() if h.d is not None and h.follow]
    closest: dict[str, int] = {}
    for h in seen.values():
        if h.d is not None:
            closest[h.path] = min(closest.get(h.path, h.distance), h.distance)
    # A file's import line adds nothing once a symbol of that file is affected as early.
    hits = [h for h in seen.values() if h.d is not None or h.distance == 0
            or h.chain[0].verb != "imports" or closest.get(h.path, MAX_DEPTH + 1) > h.distance]
    radius.hits = sorted(hits, key=lambda h: (h.distance, h.uncertain, h.path, h.line))
    return radius


def _layer(view: View, frontier: list[Hit], distance: int, seen: dict[NodeKey, Hit],
           radius: Radius, resolved_only: bool) -> dict[NodeKey, Hit]:
    by_key: dict[Key, Hit] = {key(h.d): h for h in frontier if h.d is not None}
    defs = [h.d for h in frontier if h.d is not None]
    # The first layer of the first REFERENCE_SEEDS definitions is the references tool's
    # (which holds their closure's sites); the rest are walked in one batch.
    direct = defs[:REFERENCE_SEEDS] if distance == 1 and not resolved_only else []
    sites: list[tuple[RefRow, DefRow, str, bool]] = []  # ref, used, note, follow
    if len(defs) > len(direct):
        found = closure.sites(view, closure.of(view, defs[len(direct):]))
        _limits(radius, found.limitations)
        for r, meant in found.sites:
            sites.append((r, meant[0], "" if r.conf == "exact" else _binding(r), True))
    if not resolved_only:
        sites += _name_sites(view, defs, radius)
        sites += _reference_sites(view, direct, len(defs), radius)
    users = edges.enclosing_defs(view, [s[0] for s in sites])
    owners = edges.module_owners(view, [s[0] for s in sites])
    modules = edges.module_names(view, [s[0].unit for s in sites if s[0].scope < 0])
    layer: dict[NodeKey, Hit] = {}

    def offer(node: NodeKey, hit: Hit) -> None:
        if node in seen:
            return
        prev = layer.get(node)
        if prev is None or (prev.uncertain and not hit.uncertain) or (
                prev.uncertain == hit.uncertain and (
                    (not prev.follow and hit.follow)
                    or (prev.chain[0].verb == "imports" and hit.chain[0].verb != "imports"))):
            layer[node] = hit
    classes = [d for d in defs if edges.is_class(d)]
    if classes:
        class_names = closure.of(view, classes, members=False).names
        for sub, base in closure.subclasses_of(view, list(class_names)):
            parent = by_key[key(class_names[base][0])]
            hop = Hop(display(sub), "subclasses", parent.symbol, sub.path, sub.start_line)
            offer(key(sub), Hit(sub, sub.path, sub.start_line, display(sub), distance,
                                (hop, *parent.chain), parent.origin, parent.uncertain))
    for r, used, note, follow in sites:
        parent = by_key[key(used)]
        user = users.get((r.unit, r.scope)) if r.scope >= 0 else owners.get((r.unit, r.line))
        if user is not None and key(user) == key(used):
            continue  # recursion
        who = display(user) if user is not None else modules.get(r.unit, r.path)
        hop = Hop(who, VERBS.get(r.role, "references"), parent.symbol, r.path, r.line, note)
        uncertain = parent.uncertain or bool(note)
        if user is None:
            offer(("mod", r.path), Hit(None, r.path, r.line, who, distance,
                                       (hop, *parent.chain), parent.origin, uncertain, False))
        else:
            offer(key(user), Hit(user, user.path, user.start_line, who, distance,
                                 (hop, *parent.chain), parent.origin, uncertain, follow))
    return layer


def _binding(r: RefRow) -> str:
    """Why a resolved but not exact edge is uncertain."""
    return f"{r.conf}: {r.head.split(':')[0]} binding resolved to {r.target}"


def _limits(radius: Radius, notes: Iterable[str]) -> None:
    """What a bound cut, noted once: in the walk's notes and its coverage limitations."""
    for note in notes:
        if note not in radius.limits:
            radius.limits.append(note)
            radius.notes.append(note)


def _reference_sites(view: View, defs: list[DefRow], changed: int, radius: Radius
                     ) -> list[tuple[RefRow, DefRow, str, bool]]:
    """Every site the references tool finds for each of `defs` (same rules, same
    uncertainty): the first layer holds them; `changed` definitions in all."""
    out: list[tuple[RefRow, DefRow, str, bool]] = []
    ledger = Ledger()
    notes = ledger.notes
    for d in defs:
        for s in references.sites(view, d, [d], False, False, False, ledger):
            r = s.ref
            note = "" if not s.uncertain else _binding(r) if s.evidence.startswith(
                "inferred (") else s.evidence or "uncertain"
            out.append((r, d, note, r.target is not None))
    if defs and changed > len(defs):
        notes.append(f"{changed} changed definitions: uses through related members and "
                     f"interface dispatch are followed for the first {len(defs)} only")
    _limits(radius, notes)
    return out


def _name_sites(view: View, defs: list[DefRow], radius: Radius
                ) -> list[tuple[RefRow, DefRow, str, bool]]:
    """Unresolved sites matching a changed name: included, flagged, bounded per name."""
    out: list[tuple[RefRow, DefRow, str, bool]] = []
    first: dict[tuple[str, bool], DefRow] = {}
    for d in defs:
        first.setdefault((d.name, edges.is_member(d)), d)
    matches = edges.name_matches(view, set(first), NAME_LISTED)
    counts = _def_counts(view, sorted({n for n, _ in matches}))
    for (name, member), (total, rows) in sorted(matches.items()):
        why = "receiver type unknown" if member else "unresolved name"
        note = f"name match: {why}; {counts.get(name, 1)} definition(s) named {name!r}"
        follow = total <= NAME_FOLLOW
        if not follow:
            radius.notes.append(f"{total} sites use the name {name!r} with no resolved "
                                f"target; {len(rows)} listed, their users not followed further")
        if total > len(rows):
            radius.truncated = True
        out += [(r, first[(name, member)], note, follow) for r in rows]
    return out


def _def_counts(view: View, names: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for chunk in chunks(names):
        for name, n in view.each("SELECT d.name, COUNT(*) FROM {defs} d JOIN temp.vfiles f ON "
                                 f"f.unit = d.unit WHERE d.name IN ({marks(chunk)}) GROUP BY "
                                 "d.name", tuple(chunk)):
            out[str(name)] = out.get(str(name), 0) + int(str(n))
    return out


# -- tool answers ---------------------------------------------------------------------------
def locations(ans: Answer, radius: Radius) -> list[CodeLocation]:
    view = ans.view()
    files = {str(p): (str(s), bool(st)) for p, s, st in view.conn.execute(
        "SELECT path, source, stale FROM temp.vfiles").fetchall()}
    out: list[CodeLocation] = []
    for h in radius.hits:
        if h.d is not None:
            loc = ans.def_location(h.d, h.uncertain, h.evidence())
        else:
            source, stale = files.get(h.path, ("cached-index", False))
            loc = ans.location(h.path, h.line, h.line, h.symbol, "module", source, stale,
                               h.uncertain, h.evidence())
        out.append(replace(loc, source=h.source, indexed_at=None, stale=False)
                   if h.source else loc)
    return out


def grouped(radius: Radius) -> tuple[tuple[AffectedFile, ...], tuple[AffectedPackage, ...]]:
    from spyglass.syntax.langpack import pack_for_path
    files: dict[str, AffectedFile] = {}
    for h in radius.hits:
        f = files.get(h.path)
        if f is None:
            pack = pack_for_path(h.path)
            files[h.path] = AffectedFile(h.path, h.distance, 1, h.uncertain,
                                         bool(pack and pack.is_test_file(h.path)))
        else:
            files[h.path] = replace(f, symbols=f.symbols + 1, uncertain=f.uncertain and (
                h.uncertain or h.distance > f.distance))
    packages: dict[str, AffectedPackage] = {}
    for f in files.values():
        folder = f.path.rsplit("/", 1)[0] if "/" in f.path else "."
        pack = pack_for_path(f.path)
        p = packages.get(folder)
        if p is None:
            packages[folder] = AffectedPackage(folder, pack.name if pack else "", f.distance, 1,
                                               f.uncertain)
        else:
            packages[folder] = replace(p, distance=min(p.distance, f.distance), files=p.files + 1,
                                       uncertain=p.uncertain and f.uncertain)
    order = sorted(files.values(), key=lambda f: (f.distance, f.uncertain, f.path))
    porder = sorted(packages.values(), key=lambda p: (p.distance, p.uncertain, p.path))
    return tuple(order), tuple(porder)
