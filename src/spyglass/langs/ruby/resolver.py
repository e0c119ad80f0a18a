"""Ruby name resolution: one global namespace of constants, reached through module nesting.

Full names are the definitions' nesting with `.` (`module Geo; class Circle; def area` is
``Geo.Circle.area``; `class Geo::Square` is ``Geo.Square``), whatever file holds them:
Ruby classes are open and global. A file's module key is its `require` path (the path
below `lib/`, without `.rb`), the text a `require` names.

References: a name defined in the file is that definition; `self.m` and a bare call `m`
in a class are the class's method; `X.new` runs `X#initialize`. A constant (the first of
an `A::B` path too) is first looked up as Ruby does, lexically: in the enclosing classes
and modules, the innermost first, among the constants the file defines there (exact) and
those the project declares there (inferred: `module_keys` scans every file's `class`,
`module` and `X =` lines, nesting by indentation); an `include`d module is looked up
inside its class. A constant found nowhere so is taken to be the outermost enclosing
class's or module's, where a gem keeps its constants (`Utils` inside `module Rack; class
Builder` is ``Rack.Utils``, inferred; Ruby would also try ``Rack.Builder.Utils``, the
ancestors and the top level), and the top level's outside any; an `A::B` path starts at
its first constant, looked up the same way inside a module and from the top inside a
class (`Minitest::Test` in a test class); a core constant (`File`, `Hash`) is the
core's. A local set from `X.new` reaches X's methods (inferred). Calls on other
receivers are left for name matching (Ruby has no declared types).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from spyglass.syntax import heads as H
from spyglass.syntax.langpack import all_packs
from spyglass.types import Definition, FileContext, FileFacts, Resolution

NEST_KINDS = ("class", "module")


def module_keys(paths: Iterable[str], read: Callable[[str], bytes | None]
                ) -> dict[str, FileContext]:
    """Each file's require path (below the last `lib/` folder, else the whole path), and
    the constants the project declares in each namespace the file opens (`_scan`)."""
    out: dict[str, FileContext] = {}
    opened: dict[str, list[str]] = {}
    declared: dict[str, set[str]] = {}  # namespace ("" for the top) → constant names
    for path in paths:
        parts = path.split("/")
        if "lib" in parts[:-1]:
            parts = parts[len(parts) - 1 - parts[::-1].index("lib"):]
        stem = "/".join(parts)
        for ext in (".rb", ".rake", ".gemspec"):
            stem = stem.removesuffix(ext)
        out[path] = FileContext(path=path, module=stem)
        opened[path] = _scan(read(path) or b"", declared)
    for path, spaces in opened.items():
        settings = tuple((_NAMES + ns, ",".join(sorted(declared[ns])))
                         for ns in spaces if declared.get(ns))
        if settings:
            out[path] = FileContext(path=path, module=out[path].module, settings=settings)
    return out


_NAMES = "constants:"  # a FileContext setting: the constants a namespace declares
# `class A::B < C`, `module A`, `X = …` at the start of a line; the indentation nests them.
_OPENER = re.compile(rb"^([ \t]*)(?:(class|module)[ \t]+([A-Z][\w:]*)|([A-Z]\w*)[ \t]*=(?![=~>]))",
                     re.MULTILINE)
_END = re.compile(rb"^([ \t]*)end\b", re.MULTILINE)


def _scan(data: bytes, declared: dict[str, set[str]]) -> list[str]:
    """The namespaces one file opens (`module Rack` / `class Auth::Digest`: Rack,
    Rack.Auth.Digest), adding the constants it declares in each to `declared`. Nesting is
    read from indentation (a line's `class`/`module` is inside the nearest opener above it
    indented less, until an `end` indented as that opener), not from a parse: a cheap scan
    of every file before any is resolved."""
    events = sorted([(m.start(), 0, m) for m in _OPENER.finditer(data)]
                    + [(m.start(), 1, m) for m in _END.finditer(data)], key=lambda e: e[0])
    stack: list[tuple[int, str]] = []  # (indentation, full name)
    spaces: list[str] = [""]
    for _, is_end, m in events:
        indent = len(m.group(1).expandtabs(2))
        if is_end:
            while stack and stack[-1][0] >= indent:
                if stack[-1][0] == indent:
                    stack.pop()
                    break
                stack.pop()
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        outer = stack[-1][1] if stack else ""
        if m.group(4):  # a constant assigned in the namespace
            declared.setdefault(outer, set()).add(m.group(4).decode())
            continue
        parts = _dotted(m.group(3).decode()).split(".")
        full = ".".join(p for p in (outer, *parts) if p)
        for i in range(len(parts)):
            ns = ".".join(p for p in (outer, *parts[:i]) if p)
            declared.setdefault(ns, set()).add(parts[i])
        if full not in spaces:
            spaces.append(full)
        stack.append((indent, full))
    return spaces


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

    known = {d.qualname.replace("::", ".") for d in defs if d.kind in (*NEST_KINDS, "const")}
    declared = {key[len(_NAMES):]: set(names.split(","))
                for key, names in ctx.settings if key.startswith(_NAMES)}

    def lexical(first: str, scope: int) -> tuple[str, str] | None:
        """Ruby's lexical lookup of a constant: the enclosing classes and modules, the
        innermost first (`Request` in `module Digest; class MD5` is Digest's Request when
        the project declares one there): (namespace, confidence) or None."""
        index = scope
        while index >= 0:
            d = defs[index]
            if d.kind in NEST_KINDS:
                ns = _dotted(d.qualname)
                if f"{ns}.{first}" in known:
                    return ns, "exact"
                if first in declared.get(ns, ()):
                    return ns, "inferred"
            index = d.parent
        return None

    def constant(text: str, scope: int) -> tuple[str | None, str]:
        """A constant path as written at `scope`: (full name or None, confidence)."""
        top, kind = _namespace(defs, scope)
        path = _dotted(text)
        if path.split(".")[0] in builtins:  # `File.join`: the core's, never the gem's
            return path, "exact"
        if not text.startswith("::"):
            found = lexical(path.split(".")[0], scope)
            if found is not None:
                return f"{found[0]}.{path}", found[1]
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
    for i, (d, full) in enumerate(zip(defs, def_full)):
        if d.kind in NEST_KINDS:
            # An `include`d module is looked up inside the class (`include Env` of a
            # nested `module Env`), the superclass from around it: a base naming the class
            # itself (`class Error < Error`) is the outer scope's.
            found = []
            for b in d.bases:
                got = constant(b, i)[0]
                found.append(got if got != full else constant(b, d.parent)[0])
            bases.append(tuple(b for b in found if b is not None))
        else:
            bases.append(())
    return Resolution(tuple(targets), tuple(confidence), def_full, tuple(bases), ())
