"""Rust name resolution: crate-qualified dotted full names from Cargo.toml and the file layout.

A file belongs to the crate of the nearest `Cargo.toml` above it that declares a
`[package]` (a workspace's members each have theirs); the crate's name (`-` → `_`, or
`[lib] name`) heads every full name. Below the crate folder, `src/a/b.rs` is module `a.b`
(``lib.rs``, ``main.rs`` and ``mod.rs`` stand for their folder); a file elsewhere in the
crate (`tests/`, `benches/`, `examples/`) is its own crate root, named after its path,
whose `mod util;` is its sibling `tests/util.rs` (an alias to that module).
Full names are ``crate.module.Qual.name``; inline modules (`mod tests { .. }`) nest by
their definitions.

Paths: `crate::` is the file's crate root, `self::` its module, `super::` the parent
module (each inline module counted); a path whose first name is bound in the file (a
`use`, a `mod`, a local item) follows the binding; any other first name is a crate
(workspace members by their names, external crates stay external). A bare name bound by
nothing is read through the scope's `use …::*` imports (inferred), else left for name
matching. Receivers of known type (``inst:`` heads) reach members of that type
(inferred); a function's return type (`-> Self`, `-> Circle`) becomes an alias
``f.*`` → ``Type.*``, so `Circle::new(..).area()` reaches `Circle.area`. A `pub use` is an
alias from this module's name to the one it uses.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterable

from spyglass.syntax import heads as H
from spyglass.types import Definition, FileContext, FileFacts, Import, Resolution

ROOT_FILES = ("main", "lib", "mod")
_WRAPPED = re.compile(r"^(?:Option|Box|Rc|Arc|Result|io::Result)<\s*([^,<>]+)")
_TYPE_WRAPPERS = re.compile(r"^(?:&(?:'\w+\s+)?(?:mut\s+)?|(?:dyn|impl)\s+)")


def _crate_of(toml_text: bytes | None) -> str | None:
    """The crate name a Cargo.toml declares (`[lib] name`, else `[package] name`)."""
    if toml_text is None:
        return None
    try:
        doc = tomllib.loads(toml_text.decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError:
        return None
    package = doc.get("package")
    lib = doc.get("lib")
    name = lib.get("name") if isinstance(lib, dict) else None
    if not isinstance(name, str) and isinstance(package, dict):
        name = package.get("name")
    return name.replace("-", "_") if isinstance(name, str) else None


def module_keys(paths: Iterable[str], read: Callable[[str], bytes | None]
                ) -> dict[str, FileContext]:
    """Each file's module (`crate.a.b`) and its crate root (the `crate::` of its paths)."""
    crates: dict[str, str | None] = {}  # folder → crate name declared there (None: none)

    def crate_at(folder: str) -> str | None:
        if folder not in crates:
            crates[folder] = _crate_of(read(f"{folder}/Cargo.toml" if folder else "Cargo.toml"))
        return crates[folder]

    out: dict[str, FileContext] = {}
    for path in paths:
        parts = path.split("/")
        crate, base = None, 0
        for i in range(len(parts) - 1, -1, -1):
            crate = crate_at("/".join(parts[:i]))
            if crate is not None:
                base = i
                break
        rel = parts[base:]
        stem = rel[-1].removesuffix(".rs")
        settings: dict[str, str] = {}
        top = [crate] if crate else []
        if rel[0] == "src" and len(rel) > 1:
            module = [*top, *rel[1:-1], *([] if stem in ROOT_FILES else [stem])]
            root = top
        else:  # tests/x.rs, benches/y.rs, build.rs: a crate of its own
            module = root = [*top, *rel[:-1], *([] if stem == "mod" else [stem])]
            if stem != "mod":  # its `mod util;` is the sibling tests/util.rs (util/mod.rs)
                settings["siblings"] = ".".join([*top, *rel[:-1]])
        settings["crate"] = ".".join(root)
        out[path] = FileContext(path=path, module=".".join(module),
                                settings=tuple(sorted(settings.items())))
    return out


class _File:
    """One file's resolution state: its module, crate root and bindings."""

    def __init__(self, facts: FileFacts, ctx: FileContext) -> None:
        self.facts = facts
        self.module = ctx.module.split(".") if ctx.module else []
        self.crate = dict(ctx.settings).get("crate", "")
        self.defs = facts.definitions
        # `mod m;` / `mod m { .. }` at the top: `use m::X` starts from this module
        self.mods = {d.name for d in facts.definitions if d.kind == "module" and d.parent < 0}
        self.bound = [self.path(self._import_text(i), self.inline(i.scope))
                      for i in facts.imports]

    @staticmethod
    def _import_text(imp: Import) -> str:
        text = imp.module.replace("::", ".").replace(" ", "")
        return text if imp.name in (None, "*", "self") else f"{text}.{imp.name}"

    def inline(self, index: int) -> list[str]:
        """The module path of definition `index`: the file's module and inline modules."""
        chain: list[str] = []
        while index >= 0:
            d = self.defs[index]
            if d.kind == "module":
                chain.append(d.name)
            index = d.parent
        return [*self.module, *reversed(chain)]

    def path(self, text: str, here: list[str]) -> str:
        """A path (with `.` for `::`) as a full name, from module `here`."""
        parts = [p for p in text.split(".") if p]
        if not parts:
            return ".".join(here)
        first = parts[0]
        if first == "crate":
            return ".".join([*(self.crate.split(".") if self.crate else []), *parts[1:]])
        if first in ("self", "super"):
            base = list(here)
            while parts and parts[0] in ("self", "super"):
                if parts.pop(0) == "super" and base:
                    base.pop()
            return ".".join([*base, *parts])
        if first in self.mods and len(here) >= len(self.module):
            return ".".join([*self.module, *parts])
        return ".".join(parts)


def resolve(facts: FileFacts, ctx: FileContext) -> Resolution:
    """Resolve every reference of one file to a crate-qualified dotted name, or None."""
    f = _File(facts, ctx)
    prefix = ".".join(f.module)
    pre = f"{prefix}." if prefix else ""
    stars: dict[int, list[str]] = {}  # scope (definition index) → wildcard-imported modules
    for imp, bound in zip(facts.imports, f.bound):
        if imp.name == "*" and not imp.reexport:
            stars.setdefault(imp.scope, []).append(bound)
    targets: list[str | None] = []
    confidence: list[str] = []
    for ref in facts.references:
        head, arg = H.split(ref.head)
        qualifier = ref.qualifier.replace("()", "")
        rest = qualifier.split(".")[1:] if qualifier else []
        tail = ".".join([*rest, ref.name])
        target: str | None = None
        conf = "exact"
        if head == H.IMPORT:
            base = f.bound[int(arg)]
            target = f"{base}.{tail}" if qualifier and ref.role != "import" else base
        elif head == H.DEF:
            target = f"{pre}{arg}.{tail}" if qualifier else f"{pre}{arg}"
        elif head == H.SELF and qualifier:
            owner, _, inner = arg.partition(".")
            target = ".".join([_owner(f, owner, pre), *([inner] if inner else []), tail])
            conf = "exact" if not rest else "inferred"
        elif head == H.INST:
            target, conf = _instance(f, arg, qualifier, ref.name, pre), "inferred"
        elif head == H.FREE and qualifier:
            first = qualifier.split(".", 1)[0]
            starred = _through_stars(f, stars, ref.scope, qualifier) \
                if first[:1].isupper() else None
            if first in ("crate", "self", "super"):
                target = f.path(f"{qualifier}.{ref.name}", f.inline(ref.scope))
            elif starred:  # `Circle::new` with `use super::*`: a type the glob brings in
                target, conf = f"{starred}.{ref.name}", "inferred"
            else:  # another crate's path (a workspace member, or external)
                target, conf = f"{qualifier}.{ref.name}", "inferred"
        elif head == H.FREE:
            target = _through_stars(f, stars, ref.scope, ref.name)
            conf = "inferred"
        targets.append(target)
        confidence.append(conf if target else "ambiguous")
    def_full = tuple(_def_full(f, d, pre) for d in facts.definitions)
    bases: list[tuple[str, ...]] = []
    aliases: list[tuple[str, str]] = []
    for d, full in zip(facts.definitions, def_full):
        bases.append(())
        if d.bases and d.kind in ("func", "method", "field", "var", "type"):
            typ = _type(f, d.bases[0], d, pre)
            if typ:
                aliases.append((f"{full}.*" if d.kind != "type" else full, f"{typ}.*"
                                if d.kind != "type" else typ))
    siblings = dict(ctx.settings).get("siblings")
    for d in facts.definitions if siblings is not None else ():
        if d.kind == "module" and d.parent < 0 and d.start_line == d.end_line:
            aliases += [(f"{pre}{d.name}", f"{siblings}.{d.name}"),
                        (f"{pre}{d.name}.*", f"{siblings}.{d.name}.*")]
    for imp, bound in zip(facts.imports, f.bound):
        if imp.reexport:
            here = ".".join(f.inline(imp.scope))
            name = "*" if imp.name == "*" else imp.alias
            alias = f"{here}.{name}" if here else name
            source = f"{bound}.*" if imp.name == "*" else bound
            if alias != source:
                aliases.append((alias, source))
    return Resolution(tuple(targets), tuple(confidence), def_full, tuple(bases),
                      tuple(aliases))


def _def_full(f: _File, d: Definition, pre: str) -> str:
    """A definition's full name; the members of an impl block are its type's (`_owner`)."""
    head, _, rest = d.qualname.partition(".")
    if rest and d.kind in ("method", "const", "type"):
        return f"{_owner(f, head, pre)}.{rest}"
    return f"{pre}{d.qualname}"


def _owner(f: _File, head: str, pre: str) -> str:
    """The full name of the type an impl block names (the head of its members' qualified
    names, and of `self:` heads): a path as written (`impl Deserializer for crate::Value`)
    from the file's module, an imported type (`impl fmt::Display for Version` in another
    module than Version's) as the `use` binds it, else a name of this module."""
    if "::" in head:
        return f.path(head.replace("::", "."), f.module)
    if not any(t.qualname == head for t in f.defs):
        for imp, bound in zip(f.facts.imports, f.bound):
            if imp.alias == head and imp.name != "*" and imp.scope < 0:
                return bound
    return f"{pre}{head}"


def _through_stars(f: _File, stars: dict[int, list[str]], scope: int, name: str) -> str | None:
    """A bare unbound name read through the nearest scope's `use …::*` (first one)."""
    index = scope
    while True:
        found = stars.get(index)
        if found:
            return f"{found[0]}.{name}"
        if index < 0:
            return None
        index = f.defs[index].parent


def _instance(f: _File, arg: str, qualifier: str, name: str, pre: str) -> str | None:
    """A member of a receiver of known type (an ``inst:`` head)."""
    inst = H.parse_instance(arg)
    kind, val = H.split(inst.type_head)
    type_parts = inst.type_text.split(".")
    if kind == H.IMPORT:
        base = f.bound[int(val)]
    elif kind in (H.DEF, H.SELF):
        base = f"{pre}{val}"
    elif kind == H.FREE:
        base = f.path(type_parts[0], f.module)
    else:
        return None
    return ".".join([base, *type_parts[1:], *qualifier.split(".")[inst.consumed:], name])


def _type(f: _File, text: str, d: Definition, pre: str) -> str:
    """A declared type as a full name: `Self` is the impl's type; "" for other types."""
    text = _TYPE_WRAPPERS.sub("", text.strip())
    wrapped = _WRAPPED.match(text)  # `Result<Self, Error>`, `Option<Circle>`: the value's type
    if wrapped:
        text = _TYPE_WRAPPERS.sub("", wrapped.group(1).strip())
    text = re.sub(r"<.*>$", "", text).replace("::", ".").strip()
    if text == "Self" and "." in d.qualname:
        return f"{pre}{d.qualname.rsplit('.', 1)[0]}"
    if not re.fullmatch(r"[A-Za-z_][\w.]*", text):
        return ""
    head, _, rest = text.partition(".")
    for i, imp in enumerate(f.facts.imports):
        if imp.alias == head and imp.name != "*":
            return f"{f.bound[i]}.{rest}" if rest else f.bound[i]
    if any(t.qualname == head and t.kind in ("struct", "enum", "interface", "type")
           for t in f.defs):
        return f"{pre}{text}"
    if head in ("crate", "self", "super"):
        return f.path(text, f.module)
    return ""
