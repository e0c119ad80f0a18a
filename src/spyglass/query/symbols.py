"""Symbol questions over a view: definitions, targets at a position, references, callers."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from spyglass.errors import BadInput
from spyglass.query.results import DefRow
from spyglass.query.view import View

DEF_COLS = ("d.unit, d.idx, d.name, d.qualname, d.full, d.kind, d.start_line, d.end_line, "
            "d.name_line, d.name_col, d.parent, f.path, f.language, f.source, f.stale")
DEF_FROM = "FROM {defs} d JOIN temp.vfiles f ON f.unit = d.unit"
MEMBER_KINDS = frozenset({"method", "field"})
VALUE_CALLABLE = frozenset({"func", "method", "test"})
CLASS_KINDS = frozenset({"class", "struct", "interface", "type", "enum"})


def _defs(rows: Iterable[tuple[object, ...]]) -> list[DefRow]:
    out = [DefRow(*r[:14], bool(r[14])) for r in rows]  # type: ignore[arg-type,call-arg]
    out.sort(key=lambda d: (d.path, d.start_line, d.name_col))
    return out


def find_defs(view: View, name: str, kind: str | None = None, path: str | None = None
              ) -> list[DefRow]:
    """Definitions matching a name, a qualified name (``Class.method``, ``pkg.mod.f``) or a
    ``*`` glob, optionally by kind and path prefix."""
    clauses: list[str] = []
    params: list[object] = []
    if "*" in name or "?" in name:
        clauses.append("(d.name GLOB ? OR d.qualname GLOB ?)")
        params += [name, name]
    elif "." in name or "#" in name or "/" in name:
        clauses.append("(d.full = ? OR d.qualname = ? OR d.full LIKE ? ESCAPE '\\')")
        esc = name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params += [name, name, f"%.{esc}"]
    else:
        clauses.append("d.name = ?")
        params.append(name)
    if kind:
        clauses.append("d.kind = ?")
        params.append(kind)
    if path:
        clauses.append("(f.path = ? OR f.path LIKE ?)")
        params += [path.rstrip("/"), path.rstrip("/") + "/%"]
    sql = f"SELECT {DEF_COLS} {DEF_FROM} WHERE " + " AND ".join(clauses)
    return _defs(view.each(sql, tuple(params)))


def defs_in_file(view: View, path: str) -> list[DefRow]:
    return _defs(view.each(f"SELECT {DEF_COLS} {DEF_FROM} WHERE f.path = ?", (path,)))


def def_by_unit(view: View, unit: int, idx: int) -> DefRow | None:
    rows = _defs(view.each(f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.unit = ? AND d.idx = ?",
                           (unit, idx)))
    return rows[0] if rows else None


def defs_by_full(view: View, fulls: Iterable[str]) -> list[DefRow]:
    names = list(dict.fromkeys(fulls))
    out: list[DefRow] = []
    for i in range(0, len(names), 500):
        chunk = names[i:i + 500]
        marks = ",".join("?" * len(chunk))
        out += _defs(view.each(f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.full IN ({marks})",
                               tuple(chunk)))
    return out


@dataclass(frozen=True, slots=True)
class RefRow:
    """A reference site in the view (internal)."""

    unit: int
    name: str
    line: int
    col: int
    end_col: int
    role: str
    scope: int
    qualifier: str
    head: str
    target: str | None
    conf: str
    path: str
    language: str
    source: str
    stale: bool


REF_COLS = ("r.unit, r.name, r.line, r.col, r.end_col, r.role, r.scope, r.qualifier, r.head, "
            "r.target, r.conf, f.path, f.language, f.source, f.stale")
REF_FROM = "FROM {refs} r JOIN temp.vfiles f ON f.unit = r.unit"


def _refs(rows: Iterable[tuple[object, ...]]) -> list[RefRow]:
    out = [RefRow(*r[:14], bool(r[14])) for r in rows]  # type: ignore[arg-type,call-arg]
    out.sort(key=lambda r: (r.path, r.line, r.col))
    return out


def targets_at(view: View, path: str, line: int, column: int | None) -> list[DefRow]:
    """The definition(s) meant at a position: a definition's name, a reference resolved to
    definitions, or the innermost definition whose span holds the line."""
    col0 = column - 1 if column is not None else None
    defs = defs_in_file(view, path)
    on_name = [d for d in defs if d.name_line == line and (
        col0 is None or d.name_col <= col0 < d.name_col + len(d.name))]
    if on_name:
        return on_name[:1] if col0 is not None else on_name
    refs = _refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE f.path = ? AND r.line = ?",
                           (path, line)))
    if col0 is not None:
        refs = [r for r in refs if r.col <= col0 < r.end_col]
    for ref in refs:
        if ref.target:
            hits = resolve_target(view, ref.target)
            if hits:
                return hits
        named = [d for d in find_defs(view, ref.name)]
        if named:
            return named
    holding = [d for d in defs if d.start_line <= line <= d.end_line]
    if holding and col0 is None:
        return [max(holding, key=lambda d: (d.start_line, -d.end_line))]
    raise BadInput(f"no symbol at {path}:{line}" + (f":{column}" if column else "")
                   + "; point at a definition's name or a use of it")


def resolve_target(view: View, target: str) -> list[DefRow]:
    """Follow aliases (re-exports) from a reference target to the definitions it means."""
    seen = {target}
    frontier = [target]
    while frontier:
        hits = defs_by_full(view, frontier)
        if hits:
            return hits
        rows = [r for t in frontier for r in view.each(
            "SELECT a.target FROM {aliases} a JOIN temp.vfiles f ON f.unit = a.unit "
            "WHERE a.alias = ?", (t,))]
        frontier = [str(r[0]) for r in rows if str(r[0]) not in seen]
        seen.update(frontier)
    return []


MAX_CLOSURE = 5000


def closure(view: View, d: DefRow) -> set[str]:
    """Every target string that means definition `d`: its full name, names that re-export
    it or an enclosing name (aliases: ``pkg.Cls`` → ``pkg.mod.Cls`` gives ``pkg.Cls.m`` for
    ``pkg.mod.Cls.m``), wildcard re-exports and instance aliases (``mod.var.*`` →
    ``pkg.Cls.*``) and, for members, the same member reached through a subclass that does
    not override it."""
    names = {d.full}
    if d.kind in MEMBER_KINDS and d.parent >= 0:
        parent = def_by_unit(view, d.unit, d.parent)
        if parent is not None:
            names |= _through_subclasses(view, parent, d.name)
    frontier = sorted(names)
    stars: dict[str, list[str]] = {}  # wildcard target prefix ("pkg.mod.") → alias prefixes
    for a, t in view.each("SELECT a.alias, a.target FROM {aliases} a JOIN temp.vfiles f ON "
                          "f.unit = a.unit WHERE a.target LIKE '%*'"):
        stars.setdefault(str(t)[:-1], []).append(str(a)[:-1])
    inherited: dict[str, list[str]] = {}
    while frontier and len(names) < MAX_CLOSURE:
        current = frontier
        frontier = []
        wanted: dict[str, list[str]] = {}  # alias target → names equal to it or below it
        for name in current:
            wanted.setdefault(name, []).append(name)
            for i in range(name.find("#") + 1, len(name)):
                if name[i] == ".":
                    wanted.setdefault(name[:i], []).append(name)
        keys = sorted(wanted)
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            marks = ",".join("?" * len(chunk))
            for alias, target in view.each(
                    "SELECT a.alias, a.target FROM {aliases} a JOIN temp.vfiles f ON "
                    f"f.unit = a.unit WHERE a.target IN ({marks})", tuple(chunk)):
                for name in wanted[str(target)]:
                    new = str(alias) + name[len(str(target)):]
                    if new not in names:
                        names.add(new)
                        frontier.append(new)
        for name in current:
            for i in range(name.find("#") + 1, len(name)):
                if name[i] not in ".#" or name[:i + 1] not in stars:
                    continue
                for alias in stars[name[:i + 1]]:
                    for prefix in [alias, *_inherited_members(view, alias[:-1], inherited)]:
                        new = prefix + name[i + 1:]
                        if new not in names:
                            names.add(new)
                            frontier.append(new)
    return names


def _inherited_members(view: View, full: str, memo: dict[str, list[str]]) -> list[str]:
    """For an instance alias on a class member (``pkg.Base.config.*``: the type of a field
    or a method's result), the same member reached through subclasses that do not
    override it (``pkg.App.config.``)."""
    if full not in memo:
        out: set[str] = set()
        for m in defs_by_full(view, [full]):
            parent = def_by_unit(view, m.unit, m.parent) if m.parent >= 0 else None
            while parent is not None and parent.kind not in CLASS_KINDS:
                parent = def_by_unit(view, parent.unit, parent.parent) \
                    if parent.parent >= 0 else None
            if parent is not None and m.kind in MEMBER_KINDS | VALUE_CALLABLE:
                out |= _through_subclasses(view, parent, m.name)
        memo[full] = [f"{n}." for n in sorted(out)]
    return memo[full]


def is_property(view: View, d: DefRow) -> bool:
    """A function whose decorators make reading it a call (the resolver's marker base)."""
    return bool(view.each("SELECT 1 FROM {bases} b WHERE b.unit = ? AND b.idx = ? AND "
                          "b.base = 'builtins.property'", (d.unit, d.idx)))


def call_filter(view: View, d: DefRow) -> Callable[[RefRow], str | None]:
    """How a reference site of `d` counts as a call: "call" (a call site, or for a property
    any read or write outside its own class body — ``@prop.setter`` there is not a call),
    "indirect" (the function used as a value where the pack counts that as a caller), or
    None (not a call)."""
    if d.kind in MEMBER_KINDS and is_property(view, d):
        return lambda r: "call" if r.role == "call" or (r.role in ("read", "write") and not (
            r.unit == d.unit and r.scope == d.parent)) else None
    if d.kind in VALUE_CALLABLE and _value_uses_are_calls(d.language):
        # A function used as a value (a callback, a handler in a table) is called from
        # wherever it is passed; where the language's pack says so (its language server
        # counts those sites as incoming calls), they are callers too, flagged uncertain.
        return lambda r: "call" if r.role == "call" else (
            "indirect" if r.role == "read" and r.target is not None else None)
    return lambda r: "call" if r.role == "call" else None


def _manifest(language: str, key: str) -> object:
    from spyglass.syntax.langpack import all_packs
    pack = all_packs().get(language)
    return pack.manifest.get(key) if pack else None


def _value_uses_are_calls(language: str) -> bool:
    return bool(_manifest(language, "callers_include_value_uses"))


def constructed_class(view: View, d: DefRow) -> DefRow | None:
    """The class a constructor belongs to, when `d` is one by its pack's
    `constructor_names`: then calling the class (`new C()`) calls `d`."""
    names = _manifest(d.language, "constructor_names")
    if d.kind != "method" or d.parent < 0 or not isinstance(names, list) or d.name not in names:
        return None
    parent = def_by_unit(view, d.unit, d.parent)
    return parent if parent is not None and parent.kind == "class" else None


def redefinitions(view: View, d: DefRow) -> list[RefRow]:
    """Other definitions with the same full name (re-assignments, property setters,
    overloads), as exact ``write`` sites of `d`."""
    out: list[RefRow] = []
    for other in defs_by_full(view, [d.full]):
        if (other.unit, other.idx) == (d.unit, d.idx) or other.name_line == d.name_line:
            continue
        out.append(RefRow(other.unit, other.name, other.name_line, other.name_col,
                          other.name_col + len(other.name), "write", other.parent, "", "def",
                          other.full, "exact", other.path, other.language, other.source,
                          other.stale))
    return out


def _through_subclasses(view: View, cls: DefRow, member: str) -> set[str]:
    out: set[str] = set()
    seen = {cls.full}
    frontier = [cls.full]
    while frontier and len(seen) < 500:
        nxt: list[str] = []
        for base in frontier:
            for unit, idx in view.each(
                    "SELECT b.unit, b.idx FROM {bases} b JOIN temp.vfiles f ON f.unit = b.unit "
                    "WHERE b.base IN (SELECT value FROM json_each(?))",
                    (json.dumps(sorted(_reexports(view, base))),)):
                sub = def_by_unit(view, int(str(unit)), int(str(idx)))
                if sub is None or sub.full in seen:
                    continue
                seen.add(sub.full)
                overrides = view.each(  # by qualname: fields set in __init__ count too
                    "SELECT 1 FROM {defs} d WHERE d.unit = ? AND d.qualname = ?",
                    (sub.unit, f"{sub.qualname}.{member}"))
                if not overrides:
                    out.add(f"{sub.full}.{member}")
                    nxt.append(sub.full)
        frontier = nxt
    return out


def _reexports(view: View, full: str) -> set[str]:
    """`full` and the names that re-export it (``pkg.Cls`` for ``pkg.mod.Cls``, directly
    or through a wildcard re-export of its module), as a subclass may name its base."""
    names = {full}
    frontier = [full]
    while frontier and len(names) < 50:
        name = frontier.pop()
        cuts = [i for i in range(name.find("#") + 1, len(name)) if name[i] in ".#"]
        stars = {name[:i + 1] + "*": name[i + 1:] for i in cuts}
        for alias, target in view.each(
                "SELECT a.alias, a.target FROM {aliases} a JOIN temp.vfiles f ON "
                "f.unit = a.unit WHERE a.target IN (SELECT value FROM json_each(?))",
                (json.dumps([name, *stars]),)):
            t, a = str(target), str(alias)
            new = a if t == name else a[:-1] + stars[t]
            if new not in names:
                names.add(new)
                frontier.append(new)
    return names


def exact_refs(view: View, names: set[str]) -> list[RefRow]:
    out: list[RefRow] = []
    items = sorted(names)
    for i in range(0, len(items), 500):
        chunk = items[i:i + 500]
        marks = ",".join("?" * len(chunk))
        out += _refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.target IN ({marks})",
                               tuple(chunk)))
    out.sort(key=lambda r: (r.path, r.line, r.col))
    return out


def unresolved_refs(view: View, d: DefRow) -> list[RefRow]:
    """Uses of the same name that could not be resolved: candidates, never certain."""
    rows = _refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.target IS NULL AND r.name = ?",
                           (d.name,)))
    member = d.kind in MEMBER_KINDS or d.kind == "field"
    if member and not _distinctive_member(view, d):
        return []
    keep: list[RefRow] = []
    for r in rows:
        if r.qualifier and (r.head in ("local", "expr", "free")
                            or r.head.startswith(("inst:", "super:"))) \
                and member or not r.qualifier and r.head == "free" and not member:
            keep.append(r)
    return keep


MAX_NAME_CANDIDATES = 2


def _distinctive_member(view: View, d: DefRow) -> bool:
    """A member name that at most MAX_NAME_CANDIDATES classes of the project define: an
    unknown receiver using it is a plausible (ambiguous) candidate of each. A name many
    classes define (``get``, ``run``) says nothing about the receiver: not listed."""
    rows = view.each("SELECT COUNT(DISTINCT d.unit || ':' || d.parent) FROM {defs} d JOIN "
                     "temp.vfiles f ON f.unit = d.unit WHERE d.name = ? AND d.kind IN "
                     "('method', 'field')", (d.name,))
    return sum(int(str(r[0])) for r in rows) <= MAX_NAME_CANDIDATES


def enclosing(view: View, ref: RefRow) -> DefRow | None:
    """The definition a reference sits in (the caller of a call)."""
    return def_by_unit(view, ref.unit, ref.scope) if ref.scope >= 0 else None
