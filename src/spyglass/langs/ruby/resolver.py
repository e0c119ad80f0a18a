"""Ruby name resolution: one global namespace of constants, reached through module nesting.

Full names are the definitions' nesting with `.` (`module Geo; class Circle; def area` is
``Geo.Circle.area``; `class Geo::Square` is ``Geo.Square``), whatever file holds them:
Ruby classes are open and global. A file's module key is its `require` path (the path
below `lib/`, without `.rb`), the text a `require` names.

References: a name defined in the file is that definition; `self.m` and a bare call `m`
in a class are the class's method; `X.new` runs `X#initialize`. A constant bound by
nothing in the file is taken to be the outermost enclosing class's or module's, where a
gem keeps its constants (`Utils` inside `module Rack; class Builder` is ``Rack.Utils``,
inferred; Ruby would also try ``Rack.Builder.Utils``, the ancestors and the top level),
and the top level's outside any; an `A::B` path starts at its first constant, looked up
the same way inside a module and from the top inside a class (`Minitest::Test` in a test
class); a core constant (`File`, `Hash`) is the core's. A local set from `X.new` reaches
X's methods (inferred). Calls on other receivers are left for name
matching (Ruby has no declared types).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from spyglass.syntax import heads as H
from spyglass.syntax.langpack import all_packs
from spyglass.types import Definition, FileContext, FileFacts, Resolution

NEST_KINDS = ("class", "module")


def module_keys(paths: Iterable[str], read: Callable[[str], bytes | None]
                ) -> dict[str, FileContext]:
    """Each file's require path: below the last `lib/` folder, else the whole path."""
    out: dict[str, FileContext] = {}
    for path in paths:
        parts = path.split("/")
        if "lib" in parts[:-1]:
            parts = parts[len(parts) - 1 - parts[::-1].index("lib"):]
        stem = "/".join(parts)
        for ext in (".rb", ".rake", ".gemspec"):
            stem = stem.removesuffix(ext)
        out[path] = FileContext(path=path, module=stem)
    return out


def _dotted(text: str) -> str:
    return text.replace("::", ".").lstrip(".")


def _namespace(defs: tuple[Definition, ...], index: int) -> tuple[str, str]:
    """The outermost class or module enclosing definition `index` (itself included):
    (its name, its kind), or ("", "")."""
    found = ("", "")
    while index >= 0:
        d = defs[index]
        if d.kind in NEST_KINDS:
            found = (_dotted(d.qualname).split(".")[0], d.kind)
        index = d.parent
    return found


def resolve(facts: FileFacts, ctx: FileContext) -> Resolution:
    """Resolve every reference of one file to a dotted constant path, or None."""
    defs = facts.definitions
    pack = all_packs().get(facts.language)
    builtins = frozenset(pack.manifest.get("builtins", ())) if pack else frozenset()

    def constant(text: str, scope: int) -> tuple[str | None, str]:
        """A constant path as written at `scope`: (full name or None, confidence)."""
        top, kind = _namespace(defs, scope)
        path = _dotted(text)
        if path.split(".")[0] in builtins:  # `File.join`: the core's, never the gem's
            return path, "exact"
        if not top:
            return path, "exact"
        if kind == "class":  # a top-level class: a namespace (`class Thor`), or not at all
            return (path, "inferred") if "." in path else (None, "ambiguous")
        return f"{top}.{path}" if path.split(".")[0] != top else path, "inferred"

    targets: list[str | None] = []
    confidence: list[str] = []
    for ref in facts.references:
        head, arg = H.split(ref.head)
        if "()" in ref.qualifier:  # a member of a call's result: Ruby declares no types
            targets.append(None)
            confidence.append("ambiguous")
            continue
        qualifier = ref.qualifier
        parts = qualifier.split(".") if qualifier else []
        name = "initialize" if ref.name == "new" and parts and parts[-1][:1].isupper() \
            else ref.name
        tail = ".".join([*parts[1:], name])
        target: str | None = None
        conf = "exact"
        if head == H.DEF:
            target = f"{_dotted(arg)}.{tail}" if qualifier else _dotted(arg)
        elif head == H.SELF:
            owner = _dotted(arg)
            target = f"{owner}.{tail}" if qualifier else f"{owner}.{name}"
            conf = "exact" if len(parts) <= 1 else "inferred"
        elif head == H.INST:
            inst = H.parse_instance(arg)
            kind, val = H.split(inst.type_head)
            base: str | None
            if kind == H.DEF:
                base = _dotted(val) + "".join(f".{p}" for p in inst.type_text.split(".")[1:])
            else:
                base, _ = constant(inst.type_text, ref.scope)
            rest = parts[inst.consumed:]
            if base is not None:
                target, conf = ".".join([base, *rest, name]), "inferred"
        elif head == H.FREE and parts and parts[0][:1].isupper():
            base, conf = constant(qualifier, ref.scope)
            target = f"{base}.{name}" if base is not None else None
        elif head == H.FREE and not qualifier and ref.name[:1].isupper():
            target, conf = constant(ref.name, ref.scope)
        targets.append(target)
        confidence.append(conf if target else "ambiguous")
    def_full = tuple(_dotted(d.qualname) for d in defs)
    bases: list[tuple[str, ...]] = []
    for d in defs:
        if d.kind in NEST_KINDS:
            outer = d.parent
            found = (constant(b, outer)[0] for b in d.bases)
            bases.append(tuple(b for b in found if b is not None))
        else:
            bases.append(())
    return Resolution(tuple(targets), tuple(confidence), def_full, tuple(bases), ())
