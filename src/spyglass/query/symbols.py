"""Symbol questions over a view: definitions, targets at a position, references, callers."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from spyglass.errors import BadInput
from spyglass.query import paths as client_paths
from spyglass.query.results import DefRow
from spyglass.query.view import View

DEF_COLS = ("d.unit, d.idx, d.name, d.qualname, d.full, d.kind, d.start_line, d.end_line, "
            "d.name_line, d.name_col, d.parent, f.path, f.language, f.source, f.stale")
DEF_FROM = "FROM {defs} d JOIN temp.vfiles f ON f.unit = d.unit"
MEMBER_KINDS = frozenset({"method", "field"})
VALUE_CALLABLE = frozenset({"func", "method", "test"})
CLASS_KINDS = frozenset({"class", "struct", "interface", "type", "enum"})
MAX_NAME_CHARS = 1000  # a symbol name or pattern (SQLite refuses too complex LIKE/GLOBs)


def _defs(rows: Iterable[tuple[object, ...]]) -> list[DefRow]:
    out = [DefRow(*r[:14], bool(r[14])) for r in rows]  # type: ignore[arg-type,call-arg]
    out.sort(key=lambda d: (d.path, d.start_line, d.name_col))
    return out


def like_escape(text: str) -> str:
    """`text` as a literal inside a `LIKE ? ESCAPE '\\'` pattern."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def find_defs(view: View, name: str, kind: str | None = None, path: str | None = None
              ) -> list[DefRow]:
    """Definitions matching a name, a qualified name (``Class.method``, ``pkg.mod.f``) or a
    ``*`` glob, optionally by kind and path prefix."""
    client_paths.check_text(name, "symbol name", MAX_NAME_CHARS)
    if kind:
        client_paths.check_text(kind, "kind", MAX_NAME_CHARS)
    clauses: list[str] = []
    params: list[object] = []
    if "*" in name or "?" in name:
        clauses.append("(d.name GLOB ? OR d.qualname GLOB ?)")
        params += [name, name]
    elif "." in name or "#" in name or "/" in name:
        clauses.append("(d.full = ? OR d.qualname = ? OR d.full LIKE ? ESCAPE '\\')")
        params += [name, name, f"%.{like_escape(name)}"]
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
        nxt: list[str] = []
        for t in frontier:
            nxt += [str(r[0]) for r in view.each(
                "SELECT a.target FROM {aliases} a JOIN temp.vfiles f ON f.unit = a.unit "
                "WHERE a.alias = ?", (t,))]
            nxt += _through_stars(view, t)
        frontier = [t for t in dict.fromkeys(nxt) if t not in seen]
        seen.update(frontier)
    return []


def _through_stars(view: View, target: str) -> list[str]:
    """``m#a.b`` → ``n#a.b`` for each wildcard alias ``m#*`` → ``n#*`` (or ``m#a.*``)."""
    start = max(target.find("#"), 0)
    prefixes = [target[:i + 1] + "*" for i in range(start, len(target)) if target[i] in ".#"]
    if not prefixes:
        return []
    marks = ",".join("?" * len(prefixes))
    return [str(t)[:-1] + target[len(str(a)) - 1:] for a, t in view.each(
        "SELECT a.alias, a.target FROM {aliases} a JOIN temp.vfiles f ON f.unit = a.unit "
        f"WHERE a.alias IN ({marks}) AND a.target LIKE '%*'", tuple(prefixes))]


MAX_CLOSURE = 5000
MAX_STAR_HOPS = 6  # wildcard (instance) aliases chained per name: `a.m().n().k()`


def closure(view: View, d: DefRow) -> set[str]:
    """Every target string that means definition `d`: its full name, names that re-export
    it or an enclosing name (aliases: ``pkg.Cls`` → ``pkg.mod.Cls`` gives ``pkg.Cls.m`` for
    ``pkg.mod.Cls.m``), wildcard re-exports and instance aliases (``mod.var.*`` →
    ``pkg.Cls.*``) and, for members, the same member reached through a subclass that does
    not override it."""
    return closure_names(view, seeds(view, d))


def seeds(view: View, d: DefRow) -> set[str]:
    """`d`'s full name and, for a member, the same member reached through a subclass that
    does not override it: the names closure_names expands."""
    names = {d.full}
    if d.kind in MEMBER_KINDS:
        parent = owner_class(view, d)
        if parent is not None:
            names |= _through_subclasses(view, parent, d.name)
    return names


def closure_names(view: View, names: set[str]) -> set[str]:
    """`names` and every target string meaning one of them through aliases (see closure)."""
    names = set(names)
    frontier = sorted(names)
    stars: dict[str, list[str]] = {}  # wildcard target prefix ("pkg.mod.") → alias prefixes
    for a, t in view.each("SELECT a.alias, a.target FROM {aliases} a JOIN temp.vfiles f ON "
                          "f.unit = a.unit WHERE a.target LIKE '%*'"):
        stars.setdefault(str(t)[:-1], []).append(str(a)[:-1])
    inherited: dict[str, list[str]] = {}
    hops: dict[str, int] = {}  # wildcard aliases applied to reach a name
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
            for i in range(max(name.find("#"), 0), len(name)):  # `mod#` prefixes included
                if name[i] not in ".#" or name[:i + 1] not in stars:
                    continue
                if hops.get(name, 0) >= MAX_STAR_HOPS:
                    break  # `C.m.*` → `C.*` (m returns its class) would chain forever
                for alias in stars[name[:i + 1]]:
                    for prefix in [alias, *_inherited_members(view, alias[:-1], inherited)]:
                        new = prefix + name[i + 1:]
                        if new not in names:
                            names.add(new)
                            frontier.append(new)
                            hops[new] = hops.get(name, 0) + 1
            if len(names) >= MAX_CLOSURE:  # the cap holds within a level too
                break
    return names


def owner_class(view: View, d: DefRow) -> DefRow | None:
    """The class-like definition a member belongs to: its enclosing definition, or for a
    method declared outside the type's body (a Go method ``T.M``), the type by full name."""
    if d.parent >= 0:
        return def_by_unit(view, d.unit, d.parent)
    if d.kind != "method" or "." not in d.qualname:
        return None
    owners = [o for o in defs_by_full(view, [d.full[:-len(d.name) - 1]])
              if o.kind in CLASS_KINDS]
    return owners[0] if owners else None


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


def manifest_value(language: str, key: str) -> object:
    from spyglass.syntax.langpack import all_packs
    pack = all_packs().get(language)
    return pack.manifest.get(key) if pack else None


def _value_uses_are_calls(language: str) -> bool:
    return bool(manifest_value(language, "callers_include_value_uses"))


def constructed_class(view: View, d: DefRow) -> DefRow | None:
    """The class a constructor belongs to, when `d` is one by its pack's
    `constructor_names`: then calling the class (`new C()`) calls `d`."""
    names = manifest_value(d.language, "constructor_names")
    if d.kind != "method" or d.parent < 0 or not isinstance(names, list) or d.name not in names:
        return None
    parent = def_by_unit(view, d.unit, d.parent)
    return parent if parent is not None and parent.kind == "class" else None


def declaration_sites(language: str, listed: bool = False) -> frozenset[str]:
    """Sites the language's pack counts as declarations rather than references (manifest
    `declaration_sites`): "import" (an import or re-export that keeps the imported name)
    and "redefinition" (another declaration of the same full name: an overload signature,
    a merged declaration). `references` leaves them out unless declarations are `listed`."""
    sites = None if listed else manifest_value(language, "declaration_sites")
    return frozenset(str(s) for s in sites) if isinstance(sites, list) else frozenset()


TYPE_ONLY_KINDS = frozenset({"type", "interface"})
VALUE_ONLY_KINDS = frozenset({"var", "const", "func"})


def namespace_roles(view: View, d: DefRow) -> frozenset[str]:
    """Roles that mean the other namespace's definition of `d`'s name, in a pack with
    `type_namespace` where a type and a value share that name (`const X = 1; type X =
    typeof X`): type positions for the value, value positions for the type."""
    if d.kind not in TYPE_ONLY_KINDS | VALUE_ONLY_KINDS or not manifest_value(
            d.language, "type_namespace"):
        return frozenset()
    other = TYPE_ONLY_KINDS if d.kind in VALUE_ONLY_KINDS else VALUE_ONLY_KINDS
    if not any(o.kind in other for o in defs_by_full(view, [d.full])):
        return frozenset()
    if d.kind in VALUE_ONLY_KINDS:
        return frozenset({"type"})
    return frozenset({"call", "read", "write"})


def site_filter(view: View, d: DefRow, declared: frozenset[str]) -> Callable[[RefRow], bool]:
    """Which sites found for `d` are its references: not declarations by `declared`
    (see declaration_sites), not uses of the other namespace's definition of its name."""
    other = namespace_roles(view, d)
    imports = "import" in declared
    return lambda r: r.role not in other and not (imports and keeps_name(view, r))


def keeps_name(view: View, r: RefRow) -> bool:
    """An import site that binds the imported name under the same name (`import { a }`,
    `export { a } from`), not a renaming one (`import { a as b }`, a default import)."""
    return r.role == "import" and bool(view.each(
        "SELECT 1 FROM {imports} i WHERE i.unit = ? AND i.line = ? AND i.col = ? AND "
        "i.name = i.alias", (r.unit, r.line, r.col)))


def redefinitions(view: View, d: DefRow) -> list[RefRow]:
    """Other definitions with the same full name (re-assignments, property setters,
    overloads), as exact ``write`` sites of `d`."""
    return [def_site(other) for other in defs_by_full(view, [d.full])
            if (other.unit, other.idx) != (d.unit, d.idx) and other.name_line != d.name_line]


def def_site(d: DefRow) -> RefRow:
    """A definition's name as a ``write`` site (it sets the name it defines)."""
    return RefRow(d.unit, d.name, d.name_line, d.name_col, d.name_col + len(d.name), "write",
                  d.parent, "", "def", d.full, "exact", d.path, d.language, d.source, d.stale)


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
                    (sub.unit, f"{sub.qualname}.{member}")) or defs_by_full(
                        view, [f"{sub.full}.{member}"])  # a Go method outside its type body
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


# Heads of receivers of unknown type whose same-name members are candidates. "param" (a
# parameter without a type annotation) is kept apart: the references tools count those
# sites but do not list them (most such receivers hold other classes' objects: fixtures,
# callbacks' arguments); change impact keeps them all.
UNKNOWN_RECEIVERS = ("local", "expr", "free", "param")
PARAM = "param"
# The same rule in SQL: a qualified site on such a receiver, or a free bare name.
NAME_MATCH_SQL = {True: f"r.qualifier != '' AND r.head IN {UNKNOWN_RECEIVERS!r}",
                  False: "r.qualifier = '' AND r.head = 'free'"}


def unresolved_refs(view: View, d: DefRow) -> list[RefRow]:
    """Uses of the same name that could not be resolved: candidates, never certain.
    Members used on a parameter of unknown type (head "param") are among them: callers
    that list candidates decide whether to show those."""
    rows = _refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.target IS NULL AND r.name = ?",
                           (d.name,)))
    member = d.kind in MEMBER_KINDS or d.kind == "field"
    if member and (not _distinctive_member(view, d) or _builtin_member(d)):
        return []
    keep: list[RefRow] = []
    for r in rows:
        if r.qualifier and (r.head in UNKNOWN_RECEIVERS
                            or r.head.startswith(("inst:", "super:"))) \
                and member or not r.qualifier and r.head == "free" and not member:
            keep.append(r)
    return keep


MAX_NAME_CANDIDATES = 2


def _builtin_member(d: DefRow) -> bool:
    """A member name that the language's predeclared types define (Go: ``error.Error``):
    an unknown receiver using it is most likely such a value, not a candidate of `d`."""
    names = manifest_value(d.language, "builtin_members")
    return isinstance(names, list) and d.name in names


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
