"""References and callers decided by precise facts (docs/precise.md): where a SCIP document
(the precise pass's, or `spyglass index --scip`) matches its file's current content, the
index's sites there become certain when the facts hold them, are dropped (and counted)
when the facts refute them, and sites only the facts know are added. Other files keep the
index's answer, flagged as before. The target's symbols include the members it overrides
or implements (SCIP relationships), since a use through a base member reaches it."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from spyglass.config import Config
from spyglass.index import confined, scip
from spyglass.query import symbols as sym
from spyglass.query.answer import location
from spyglass.query.closure import MEMBER_KINDS
from spyglass.query.display import display, module_symbol
from spyglass.query.precise import INDEXERS
from spyglass.query.results import DefRow
from spyglass.query.view import View
from spyglass.types import CodeLocation

Answer = tuple[list[CodeLocation], tuple[str, ...]]
Site = tuple[str, int]
UPWARD = scip.REL_REFERENCE | scip.REL_IMPLEMENTATION
NOT_CALLERS = frozenset({"variable", "constant", "field", "property", "parameter",
                         "attribute", "enum_member"})
CONSTRUCTOR = "`<constructor>`()."  # scip-typescript's symbol of a class's constructor
IMPORT_HEADS = ("import ", "from ", "export {", "export *", "export type {")


DIGESTS_MAX = 65536
LINES_MAX = 512  # files whose lines are kept across answers (by content digest)


class Facts:
    """One import's occurrences by symbol, and its relationships upward (built once)."""

    def __init__(self, precise: scip.ScipIndex) -> None:
        self.precise = precise
        self.by_symbol: dict[str, list[tuple[str, scip.Occurrence]]] = {}
        for path, (_, occs) in precise.documents.items():
            for o in occs:
                self.by_symbol.setdefault(o.symbol, []).append((path, o))
        # Symbols the facts define (a definition occurrence in some document).
        self.defined = {o.symbol for occs in self.by_symbol.values() for _, o in occs
                        if o.definition}
        self.up: dict[str, set[str]] = {}
        self.up_all: dict[str, set[str]] = {}  # across packages too
        for a, b, bits in precise.relations:
            if bits & UPWARD and a != b and _member(a) and _member(b):
                self.up_all.setdefault(a, set()).add(b)
                if _package(a) == _package(b):
                    self.up.setdefault(a, set()).add(b)


_FACTS: list[Facts] = []
_DIGESTS: dict[tuple[str, str], tuple[int, int, str]] = {}  # (root, path) -> mtime, size
_LINES: dict[tuple[str, str, str], list[str]] = {}  # (root, path, digest) -> lines


def facts_of(precise: scip.ScipIndex) -> Facts:
    for f in _FACTS:
        if f.precise is precise:
            return f
    _FACTS[:] = [Facts(precise), *_FACTS[:3]]
    return _FACTS[0]


def _member(symbol: str) -> bool:
    """A method or field (a term), not a type: a class's relationship to its bases is not a
    use of them."""
    return not symbol.endswith("#")


def _package(symbol: str) -> str:
    """The symbol's scheme, manager, package and version: overrides of another package's
    members (the standard library's `__eq__`) are not followed."""
    return " ".join(symbol.split(" ", 4)[:4])


class Freshness:
    """Which documents match their file's current content (digests cached by the file's
    modification time and size across answers)."""

    def __init__(self, root: Path, config: Config, precise: scip.ScipIndex) -> None:
        self.root, self.config, self.precise = root, config, precise
        self._fresh: dict[str, bool] = {}
        self._lines: dict[str, list[str]] = {}

    def __call__(self, path: str) -> bool:
        if path not in self._fresh:
            doc = self.precise.documents.get(path)
            self._fresh[path] = doc is not None and self._digest(path) == doc[0]
        return self._fresh[path]

    def _digest(self, path: str) -> str | None:
        key = (str(self.root), path)
        try:
            st = (self.root / path).stat()
        except (OSError, ValueError):
            return None
        known = _DIGESTS.get(key)
        if known is not None and known[:2] == (st.st_mtime_ns, st.st_size):
            return known[2]
        raw = confined.read_or_none(self.root, path, self.config.limits.max_file_bytes)
        if raw is None:
            return None
        if len(_DIGESTS) >= DIGESTS_MAX:
            _DIGESTS.clear()
        _DIGESTS[key] = (st.st_mtime_ns, st.st_size, scip.digest(raw))
        return _DIGESTS[key][2]

    def line(self, path: str, line: int) -> str:
        """A line of a fresh file (0-based), read on demand (kept across answers by the
        file's digest, a bounded number of files)."""
        if path not in self._lines:
            doc = self.precise.documents.get(path)
            key = (str(self.root), path, doc[0] if doc else "")
            cached = _LINES.get(key)
            if cached is None:
                raw = confined.read_or_none(self.root, path,
                                            self.config.limits.max_file_bytes)
                cached = raw.decode("utf-8", "replace").splitlines() if raw else []
                if doc is not None and raw is not None and scip.digest(raw) == doc[0]:
                    if len(_LINES) >= LINES_MAX:
                        _LINES.pop(next(iter(_LINES)))
                    _LINES[key] = cached
            self._lines[path] = cached
        lines = self._lines[path]
        return lines[line] if 0 <= line < len(lines) else ""


def target_symbols(precise: scip.ScipIndex, fresh: Freshness, d: DefRow) -> str | None:
    """The SCIP symbol defined at the target's name (its file fresh), or None."""
    doc = precise.documents.get(d.path)
    if doc is None or not fresh(d.path):
        return None
    on_line = [o for o in doc[1] if o.line == d.name_line - 1 and o.symbol != scip.LOCAL]
    # At the name itself: its definition, or the member it declares structurally (an
    # object literal's property typed by an interface is, to scip-typescript, a use of
    # the interface's member).
    exact = sorted((o for o in on_line if o.col == d.name_col), key=lambda o: not o.definition)
    if exact:
        return exact[0].symbol
    defined = [o for o in on_line if o.definition]
    return min(defined, key=lambda o: abs(o.col - d.name_col)).symbol if defined else None


def related(facts: Facts, seeds: set[str], across: bool = False) -> set[str]:
    """The seeds plus every member of the same package (`across`: of any package) they
    override or implement, transitively."""
    up = facts.up_all if across else facts.up
    out, todo = set(seeds), list(seeds)
    while todo:
        for b in up.get(todo.pop(), ()):
            if b not in out:
                out.add(b)
                todo.append(b)
    return out


def refuted(precise: scip.ScipIndex, fresh: Freshness, path: str, line: int, name: str,
            wanted: set[str], facts: Facts | None = None,
            heritage: frozenset[str] = frozenset()) -> bool:
    """Whether the facts resolve `name` on that line (1-based) to other symbols only: a
    site they have no occurrence for (a string in `__all__`, a use they could not
    resolve) is not refuted. Under structural typing a member refutes only if it is a
    type's declared member (`T#name`) sharing no overridden or implemented member with
    the target (`facts`' relationships, transitively, any package); an object literal's own
    property (`o.name`, `name0:`) refutes only if the facts define it: scip-typescript names
    a property whose literal a type types (a declared return type, an annotation, an
    argument) by that type's member, so one it defines under its own name had no such type
    (one with no definition there — `satisfies T`, another package's — may be the target). A use
    of a local (a variable, a parameter, a member of an anonymous type) refutes only
    where every use of the name on the line is resolved, none to a symbol that may be
    the target."""
    doc = precise.documents.get(path)
    if doc is None:
        return False
    text = fresh.line(path, line - 1)
    occs = [o for o in doc[1] if o.line == line - 1 and o.end_col > o.col
            and text[o.col:o.end_col] == name]
    there = [o.symbol for o in occs]
    if not there or any(s in wanted for s in there):
        return False
    tool = precise.tools.get(path, precise.tool).split(" ")[0]
    structural = any(i.structural and i.name == tool for i in INDEXERS)

    family = related(facts, wanted, across=True) if facts is not None else set()

    def may_be(symbol: str) -> bool:  # structurally, the target under another name
        if not structural or not _member(symbol) or facts is None:
            return structural and _member(symbol)
        if not _declared(symbol):  # an object literal's own property
            return symbol not in facts.defined
        return (bool(related(facts, {symbol}, across=True) & family)
                or _owner(symbol) in heritage)

    named = [s for s in there if s != scip.LOCAL]
    if named and not any(may_be(s) for s in named):
        return True
    return scip.LOCAL in there and _all_local(text, name, occs, structural, may_be)


def _owner(symbol: str) -> str:
    """The type declaring a member (`pkg/T#name().` -> `pkg/T#`)."""
    cut = symbol.find("#", symbol.rfind("/") + 1)
    return symbol[:cut + 1] if cut >= 0 else ""


def heritage(view: View, precise: scip.ScipIndex, fresh: Freshness,
             targets: list[DefRow]) -> frozenset[str]:
    """The types the facts find named in the header of the targets' classes: a class
    implementing a type through a type expression (`implements Omit<T, 'k'>`) gets no
    SCIP relationship to T's members, yet TypeScript relates them, so T's members may be
    the target (tanstack query-core's TimeoutManager and TimeoutProvider)."""
    out: set[str] = set()
    for d in targets:
        doc = precise.documents.get(d.path)
        if d.kind not in MEMBER_KINDS or doc is None or not fresh(d.path):
            continue
        owner = next((p for p in sym.defs_in_file(view, d.path)
                      if p.unit == d.unit and p.idx == d.parent), None)
        if owner is None:
            continue
        header = range(owner.start_line - 1, owner.name_line + 2)  # 0-based lines
        out |= {o.symbol for o in doc[1] if o.line in header and o.symbol.endswith("#")}
    return frozenset(out)


def _declared(symbol: str) -> bool:
    """A member a type declares (`pkg/T#name().`), not an object's (`pkg/o.name().`)."""
    tail = symbol.rsplit("/", 1)[-1]
    return "#" in tail and not symbol.endswith("#")


def _all_local(text: str, name: str, occs: list[scip.Occurrence], structural: bool,
               may_be: Callable[[str], bool]) -> bool:
    """Every use of `name` on the line is resolved, to a local or to a symbol that cannot
    be the target; under structural typing a local counts only as a member access
    (`change.start`: a member of an anonymous type, which TypeScript's references of a
    declared member never include), not a bare name (`{ start }` may be an object
    literal's property typed by the target's type)."""
    at = {o.col: o.symbol for o in occs}
    for m in re.finditer(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text):
        symbol = at.get(m.start())
        if symbol is None:
            return False
        if symbol == scip.LOCAL:
            if structural and not text[:m.start()].rstrip().endswith("."):
                return False
        elif may_be(symbol):
            return False
    return True


LIST_ITEM = re.compile(r"\s*(?:type\s+)?[\w$]+(?:\s+as\s+[\w$]+)?\s*,?\s*(?:#.*|//.*)?$")
LIST_HEAD = re.compile(r"\s*(?:(?:import|export)\b.*\{|from\s+\S+\s+import\s*\()\s*$")
IMPORT_LOOKBACK = 200


def _in_import(fresh: Freshness, path: str, line0: int) -> bool:
    """Whether a line is an import or re-export: it starts one, or it is a bare name in
    the list of one that spans lines (`export {` ... `  name,` ... `} from "./x"`)."""
    text = fresh.line(path, line0)
    if text.lstrip().startswith(IMPORT_HEADS):
        return True
    if not LIST_ITEM.match(text):
        return False
    for back in range(line0 - 1, max(line0 - IMPORT_LOOKBACK, -1), -1):
        above = fresh.line(path, back)
        if LIST_HEAD.match(above):
            return True
        if not LIST_ITEM.match(above) and above.strip():
            return False
    return False


NAME_PARTS = re.compile(r"[^\w$]+")


def _names_it(text: str, o: scip.Occurrence, symbol: str, exact: bool) -> bool:
    """Whether the occurrence's text is a name its symbol's descriptors hold; `exact`:
    one of those names whole (a use through an import's new name, `from m import f as
    g` ... `g()`, is not a reference of `f` to pyright: it names the alias)."""
    word = text[o.col:o.end_col] if 0 <= o.col < o.end_col else ""
    last = symbol.rsplit("/", 1)[-1]
    if not word:
        return True
    return word in NAME_PARTS.split(last) if exact else word in last


def is_call(text: str, end_col: int) -> bool:
    """Whether the name ending at `end_col` is called there (followed by `(`, `<`, a
    template literal)."""
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
    facts = facts_of(precise)
    tool = precise.tools.get(targets[0].path, precise.tool).split(" ")[0]
    hierarchy = any(i.structural and i.name == tool for i in INDEXERS)
    wanted = related(facts, seeds) if hierarchy else set(seeds)
    wanted |= {s + CONSTRUCTOR for s in seeds if s.endswith("#")}  # `new C()` names C
    names = {d.name for d in targets}
    bases = heritage(view, precise, fresh, targets) if hierarchy else frozenset()
    # site -> (tool, 0-based line, start col, end col)
    sites: dict[Site, tuple[str, int, int, int]] = {}
    stale: set[str] = set()
    for symbol in wanted:
        for path, o in facts.by_symbol.get(symbol, ()):
            if o.definition:
                continue
            if not fresh(path):
                stale.add(path)
                continue
            if not _names_it(fresh.line(path, o.line), o, symbol, not hierarchy):
                continue  # scip-python 0.6.6 gives `__slots__` attributes their class
            sites.setdefault((path, o.line + 1),
                             (precise.tools.get(path, precise.tool), o.line, o.col, o.end_col))
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
        elif fresh(loc.path) and not _declaration(loc, targets) and any(
                refuted(precise, fresh, loc.path, loc.start_line, n, wanted, facts, bases)
                for n in names):
            dropped += 1
        else:
            out.append(loc)
    added = 0
    repo = locations[0].repo if locations else view_repo(view)
    # Reading a property calls its getter: such a use is a caller (as the index counts it,
    # symbols.call_filter) where it is a member access (`x.name`), except a decorator
    # naming it (`@name.setter`); a destructuring binding (`const { name } = x`) reads it
    # too, but TypeScript's call hierarchy does not count it as a call.
    getter = calls and any(d.kind in MEMBER_KINDS and sym.is_property(view, d)
                           for d in targets)
    defs_cache: dict[str, list[DefRow]] = {}
    for (path, line), (tool, line0, col, end_col) in sorted(sites.items()):
        if (path, line) in held:
            continue
        text = fresh.line(path, line0)
        if _in_import(fresh, path, line0):
            continue  # an import or re-export names the symbol; it is not a use
        if calls:
            if not (is_call(text, end_col) or (getter and not text.lstrip().startswith("@")
                                                and text[:col].rstrip().endswith("."))):
                continue
            if path not in defs_cache:
                defs_cache[path] = sym.defs_in_file(view, path)
            if any(d.name_line == line and d.name in names for d in defs_cache[path]):
                continue  # a declaration of the name (another `@overload`), not a call
            symbol, kind = _caller(defs_cache[path], path, line)
        else:
            symbol, kind = display(targets[0]), "reference"
        added += 1
        out.append(location(view, repo, path, line, line, symbol, kind, "cached-index", False,
                            False, f"precise: {tool} (SCIP); not found by the index"))
    out.sort(key=lambda c: (c.uncertain, c.path, c.start_line))
    tools = sorted({precise.tools.get(p, precise.tool) for p, _ in sites} or {precise.tool})
    note = (f"precise facts ({', '.join(tools)}): {confirmed} site(s) confirmed, {added} "
            f"added, {dropped} refuted and dropped")
    if stale:
        listed = sorted(stale)
        note += (f"; {len(listed)} file(s) changed since the precise facts were made keep "
                 "the index's answer: " + ", ".join(listed[:5])
                 + (", ..." if len(listed) > 5 else ""))
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
    from spyglass.query.precise import runs
    if view.snapshot is None or not targets:
        return ()
    langs = {i.language for i in INDEXERS for d in targets if d.language in i.languages}
    out = []
    for run in runs(view.conn, view.snapshot.id):
        if run.language in langs and run.state not in ("completed", "running"):
            out.append(f"precise pass ({run.language}, {run.tool}) {run.state}: {run.error}; "
                       "files without fresh precise facts answer from the index")
    return tuple(out)
