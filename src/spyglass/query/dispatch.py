"""Structural interfaces: a method and the interface methods its type satisfies, one hop."""

from __future__ import annotations

from collections.abc import Callable

from spyglass.query import aliases, closure
from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import (
    DEF_COLS,
    DEF_FROM,
    REF_COLS,
    Key,
    chunks,
    defs,
    defs_by_full,
    defs_by_keys,
    key,
    marks,
    refs,
)
from spyglass.query.symbols import (
    find_defs,
    like_escape,
    manifest_value,
    owner_class,
)
from spyglass.query.view import View

MAX_DEPTH = 8  # embedding levels followed when collecting a method set
MAX_CANDIDATES = 200  # same-named methods examined for one target
MAX_PREDECLARED_SITES = 5000  # uses of a predeclared interface's method examined


def enabled(language: str) -> bool:
    """Whether the language's pack says interfaces are satisfied structurally."""
    return bool(manifest_value(language, "structural_interfaces"))


def external(language: str, kind: str) -> dict[str, list[str]]:
    """The pack's method sets of standard-library `interfaces` or `types` (its
    `external_interfaces` / `external_types`: full type name → method names)."""
    table = manifest_value(language, f"external_{kind}")
    if not isinstance(table, dict):
        return {}
    return {str(k): [str(m) for m in v] for k, v in table.items() if isinstance(v, list)}


def _method_set(view: View, t: DefRow, depth: int = 0) -> dict[str, str] | None:
    """Method names of a type, each with the full name of its definition: declared in its
    body, declared with it as receiver, and promoted from embedded project types (or
    standard-library interfaces the pack lists). None when an embedded interface is not
    known (its methods are unknown, so whether a type satisfies it cannot be told)."""
    names = {str(n): f"{t.full}.{n}" for n, in view.each(
        "SELECT d.name FROM {defs} d WHERE d.unit = ? AND d.parent = ? AND d.kind = 'method'",
        (t.unit, t.idx))}
    prefix = t.full + "."
    esc = like_escape(prefix)
    for n, f in view.each(
            "SELECT d.name, d.full FROM {defs} d JOIN temp.vfiles f ON f.unit = d.unit WHERE "
            "d.full LIKE ? ESCAPE '\\' AND d.kind = 'method'", (esc + "%",)):
        if "." not in str(f)[len(prefix):]:
            names[str(n)] = str(f)
    bases = [str(b) for b, in view.each(
        "SELECT b.base FROM {bases} b WHERE b.unit = ? AND b.idx = ?", (t.unit, t.idx))]
    known = external(t.language, "interfaces")
    for base in bases:
        found = [b for b in defs_by_full(view, [base]) if b.kind in ("struct", "interface",
                                                                   "type")]
        inner = _method_set(view, found[0], depth + 1) if found and depth < MAX_DEPTH else None
        if inner is None and not found and base in known:  # `io.Writer` embedded
            inner = {m: f"{base}.{m}" for m in known[base]}
        if inner is None:
            if t.kind == "interface":
                return None
            continue
        for n, f in inner.items():
            names.setdefault(n, f)  # a method declared on the type hides a promoted one
    return names


def _results(view: View, fulls: list[str]) -> dict[str, str]:
    """Recorded result types of methods (the pack's alias ``T.M.*`` → ``R.*``)."""
    out: dict[str, str] = {}
    for chunk in chunks(f + ".*" for f in fulls):
        for alias, target in view.each(
                "SELECT a.alias, a.target FROM {aliases} a JOIN temp.vfiles f ON "
                f"f.unit = a.unit WHERE a.alias IN ({marks(chunk)})", tuple(chunk)):
            out[str(alias)[:-2]] = str(target)
    return out


def _satisfies(view: View, needed: dict[str, str], offered: dict[str, str]) -> bool:
    """Every method of the interface is offered, and none with another result type (when
    both result types are recorded)."""
    if not needed or not set(needed) <= set(offered):
        return False
    results = _results(view, [*needed.values(), *offered.values()])
    return all(results.get(needed[n]) == results.get(offered[n])
               or needed[n] not in results or offered[n] not in results for n in needed)


def dispatched(view: View, d: DefRow, notes: list[str]) -> list[tuple[RefRow, str]]:
    """Sites meaning `d` through an interface, each with its evidence: for a method of a
    concrete type, the sites of the same-named method of each project interface the type
    satisfies; for an interface method, those of each project type satisfying the
    interface. Satisfaction is judged by method names (signatures are not recorded). The
    sites are the method's whole closure, its probes included (``x.Get().Get().M()``
    through a method returning its own interface); what the bounds cut goes to `notes`."""
    if d.kind != "method" or not enabled(d.language):
        return []
    owner = owner_class(view, d)
    if owner is None:
        return []
    mine = _method_set(view, owner)
    if not mine:
        return []
    whys: dict[Key, str] = {}  # matched method → evidence
    names: dict[str, tuple[DefRow, ...]] = {}
    probes: set[tuple[str, str]] = set()
    cut: list[str] = []
    others = [m for m in find_defs(view, d.name, kind="method")[:MAX_CANDIDATES]
              if (m.unit, m.idx) != (d.unit, d.idx)]
    for m in others:
        other = owner_class(view, m)
        if other is None or (other.kind == "interface") == (owner.kind == "interface"):
            continue
        theirs = _method_set(view, other)
        if theirs is None:
            continue
        iface, concrete = (owner, other) if owner.kind == "interface" else (other, owner)
        needed, offered = (mine, theirs) if iface is owner else (theirs, mine)
        if _satisfies(view, needed, offered):
            # Satisfaction is judged by method names: a name-level candidate, left out
            # of the `resolved` view like the other name matches.
            whys.setdefault(key(m), f"interface dispatch: {concrete.qualname} has every "
                            f"method of {iface.qualname}, matched by name")
            c = closure.of(view, [m])
            for n, ds in c.names.items():
                have = names.get(n, ())
                names[n] = have + tuple(x for x in ds if x not in have)
            probes |= set(c.probes)
            cut += [n for n in c.limitations if n not in cut]
    out = _external_sites(view, d, owner, mine, notes)
    if not names:
        return out
    found = closure.sites(view, aliases.Closure(names, tuple(sorted(probes)), tuple(cut),
                                                d.qualname))
    notes += [n for n in found.limitations if n not in notes]
    return out + [(r, next((whys[key(x)] for x in ds if key(x) in whys),
                           "interface dispatch")) for r, ds in found.sites]


def _external_sites(view: View, d: DefRow, owner: DefRow, mine: dict[str, str],
                    notes: list[str]) -> list[tuple[RefRow, str]]:
    """Sites of the same-named method of each standard-library type (the pack's
    `external_types`) having every method of the interface `owner`, or of each
    standard-library interface (`external_interfaces`) whose every method the type `owner`
    has, with what reaches them through aliases (a field of type ``bytes.Buffer``). Only
    sites in `d`'s own package (its folder) are listed: gopls searches the packages that
    depend on `d`'s, and every `w.Write` elsewhere would be a candidate."""
    iface = owner.kind == "interface"
    folder = d.path.rpartition("/")[0]
    out: list[tuple[RefRow, str]] = []
    for other, methods in external(d.language, "types" if iface else "interfaces").items():
        if d.name not in methods or not (set(mine) <= set(methods) if iface
                                         else set(methods) <= set(mine)):
            continue
        shown = other.rsplit("/", 1)[-1].replace("#", ".")
        why = (f"interface dispatch: {shown} has every method of {owner.qualname}" if iface
               else f"interface dispatch: {owner.qualname} has every method of {shown}")
        found = closure.sites(view, closure.expand(view, {f"{other}.{d.name}": ()}, shown))
        notes += [n for n in found.limitations if n not in notes]
        out += [(r, why + ", matched by name") for r, _ in found.sites
                if r.path.rpartition("/")[0] == folder]
    return out


def predeclared_sites(view: View, d: DefRow) -> list[tuple[RefRow, str]]:
    """Uses of `d` through a predeclared interface (the pack's `builtin_interfaces`, Go's
    ``error``) that `d`'s type satisfies: member uses of the same name whose receiver is not
    known to be of another type. A receiver of unknown type, or one whose type is a project
    name without such a member (`f().Error()` with f returning ``error``), counts; one
    resolved to a project definition, or to an external type (``t.Error`` on a
    ``*testing.T``), does not. Only uses in the type's own package (its folder, the same
    package clause: not an external `_test` package) are listed, as gopls does: elsewhere
    any error value could be one."""
    table = manifest_value(d.language, "builtin_interfaces")
    if d.kind != "method" or not isinstance(table, dict):
        return []
    owner = owner_class(view, d)
    if owner is None or owner.kind == "interface":
        return []
    mine = _method_set(view, owner) or {}
    names = [str(i) for i, methods in table.items()
             if isinstance(methods, list) and d.name in methods and set(methods) <= set(mine)]
    if not names:
        return []
    why = (f"interface dispatch: {owner.qualname} satisfies the predeclared "
           f"{' and '.join(names)} interface, and the receiver is not known to be of another "
           "type; matched by name")
    folder = d.path.rsplit("/", 1)[0] + "/" if "/" in d.path else ""
    esc = like_escape(folder)
    # Every `err.Error()` anywhere would be a candidate: the type's package only. The files
    # come first (a scan of the package's units by primary key, not of every ref).
    # An external test package (`package proto_test` beside `package proto`) is another
    # package: its files are left out, as gopls leaves them out.
    package = next((str(p) for (p,) in view.each("SELECT u.package FROM {units} u WHERE "
                                                  "u.id = ?", (d.unit,))), "")
    rows = refs(view.each(f"SELECT {REF_COLS} FROM temp.vfiles f CROSS JOIN {{refs}} r ON "
                           "r.unit = f.unit JOIN {units} u ON u.id = f.unit "
                           "WHERE f.path LIKE ? ESCAPE '\\' AND u.package = ? AND "
                           "f.language = ? AND r.name = ? AND r.qualifier != '' LIMIT ?",
                           (esc + "%", package, d.language, d.name, MAX_PREDECLARED_SITES)))
    out: list[tuple[RefRow, str]] = []
    verdicts: dict[str, bool] = {}
    for r in rows:
        if not r.path.startswith(folder) or "/" in r.path[len(folder):]:
            continue  # a subfolder's package (or a LIKE match differing in case)
        if r.target:
            verdict = verdicts.get(r.target)
            if verdict is None:
                verdict = verdicts[r.target] = _unbound_project_member(view, r.target)
            if not verdict:
                continue
        out.append((r, why))
    return out


def _unbound_project_member(view: View, target: str) -> bool:
    """A target that names no definition but starts at a project definition (its package
    part and first name exist): the member of a value whose type the index does not know."""
    if aliases.resolve(view, [target]):
        return False
    package, sep, path = target.partition("#")
    if not sep or "." not in path:
        return False
    return bool(defs_by_full(view, [f"{package}#{path.split('.', 1)[0]}"]))


def _bases_of(view: View, t: DefRow) -> list[str]:
    return [str(b) for b, in view.each(
        "SELECT b.base FROM {bases} b WHERE b.unit = ? AND b.idx = ?", (t.unit, t.idx))]


def is_structural(view: View, t: DefRow) -> bool:
    """A type satisfied structurally: an interface of a pack with `structural_interfaces`
    (Go), or a class deriving from one of its pack's `structural_bases` (Python's
    ``typing.Protocol``)."""
    if t.kind == "interface":
        return enabled(t.language)
    marks_ = manifest_value(t.language, "structural_bases")
    return isinstance(marks_, list) and t.kind == "class" and bool(
        set(_bases_of(view, t)) & {str(m) for m in marks_})


def _structural_language(view: View, t: DefRow) -> bool:
    return enabled(t.language) or isinstance(manifest_value(t.language, "structural_bases"),
                                             list)


def interfaces(view: View, language: str) -> list[DefRow]:
    """The structural interfaces of a language's files (at most MAX_CANDIDATES + 1)."""
    found: list[DefRow] = []
    if enabled(language):
        found += defs(view.each(f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.kind = 'interface' AND "
                                f"f.language = ? LIMIT {MAX_CANDIDATES + 1}", (language,)))
    marks_ = manifest_value(language, "structural_bases")
    if isinstance(marks_, list) and marks_:
        wanted = [str(m) for m in marks_]
        keys = [(int(str(u)), int(str(i))) for u, i in view.each(
            "SELECT b.unit, b.idx FROM {bases} b JOIN temp.vfiles f ON f.unit = b.unit WHERE "
            f"f.language = ? AND b.base IN ({marks(wanted)}) LIMIT {MAX_CANDIDATES + 1}",
            (language, *wanted))]
        found += list(defs_by_keys(view, keys).values())
    return found


def partners(view: View, t: DefRow, notes: list[str]) -> list[tuple[DefRow, str]]:
    """For a structural interface `t`, the project types that satisfy it; for another type,
    the structural interfaces it satisfies: each with its evidence. The rule of `dispatched`
    (every method of the interface offered, result types agreeing where recorded), judged
    by method names; what the bounds cut is named in `notes`."""
    if t.kind not in ("interface", "class", "struct", "type") or not _structural_language(
            view, t):
        return []
    iface = is_structural(view, t)
    mine = _method_set(view, t)
    if not mine:
        return []
    others: list[DefRow] = []
    if iface:  # a type satisfying it declares one of its methods, or embeds such a type
        found: list[DefRow] = []
        for n in sorted(mine):
            found += find_defs(view, n, kind="method")
        if len(found) > MAX_CANDIDATES:
            notes.append(f"{len(found)} methods named like those of {t.qualname}: the first "
                         f"{MAX_CANDIDATES} examined for structural satisfaction")
        owners = {key(o): o for o in closure.owners(view, found[:MAX_CANDIDATES]).values()}
        for sub, _ in closure.subclasses_of(view, sorted({o.full for o in owners.values()})):
            owners.setdefault(key(sub), sub)
        others = list(owners.values())
    else:
        others = interfaces(view, t.language)
        if len(others) > MAX_CANDIDATES:
            notes.append(f"more than {MAX_CANDIDATES} interfaces: the first "
                         f"{MAX_CANDIDATES} examined for structural satisfaction")
            others = others[:MAX_CANDIDATES]
    out: list[tuple[DefRow, str]] = []
    for other in others:
        if key(other) == key(t) or other.language != t.language or \
                is_structural(view, other) == iface:
            continue
        theirs = _method_set(view, other)
        if theirs is None:
            continue
        needed, offered = (mine, theirs) if iface else (theirs, mine)
        if _satisfies(view, needed, offered):
            i, c = (t, other) if iface else (other, t)
            why = f"{c.qualname} has every method of {i.qualname}, matched by name"
            out.append((other, why))
    return out


def member_full(view: View, t: DefRow, name: str) -> str | None:
    """The full name of the method `name` in `t`'s method set (declared on it, with it as
    receiver, or promoted from a project base), else of a member declared on `t`."""
    found = (_method_set(view, t) or {}).get(name)
    return found or f"{t.full}.{name}"


MAX_LIBRARY_PREFIXES = 50  # project names aliasing a library type, read for its methods
MAX_LIBRARY_USES = 2000  # member uses read per library type
MIN_LIBRARY_METHODS = 2  # methods the project calls on a library type, at least


def library_dispatch(view: View, d: DefRow, targets: set[str]) -> Callable[[RefRow], str]:
    """The evidence flagging a use of `d`'s name bound to a member no definition declares
    as a library interface's dispatch to `d` (`_library_reasons`), "" for none. Only uses
    in `d`'s package (its folder) or in a file importing it count: gopls searches the
    packages depending on `d`'s, and a library value elsewhere cannot hold `d`'s type
    unless that package hands it out."""
    reasons = _library_reasons(view, d, targets)
    if not reasons:
        return lambda r: ""
    package = d.full.split("#", 1)[0]
    folder = d.path.rpartition("/")[0]
    units = {int(str(u)) for (u,) in view.each(
        "SELECT DISTINCT i.unit FROM {imports} i JOIN temp.vfiles f ON f.unit = i.unit "
        "WHERE i.module = ?", (package,))}

    def why(r: RefRow) -> str:
        if r.target is None or r.target not in reasons:
            return ""
        return reasons[r.target] if r.unit in units or r.path.rpartition("/")[0] == folder \
            else ""
    return why


def _library_reasons(view: View, d: DefRow, targets: set[str]) -> dict[str, str]:
    """Of `targets` (uses of `d`'s name bound to a member no definition declares), those
    that are a method of a library type the index did not read (a field of type
    `fs.FileInfo`, a value of a type alias `Message = protoiface.MessageV1`) which the type
    of method `d` may implement: `d`'s type has at least MIN_LIBRARY_METHODS of the methods
    the project calls on that type, and at least half of them (its whole method set is not
    known; a method called through a type assertion or an optional interface may be among
    them). Each with its evidence: flagged "interface dispatch", matched by name."""
    if d.kind != "method" or not enabled(d.language) or not targets:
        return {}
    owner = owner_class(view, d)
    if owner is None or owner.kind == "interface":
        return {}
    mine = set(_method_set(view, owner) or {})
    out: dict[str, str] = {}
    seen: dict[str, set[str]] = {}
    for t in sorted(targets):
        if not t.endswith("." + d.name):
            continue
        member = _library_member(view, t)
        if member is None or not member.endswith("." + d.name):
            continue
        lib = member[:-len(d.name) - 1]
        if lib not in seen:
            seen[lib] = _called_on(view, lib)
        used = seen[lib]
        offered = used & mine
        if d.name in used and len(offered) >= MIN_LIBRARY_METHODS and \
                2 * len(offered) >= len(used):
            shown = lib.rsplit("/", 1)[-1].replace("#", ".")
            out[t] = (f"interface dispatch: {owner.qualname} has {len(offered)} of the "
                      f"{len(used)} methods the project calls on {shown} "
                      f"({', '.join(sorted(offered))}), a library type the index did not "
                      "read (its method set is not known); matched by name")
    return out


def _library_member(view: View, target: str) -> str | None:
    """The library member a project name means, following aliases (a field's or value's
    declared type, a function's result, a type alias) until a name outside every module
    of the view; None when none is reached."""
    current = {target}
    for _ in range(aliases.MAX_DEPTH):
        steps = aliases.one_step(view, current)
        nxt = {s for ss in steps.values() for s in ss} - current
        if not nxt:
            return None
        modules = {n.split("#", 1)[0] for n in nxt if "#" in n}
        known = closure.modules_of(view, modules)
        outside = sorted(n for n in nxt if "#" in n and n.split("#", 1)[0] not in known)
        if outside:
            return outside[0]
        current = nxt
    return None


def _called_on(view: View, lib: str) -> set[str]:
    """Member names the project uses on values of library type `lib`: through the names
    aliasing it (exact or wildcard, two hops back) and on the type's own name."""
    prefixes = {lib}
    frontier = {lib}
    for _ in range(2):
        found: set[str] = set()
        for chunk in chunks(sorted(frontier)):
            for (a,) in view.each("SELECT DISTINCT a.alias FROM {aliases} a JOIN temp.vfiles f "
                                  f"ON f.unit = a.unit WHERE a.target IN ({marks(chunk)})",
                                  tuple(chunk)):
                found.add(str(a))
            for (a,) in view.each("SELECT DISTINCT a.alias FROM {aliases} a JOIN temp.vfiles f "
                                  f"ON f.unit = a.unit WHERE a.target IN ({marks(chunk)})",
                                  tuple(f"{n}.*" for n in chunk)):
                found.add(str(a).removesuffix(".*"))
        frontier = found - prefixes
        prefixes |= frontier
        if len(prefixes) > MAX_LIBRARY_PREFIXES:
            break
    names: set[str] = set()
    for p in sorted(prefixes)[:MAX_LIBRARY_PREFIXES]:
        for (t,) in view.each("SELECT DISTINCT r.target FROM {refs} r JOIN temp.vfiles f ON "
                              "f.unit = r.unit WHERE r.target >= ? AND r.target < ? LIMIT ?",
                              (p + ".", p + "/", MAX_LIBRARY_USES)):
            rest = str(t)[len(p) + 1:]
            if rest and "." not in rest:
                names.add(rest)
    return names
