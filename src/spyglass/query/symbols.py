"""Symbol questions over a view: definitions, targets at a position, references, callers."""

from __future__ import annotations

from collections.abc import Callable

from spyglass.errors import BadInput
from spyglass.query import aliases, closure
from spyglass.query import paths as client_paths
from spyglass.query.closure import MEMBER_KINDS, VALUE_CALLABLE
from spyglass.query.display import display
from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import (
    DEF_COLS,
    DEF_FROM,
    REF_COLS,
    REF_FROM,
    defs,
    defs_by_full,
    key,
    refs,
)
from spyglass.query.view import View
from spyglass.syntax import heads as H

MAX_NAME_CHARS = 1000  # a symbol name or pattern (SQLite refuses too complex LIKE/GLOBs)


def like_escape(text: str) -> str:
    """`text` as a literal inside a `LIKE ? ESCAPE '\\'` pattern."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _last_part(name: str) -> str:
    """A qualified name's own name: after the last ``.``, or after the module's ``#`` (a
    leading ``#`` belongs to the name: a private field ``Store.#items``)."""
    last = name.rsplit(".", 1)[-1]
    return last.rsplit("#", 1)[-1] if "#" in last[1:] else last


def find_defs(view: View, name: str, kind: str | None = None, path: str | None = None
              ) -> list[DefRow]:
    """Definitions matching a name, a qualified name (``Class.method``, ``pkg.mod.f``, the
    full name ``import/path#Type.M``, or the name answers print: ``pkg.Type.M``, see
    display.display) or a ``*`` glob, optionally by kind and path prefix."""
    client_paths.check_text(name, "symbol name", MAX_NAME_CHARS)
    file_part, sep, qual = name.rpartition(":")
    if sep and file_part and qual and not qual.isdigit() and "*" not in name \
            and "?" not in name and _is_source_path(file_part):
        # `path/file.ext:Class.method`: the qualified name inside one file
        if path and not (file_part == path or file_part.startswith(path.rstrip("/") + "/")):
            return []
        return [d for d in find_defs(view, qual, kind, file_part)
                if d.path == file_part and (qual in (d.qualname, d.name, display(d))
                                            or d.qualname.endswith("." + qual))]
    if kind:
        client_paths.check_text(kind, "kind", MAX_NAME_CHARS)
    clauses: list[str] = []
    params: list[object] = []
    qualified = False
    if "*" in name or "?" in name:  # globs ignore case: `*config*` finds `AppConfig`
        # A dotted glob may start at any part of the qualified name: `Utils.*` finds
        # `Rack.Utils.escape` (nested modules and classes, namespaces).
        clauses.append("(lower(d.name) GLOB ? OR lower(d.qualname) GLOB ?"
                       " OR lower(d.qualname) GLOB ?)")
        params += [name.lower(), name.lower(), "*." + name.lower()]
    elif "." in name or "#" in name or "/" in name:
        clauses.append("d.name = ?")  # the last part; the rest is matched below
        params.append(_last_part(name))
        qualified = True
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
    found = defs(view.each(sql, tuple(params)))
    if qualified:
        found = [d for d in found if _qualified_match(d, name)]
    return found


def _qualified_match(d: DefRow, name: str) -> bool:
    """A qualified name meaning `d`: its full name, its name in its file, the printed name,
    or any tail of the full name written with dots (``example.com/zoo.Dog.Speak``,
    ``src/shapes.Square.area``, ``mod.Class.meth``), cut at a dot or a slash."""
    if name in (d.full, d.qualname, display(d)):
        return True
    dotted = d.full.replace("#", ".")
    return dotted == name or dotted.endswith(("." + name, "/" + name))


def _is_source_path(text: str) -> bool:
    from spyglass.syntax.langpack import pack_for_path
    return pack_for_path(text) is not None


def defs_in_file(view: View, path: str) -> list[DefRow]:
    return defs(view.each(f"SELECT {DEF_COLS} {DEF_FROM} WHERE f.path = ?", (path,)))


def def_by_unit(view: View, unit: int, idx: int) -> DefRow | None:
    rows = defs(view.each(f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.unit = ? AND d.idx = ?",
                          (unit, idx)))
    return rows[0] if rows else None


def targets_at(view: View, path: str, line: int, column: int | None) -> list[DefRow]:
    """The definition(s) meant at a position: a definition's name, a reference resolved to
    definitions, or the innermost definition whose span holds the line."""
    col0 = column - 1 if column is not None else None
    defs = defs_in_file(view, path)
    on_name = [d for d in defs if d.name_line == line and (
        col0 is None or d.name_col <= col0 < d.name_col + len(d.name))]
    if on_name:
        return on_name[:1] if col0 is not None else on_name
    here = refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE f.path = ? AND r.line = ?",
                          (path, line)))
    if col0 is not None:
        here = [r for r in here if r.col <= col0 < r.end_col]
    for ref in here:
        if ref.target:
            hits = aliases.resolve(view, [ref.target]).get(ref.target)
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


def owner_class(view: View, d: DefRow) -> DefRow | None:
    """The class-like definition a member belongs to: its enclosing definition, or for a
    method declared outside the type's body (a Go method ``T.M``), the type by full name."""
    if d.parent >= 0:
        return def_by_unit(view, d.unit, d.parent)
    return closure.owners(view, [d]).get(key(d))


def is_property(view: View, d: DefRow) -> bool:
    """A function whose decorators make reading it a call (the resolver's marker base)."""
    return bool(view.each("SELECT 1 FROM {bases} b WHERE b.unit = ? AND b.idx = ? AND "
                          "b.base = ?", (d.unit, d.idx, H.PROPERTY_MARKER)))


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
        if manifest_value(d.language, "callers_value_uses_in_functions"):
            # only where a function holds the use (a table at file level has no caller)
            return lambda r: "call" if r.role == "call" else (
                "indirect" if r.role == "read" and r.target is not None
                and _in_function(view, r) else None)
        return lambda r: "call" if r.role == "call" else (
            "indirect" if r.role == "read" and r.target is not None else None)
    if d.kind in VALUE_CALLABLE and _member_uses_are_calls(d.language):
        if d.kind != "method" and manifest_value(d.language, "callers_member_uses_methods_only"):
            return lambda r: "call" if r.role == "call" else None
        return member_use_filter(d)
    return lambda r: "call" if r.role == "call" else None


# Receivers named by a definition or an import: for a method, its class by name (a static
# access, or a doc-comment link `{@link C#m}`, which tsc does not count as a call).
_NAMED_RECEIVERS = (H.DEF, H.IMPORT)


def member_use_filter(d: DefRow) -> Callable[[RefRow], str | None]:
    """Where the pack says so (manifest `callers_include_member_uses`, as tsc's call
    hierarchy counts a reference that is the name of a property access): a call site is
    "call"; a bound member read or written on an instance (`this.m.bind(this)`,
    `{ m: this.m }`, `this.m = ...`, `store.m`) is "indirect", flagged. A bare name used as
    a value, a name-matched member, a method read through its class's name are not."""
    method = d.kind == "method"

    def how(r: RefRow) -> str | None:
        if r.role == "call":
            return "call"
        if r.role not in ("read", "write") or not r.qualifier or r.target is None \
                or r.conf == "ambiguous":
            return None
        if method and H.split(r.head)[0] in _NAMED_RECEIVERS and not r.qualifier.endswith(")"):
            return None  # through its class's name, not an instance (`Codec().encode`)
        return "indirect"
    return how


def _member_uses_are_calls(language: str) -> bool:
    return bool(manifest_value(language, "callers_include_member_uses"))


def manifest_value(language: str, key: str) -> object:
    from spyglass.syntax.langpack import pack_named
    pack = pack_named(language)
    return pack.manifest.get(key) if pack else None


def _in_function(view: View, r: RefRow) -> bool:
    """Whether a function or method holds the site `r`."""
    outer = enclosing(view, r)
    return outer is not None and outer.kind in VALUE_CALLABLE


def _value_uses_are_calls(language: str) -> bool:
    return bool(manifest_value(language, "callers_include_value_uses"))


def constructed_class(view: View, d: DefRow) -> DefRow | None:
    """The class a constructor belongs to, when `d` is one by its pack's
    `constructor_names`: then calling the class (`new C()`) calls `d`."""
    names = manifest_value(d.language, "constructor_names")
    if d.kind != "method" or d.parent < 0 or not isinstance(names, list) or d.name not in names:
        return None
    parent = def_by_unit(view, d.unit, d.parent)
    # (a struct's too: Swift `struct Circle { init(..) }`, C# and C++ structs)
    return parent if parent is not None and parent.kind in ("class", "struct") else None


def declaration_sites(language: str, listed: bool = False) -> frozenset[str]:
    """Sites the language's pack counts as declarations rather than references (manifest
    `declaration_sites`): "import" (an import or re-export that keeps the imported name)
    and "redefinition" (another declaration of the same full name: an overload signature,
    a merged declaration). `references` leaves them out unless declarations are `listed`."""
    sites = None if listed else manifest_value(language, "declaration_sites")
    return frozenset(str(s) for s in sites) if isinstance(sites, list) else frozenset()


TYPE_ONLY_KINDS = frozenset({"type", "interface"})
VALUE_ONLY_KINDS = frozenset({"var", "const", "func"})


# Kinds in separate member namespaces (manifest `member_namespaces`): the other side.
_VALUES, _CALLABLES = frozenset({"field", "const", "var"}), frozenset({"method", "func", "test"})
MEMBER_NAMESPACES = {**dict.fromkeys(_VALUES, _CALLABLES), **dict.fromkeys(_CALLABLES, _VALUES)}


def namespace_roles(view: View, d: DefRow) -> frozenset[str]:
    """Roles that mean the other namespace's definition of `d`'s name, in a pack with
    `type_namespace` where a type and a value share that name (`const X = 1; type X =
    typeof X`): type positions for the value, value positions for the type. In a pack
    with `member_namespaces` (Java: a field and a method may share a name) a field's
    name is never called and a method's never read or written (a method reference is a
    call)."""
    if d.kind in MEMBER_NAMESPACES and manifest_value(d.language, "member_namespaces"):
        other_kinds = MEMBER_NAMESPACES[d.kind]
        if any(o.kind in other_kinds for o in defs_by_full(view, [d.full])):
            return frozenset({"call"}) if d.kind in ("field", "const", "var") else \
                frozenset({"read", "write"})
        return frozenset()
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
    return RefRow(unit=d.unit, name=d.name, line=d.name_line, col=d.name_col,
                  end_col=d.name_col + len(d.name), role="write", scope=d.parent, qualifier="",
                  head="def", target=d.full, conf="exact", path=d.path, language=d.language,
                  source=d.source, stale=d.stale)


# Heads of receivers of unknown type whose same-name members are candidates. "param" (a
# parameter without a type annotation) is kept apart: the references tools count those
# sites but do not list them (most such receivers hold other classes' objects: fixtures,
# callbacks' arguments); change impact keeps them all.
UNKNOWN_RECEIVERS = H.UNKNOWN_RECEIVERS
PARAM = H.PARAM
# The same rule in SQL: a qualified site on such a receiver, or a free bare name.
NAME_MATCH_SQL = {True: f"r.qualifier != '' AND r.head IN {UNKNOWN_RECEIVERS!r}",
                  False: f"r.qualifier = '' AND r.head = '{H.FREE}'"}


def unresolved_refs(view: View, d: DefRow) -> list[RefRow]:
    """Uses of the same name that could not be resolved: candidates, never certain.
    Members used on a parameter of unknown type (head "param") are among them: callers
    that list candidates decide whether to show those. So are guessed bindings (a target
    with confidence "ambiguous": a member of what another module's function returns) that
    reach no definition: never dropped silently."""
    member = d.kind in MEMBER_KINDS or d.kind == "field"
    if member and not member_candidate(view, d):
        return []
    # Two selects, each on its partial index (refs_unresolved, refs_ambiguous): an OR of
    # the two conditions would scan every reference of a large view.
    rows = refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.target IS NULL AND "
                          f"r.name = ? UNION ALL SELECT {REF_COLS} {REF_FROM} WHERE "
                          "r.conf = 'ambiguous' AND r.target IS NOT NULL AND r.name = ?",
                          (d.name, d.name)))
    rows = [r for r in rows if name_matched(r, member)]
    guessed = {r.target for r in rows if r.target is not None}
    if guessed:  # a guess that reaches a definition is a binding, not a candidate
        bound = aliases.resolve(view, guessed)
        rows = [r for r in rows if r.target is None or r.target not in bound]
        outside = _outside_guesses(view, [r for r in rows if r.target is not None])
        if outside:
            rows = [r for r in rows if r.target not in outside]
    return rows


def _outside_guesses(view: View, rows: list[RefRow]) -> set[str]:
    """Guessed targets that start in no module of the view (`importlib.metadata.
    entry_points.__element__.load`: a member of what another package returns), for the
    languages whose manifest says such a guess is never a project member
    (`external_guesses_dropped`, Python: its imports name the module they bind)."""
    wanted = {r.target for r in rows if r.target is not None
              and manifest_value(r.language, "external_guesses_dropped")}
    if not wanted:
        return set()
    prefixes = {t: [t[:i] for i in range(len(t)) if t[i] == "."] for t in wanted}
    modules = closure.modules_of(view, {p for ps in prefixes.values() for p in ps})
    return {t for t, ps in prefixes.items() if not any(p in modules for p in ps)}


def name_matched(r: RefRow, member: bool) -> bool:
    """Whether an unresolved site `r` is a name-matched candidate of a definition of its
    name: a member on a receiver of unknown type (or through an instance or super), or a
    free bare name of a non-member. The one rule of references and callees."""
    if r.qualifier:
        return member and (r.head in UNKNOWN_RECEIVERS or "()" in r.qualifier  # chains
                           or r.head.startswith((H.prefix(H.INST), H.prefix(H.SUPER))))
    return not member and r.head == H.FREE


def member_candidate(view: View, d: DefRow) -> bool:
    """A member whose name says something about a receiver of unknown type: defined by few
    classes and not a member of the language's predeclared types."""
    return _distinctive_member(view, d) and not _builtin_member(d)


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


MAX_CANDIDATES_NAMED = 8


def ambiguity(targets: list[DefRow]) -> str:
    """For targets with several full names (a name several definitions share), the note
    naming them and how to pick one; "" for one symbol. Never guessed: the answer covers
    every candidate, flagged uncertain."""
    fulls: dict[str, DefRow] = {}
    for t in targets:
        fulls.setdefault(t.full, t)
    if len(fulls) < 2:
        return ""
    named = ", ".join(f"{display(d)} ({d.path}:{d.name_line})"
                      for d in list(fulls.values())[:MAX_CANDIDATES_NAMED])
    more = f" and {len(fulls) - MAX_CANDIDATES_NAMED} more" \
        if len(fulls) > MAX_CANDIDATES_NAMED else ""
    return (f"ambiguous: {len(fulls)} definitions match: {named}{more}; every one is "
            "answered, flagged uncertain; ask with a qualified name or path and line")
