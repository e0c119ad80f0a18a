"""Name resolution for package-qualified languages (Java, Kotlin, Scala, C#): full names
``package.Outer.Inner.member`` (docs/languages.md).

A file's package (C#: namespace) is the one it declares. The repository's packages and
the type (and top-level function) names each declares are read once by `module_keys`
with a cheap scan of every file of the language; a file's context carries the names of
the packages it sees bare: its own (C#: and the enclosing namespaces) and those it
imports whole (`import a.b.*`, Kotlin `a.b.*`, Scala `a.b._`, C# `using A.B;`); Scala's
chained clauses (`package a` / `package b`) see the outer packages too. A name
bound by nothing in the file is a type of one of those packages, else (inside a type)
a member inherited from a base, else external. A declared type of a field, a constant or
a method's result is an alias of its members (``a.A.next.*`` → ``a.B.*``), so chains of
calls reach the class each call returns.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cache

from spyglass.syntax import heads as H
from spyglass.syntax.langpack import all_packs
from spyglass.types import Definition, FileContext, FileFacts, Import, Resolution

TYPE_KINDS = frozenset({"class", "interface", "enum", "struct", "type"})
_NAMED_PARENTS = TYPE_KINDS | {"module"}  # parents whose members are named, not anonymous
_NAMES = "names:"  # settings key prefix: package → names it declares, comma-separated
_STATICS = "statics:"  # settings key prefix: type → static members a wildcard brings
_SHARED = "parents"  # settings key: "1" when a namespace sees its enclosing ones (C#)

# Per extension: the package line, wildcard imports, declared type and top-level names.
_TYPE_DECL = rb"\b(?:class|interface|enum|record|object|trait|struct)\s+([A-Za-z_]\w*)"
_TOP_FUN = (rb"(?m)^(?:(?:public|internal|private|protected|inline|suspend|operator|infix|"
            rb"tailrec|external|final|implicit)\s+)*(?:fun|def|val|var|given|type|typealias)"
            rb"\s+(?:<[^>\n]*>\s*)?(?:[\w.]+\.)?([A-Za-z_]\w*)")
_SCAN: dict[str, tuple[bytes, bytes, bool]] = {
    ".java": (rb"(?m)^\s*package\s+([\w.]+)", rb"(?m)^\s*import\s+([\w.]+)\.\*\s*;", False),
    ".kt": (rb"(?m)^\s*package\s+([\w.`]+)", rb"(?m)^\s*import\s+([\w.`]+)\.\*", True),
    ".kts": (rb"(?m)^\s*package\s+([\w.`]+)", rb"(?m)^\s*import\s+([\w.`]+)\.\*", True),
    # (`package object p` is no package clause: p is an object of the package)
    ".scala": (rb"(?m)^\s*package\s+(?!object\b)([\w.]+)",
               rb"(?m)^\s*import\s+([\w.]+)\.(?:_|\*)\s*$", True),
    ".sc": (rb"(?m)^\s*package\s+(?!object\b)([\w.]+)",
            rb"(?m)^\s*import\s+([\w.]+)\.(?:_|\*)\s*$", True),
    ".cs": (rb"(?m)^\s*namespace\s+([\w.]+)", rb"(?m)^\s*(?:global\s+)?using\s+([\w.]+)\s*;",
            False),
}


def _scan(path: str, data: bytes) -> tuple[str, list[str], set[str]]:
    """(declared package, wholly imported packages, names declared) of one file; a Scala
    file's chained package clauses add the outer packages they open to the imported ones
    (`package a` / `package b` is the package a.b, seeing a's names bare)."""
    ext = "." + path.rsplit(".", 1)[-1]
    spec = _SCAN.get(ext)
    if spec is None:
        return "", [], set()
    pkg_re, wild_re, top = spec
    found = [p.decode().replace("`", "") for p in re.findall(pkg_re, data)]
    outer: list[str] = []
    if ext in (".scala", ".sc"):  # chained clauses `package a` / `package b` mean a.b
        outer = [".".join(found[:i]) for i in range(len(found) - 1, 0, -1)]
        package = ".".join(found)
    else:
        package = found[0] if found else ""
    wild = [w.decode().replace("`", "") for w in re.findall(wild_re, data)]
    names = {n.decode() for n in re.findall(_TYPE_DECL, data)}
    if top:
        names.update(n.decode() for n in re.findall(_TOP_FUN, data))
    return package, outer + wild, names


# A Scala package object (`package object p { def helper … }` in package a.b): its
# members are names of the package a.b.p (indented definitions of the file, read alike).
_PACKAGE_OBJECT = rb"(?m)^\s*package\s+object\s+([A-Za-z_]\w*)"
_MEMBER = (rb"(?m)^[ \t]+(?:(?:private|protected|final|implicit|lazy|override|inline|case)\s+)*"
           rb"(?:def|val|var|type|class|object|trait|given)\s+([A-Za-z_]\w*)")


def _package_object(package: str, data: bytes) -> tuple[str, set[str]] | None:
    """(the package a Scala package object stands for, its member names), or None."""
    found = re.search(_PACKAGE_OBJECT, data)
    if found is None:
        return None
    owner = found.group(1).decode()
    return (f"{package}.{owner}" if package else owner,
            {m.decode() for m in re.findall(_MEMBER, data[found.end():])})


# Java `import static a.B.*`, and the static members a file declares (for B's names).
_STATIC_WILD = rb"(?m)^\s*import\s+static\s+([\w.]+)\.\*\s*;"
_STATIC_MEMBER = (rb"\bstatic\s+(?:(?:final|synchronized|native|transient|volatile)\s+)*"
                  rb"(?:<[^>;{]*>\s*)?[\w.$<>\[\],?]+(?:\s*\[\s*\])*\s+(\w+)\s*[(=;,]")


def module_keys(paths: Iterable[str], read: Callable[[str], bytes | None]
                ) -> dict[str, FileContext]:
    """Each file's package, and the names of the packages it sees bare (see the module
    docstring): one scan of every file of the language. Java's static wildcard imports
    (`import static a.B.*`) see the static members B's file declares."""
    scans: dict[str, tuple[str, list[str], set[str]]] = {}
    declared: dict[str, set[str]] = {}
    statics: dict[str, set[str]] = {}  # "a.B" → static member names
    static_wild: dict[str, list[str]] = {}
    for path in paths:
        data = read(path) or b""
        scans[path] = scanned = _scan(path, data)
        declared.setdefault(scanned[0], set()).update(scanned[2])
        if path.endswith((".scala", ".sc")):
            if held := _package_object(scanned[0], data):
                declared.setdefault(held[0], set()).update(held[1])
                scanned[1].insert(0, held[0])  # its body sees the package it stands for
            for owner, held_names in _object_members(scanned[0], data).items():
                statics.setdefault(owner, set()).update(held_names)
            static_wild[path] = scanned[1]  # `import a.b.Obj._`: an object's members
        if path.endswith(".java"):
            static_wild[path] = [w.decode() for w in re.findall(_STATIC_WILD, data)]
            members = {m.decode() for m in re.findall(_STATIC_MEMBER, data)}
            for name in scanned[2]:
                statics.setdefault(f"{scanned[0]}.{name}" if scanned[0] else name,
                                   set()).update(members)
    out: dict[str, FileContext] = {}
    for path, (package, wild, _) in scans.items():
        parents = path.endswith(".cs")
        seen = [package]
        if parents:  # C#: a namespace sees its enclosing namespaces' names
            parts = package.split(".")
            seen += [".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]
        seen += [_relative_package(w, package, declared) if path.endswith((".scala", ".sc"))
                 else w for w in wild]
        settings = [(_SHARED, "1" if parents else "")]
        for pkg in dict.fromkeys(seen):
            names = declared.get(pkg)
            if names:
                settings.append((_NAMES + pkg, ",".join(sorted(names))))
        for owner in static_wild.get(path, ()):
            if path.endswith((".scala", ".sc")):
                owner = _relative_package(owner, package, statics)
            brought = statics.get(owner)
            if brought:
                settings.append((_STATICS + owner, ",".join(sorted(brought))))
        out[path] = FileContext(path=path, module=package, settings=tuple(settings))
    return out


# A Scala file's top-level objects and the members their bodies declare (`object JsonAST
# { case class JString … }`): what `import JsonAST._` brings. Strings and comments are
# skipped; members inherited from the object's bases are not read.
_OBJECT_TOKENS = re.compile(
    rb'"""(?:.|\n)*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])\'|//[^\n]*|/\*(?:.|\n)*?\*/'
    rb"|[{}]|\bobject\s+([A-Za-z_]\w*)"
    rb"|\b(?:def|val|var|type|class|trait|object)\s+([A-Za-z_]\w*)")


def _object_members(package: str, data: bytes) -> dict[str, set[str]]:
    """{full name of a top-level object: the names its body declares} of one file."""
    out: dict[str, set[str]] = {}
    depth, pending, current = 0, "", ""
    for m in _OBJECT_TOKENS.finditer(data):
        token = m.group(0)
        if token == b"{":
            depth += 1
            if depth == 1 and pending:
                current, pending = pending, ""
                out.setdefault(current, set())
        elif token == b"}":
            depth = max(0, depth - 1)
            if depth == 0:
                current = ""
        elif m.group(1) and depth == 0:
            name = m.group(1).decode()
            pending = f"{package}.{name}" if package else name
        elif m.group(1) or m.group(2):
            if depth == 1 and current:
                out[current].add((m.group(1) or m.group(2)).decode())
            elif depth == 0:
                pending = ""  # a class or trait of the file: not an object's body
    return out


def _relative_package(name: str, package: str, declared: dict[str, set[str]]) -> str:
    """A Scala wildcard import's package (or object): `import reflect._` in package
    org.json4s is org.json4s.reflect when the project declares that package (the
    innermost enclosing package holding it), else the path as written."""
    if name in declared:
        return name
    parts = package.split(".") if package else []
    for i in range(len(parts), 0, -1):
        full = ".".join([*parts[:i], name])
        if full in declared:
            return full
    return name


class _File:
    """One file's resolution state: its package, bindings and visible package names."""

    def __init__(self, facts: FileFacts, ctx: FileContext) -> None:
        self.facts = facts
        self.package = ctx.module or facts.package
        self.prefix = f"{self.package}." if self.package else ""
        self.visible: list[tuple[str, frozenset[str]]] = [
            (key[len(_NAMES):], frozenset(value.split(","))) for key, value in ctx.settings
            if key.startswith(_NAMES)]
        self.statics: list[tuple[str, frozenset[str]]] = [
            (key[len(_STATICS):], frozenset(value.split(","))) for key, value in ctx.settings
            if key.startswith(_STATICS)]
        self.mixed = facts.language in _MIXED
        self.language = facts.language
        self.builtins = _builtins(facts.language)
        self.packages = dict(self.visible)
        self.package_roots = {p.split(".", 1)[0] for p in self.packages}
        self.types: dict[str, str] = {}  # a type's simple name → its qualname in this file
        for d in facts.definitions:
            if d.kind in TYPE_KINDS:
                self.types.setdefault(d.name, d.qualname)
        self.imports: list[Import] = [i._replace(module=_path(i.module)) for i in facts.imports]
        if facts.language in _RELATIVE_IMPORTS:
            self.imports = [i._replace(module=self.relative(i.module)) for i in self.imports]
        self.by_alias = {i.alias: i for i in self.imports if i.name not in (None, "*")}
        # `import static a.B.*` (a wildcard of a type's members: its last name capitalised)
        self.static_wildcards = any(i.name == "*" and i.module.rpartition(".")[2][:1].isupper()
                                    for i in facts.imports)

    def relative(self, module: str) -> str:
        """A Scala import path whose first name is bound where it stands (`import
        Parser.{Mode}` of a type the file declares or its packages hold) written with the
        package; a path starting at a package the file sees, or outside the project, as
        written."""
        first, dot, rest = module.partition(".")
        if first in self.package_roots:
            return module
        qual = self.types.get(first)
        full = self.prefix + qual if qual is not None else self.package_member(first)
        return f"{full}{dot}{rest}" if full else module

    def imported(self, imp: Import) -> str:
        """An import's full name; a module written whole (Kotlin, Scala: `a.b.C` with
        the name C) is not extended again."""
        if not imp.name or imp.module == imp.name or imp.module.endswith(f".{imp.name}"):
            return imp.module
        return f"{imp.module}.{imp.name}"

    def package_member(self, name: str) -> str | None:
        """The full name of a type or top-level function seen bare, or None."""
        for pkg, names in self.visible:
            if name in names:
                return f"{pkg}.{name}" if pkg else name
        return None

    def static_member(self, name: str) -> str | None:
        """`name` brought by a static wildcard import of a project type, or None."""
        for owner, names in self.statics:
            if name in names:
                return f"{owner}.{name}"
        return None

    def qualified(self, qualifier: str, name: str) -> str | None:
        """A name written with its package (`java.util.zip.ZipUtils.get`), for packages
        the file sees: the package, a type it declares, then the rest."""
        parts = qualifier.split(".")
        for i in range(len(parts) - 1, 0, -1):
            names = self.packages.get(".".join(parts[:i]))
            if names is not None and parts[i] in names:
                return f"{qualifier}.{name}"
        names = self.packages.get(qualifier)
        return f"{qualifier}.{name}" if names is not None and name in names else None

    def type_full(self, text: str) -> str | None:
        """A declared type's full name (dotted text as written), or None if external."""
        first, _, rest = text.partition(".")
        tail = f".{rest}" if rest else ""
        imp = self.by_alias.get(first)
        if imp is not None:
            return self.imported(imp) + tail
        qual = self.types.get(first)
        if qual is not None:
            return self.prefix + qual + tail
        member = self.package_member(first)
        if member:
            return member + tail
        guess = self.sibling(first)
        return guess + tail if guess else None

    def sibling(self, name: str) -> str | None:
        """A capitalised name no binding explains, in a JVM language: a type of the same
        package written in another JVM language (a Java class used from Kotlin), which
        the per-language scan does not see; None for the language's builtins."""
        if not self.mixed or not name[:1].isupper() or name in self.builtins:
            return None
        return self.prefix + name

    def enclosing_type(self, index: int) -> Definition | None:
        defs = self.facts.definitions
        while index >= 0:
            d = defs[index]
            if d.kind in TYPE_KINDS:
                return d
            index = d.parent
        return None


def resolve(facts: FileFacts, ctx: FileContext) -> Resolution:
    """Resolve every reference of one file to ``package.Type.member``, or None."""
    f = _File(facts, ctx)
    prefix = f.prefix
    defs = facts.definitions
    by_qual = {d.qualname: d for d in defs}
    targets: list[str | None] = []
    confidence: list[str] = []
    for ref in facts.references:
        head, arg = H.split(ref.head)
        rest = ref.qualifier.split(".")[1:] if ref.qualifier else []
        tail = ".".join([*rest, ref.name])
        target: str | None = None
        base: str | None = None
        conf = "exact"
        # Kotlin: inside an extension function (`fun Job.cancelAndJoin() { cancel() }`) a
        # bare name the receiver type declares in this file is the implicit receiver's
        ext = _extended(defs, ref.scope) if head in (H.DEF, H.FREE) else ""
        first = ref.qualifier.split(".", 1)[0] if ref.qualifier else ref.name
        if ext and f"{ext}.{first}" in by_qual:
            target = f"{prefix}{ext}.{first}" + (f".{tail}" if ref.qualifier else "")
        elif head == H.IMPORT:
            imp = f.imports[int(arg)]
            base = f.imported(imp)
            target = f"{base}.{tail}" if ref.qualifier and ref.role != "import" else base
            if imp.name == "*":
                target = None
        elif head == H.DEF and rest and rest[0] in _QUALIFIED_SELF:
            # `Outer.this.m()` names the enclosing type's own member; `Outer.super.m()` (or
            # `Iface.super.m()`) the member of that type's superclass (of the interface)
            tail = ".".join([*rest[1:], ref.name])
            owner = by_qual.get(arg)
            if rest[0] == "this" or (owner is not None and owner.kind == "interface"):
                target = f"{prefix}{arg}.{tail}"
            elif owner is not None and owner.bases:
                base = f.type_full(_simple(owner.bases[0])) or _simple(owner.bases[0])
                target, conf = f"{base}.{tail}", "inferred"
        elif head == H.DEF:
            arg = _anonymous(defs, arg, ref.line)
            target = f"{prefix}{arg}.{tail}" if ref.qualifier else f"{prefix}{arg}"
        elif head == H.SELF:
            target = f"{prefix}{arg}.{tail}"
        elif head == H.SUPER:
            owner = by_qual.get(arg)
            base = f.type_full(_simple(owner.bases[0])) if owner and owner.bases else None
            target, conf = (f"{base}.{tail}", "inferred") if base else (None, conf)
        elif head == H.INST:
            inst = H.parse_instance(arg)
            kind, val = H.split(inst.type_head)
            if kind == H.SELF:
                base = prefix + val
            else:
                base = f.type_full(inst.type_text)
            if base is not None:  # a declared (or constructed) type: a static fact
                target = ".".join([base, *ref.qualifier.split(".")[inst.consumed:], ref.name])
        elif head == H.FREE:
            first = ref.qualifier.split(".", 1)[0] if ref.qualifier else ref.name
            if f.language in _RELATIVE_IMPORTS:  # Scala: an import beats other files'
                static = f.static_member(first)  # definitions of the package
                member = None if static else f.package_member(first)
            else:
                member = f.package_member(first)
                static = None if member else f.static_member(first)
            owner_type = f.enclosing_type(ref.scope)
            if member is not None:  # a type of a package the file sees bare
                target = member + (f".{tail}" if ref.qualifier else "")
            elif static is not None:  # a static member a wildcard import brings
                target = static + (f".{tail}" if ref.qualifier else "")
            elif (ref.role == "import" and ref.qualifier
                  and f.language not in _RELATIVE_IMPORTS):
                # a segment of an import's path (`Outer` of `import a.b.Outer.Inner`, the
                # class of `import static a.b.C.m`): an import names its full path
                target = f"{ref.qualifier}.{ref.name}"
            elif first in _SUPER and ref.qualifier and owner_type and owner_type.bases:
                # `super.m()` (C# `base.m()`): the member of the superclass
                # (a base outside the project keeps its written name: bound, external)
                base = f.type_full(_simple(owner_type.bases[0])) or _simple(owner_type.bases[0])
                target = f"{base}.{tail}"
            elif ref.qualifier and (full := f.qualified(ref.qualifier, ref.name)):
                target = full
            elif not ref.qualifier and ref.name in f.package_roots:
                target = None  # the first name of a package path (`java` of `java.util.X`)
            elif first in f.builtins:
                target = None  # a builtin's member (`System.arraycopy`, `java.io.File`)
            elif ref.qualifier and _package_path(f, ref.qualifier, ref.name):
                # a name written with its full package path (`jawn.ast.JParser.parse`)
                # from a package the file does not import: the path is the full name
                target = f"{ref.qualifier}.{ref.name}"
            else:
                # (an inherited constant `MAX` stays unbound: the closure follows inherited
                # methods and fields only, so it is answered as a name-matched candidate)
                method = not f.mixed and ref.role == "call" and not ref.qualifier  # C# `M()`
                constant = first.isupper() and len(first) > 1
                member_like = not first[:1].isupper() or method
                if owner_type is not None and member_like:
                    # a member inherited from a base type (the closure follows the bases; a
                    # capitalised name only for a bare C# call);
                    # certain in a top-level type without static wildcard imports, where
                    # no enclosing type or imported member could hold the name
                    target = f"{prefix}{owner_type.qualname}.{first}" + (
                        f".{tail}" if ref.qualifier else "")
                    if owner_type.parent >= 0 or f.static_wildcards:
                        conf = "inferred"
                elif not constant and (guess := f.sibling(first)) is not None:
                    target, conf = guess + (f".{tail}" if ref.qualifier else ""), "inferred"
                elif ext and not ref.qualifier and not first[:1].isupper() and (
                        receiver := f.type_full(ext)):  # the receiver's, declared elsewhere
                    # (a guess: a lambda's own receiver may hold the name; reaching no
                    # definition, the site stays a name-matched candidate)
                    target, conf = f"{receiver}.{first}", "ambiguous"
        targets.append(target)
        confidence.append(conf if target else "ambiguous")
    def_full = _full_names(defs, prefix)
    bases: list[tuple[str, ...]] = []
    aliases: list[tuple[str, str]] = []
    for i, d in enumerate(defs):
        if d.parent < 0 and d.kind in ("method", "field") and "." in d.qualname:
            # a Kotlin extension function (`fun Job.cancelAndJoin()`, a property alike)
            # is a name of its package (`import a.cancelAndJoin`), reached as a member of
            # its receiver type wherever that is declared (`job.cancelAndJoin()` on a Job)
            receiver = d.qualname.rpartition(".")[0]
            def_full = (*def_full[:i], prefix + d.name, *def_full[i + 1:])
            aliases.append((f"{f.type_full(receiver) or prefix + receiver}.{d.name}",
                            def_full[i]))
    for d, full in zip(defs, def_full):
        if d.kind in TYPE_KINDS:
            bases.append(tuple(b for b in (f.type_full(_simple(x)) for x in d.bases) if b))
            continue
        bases.append(())
        typ = d.bases[0] if d.bases else ""
        held = f.type_full(_simple(typ)) if typ else None
        if not typ and d.kind == "const" and d.parent >= 0 and defs[d.parent].kind == "enum":
            held = def_full[d.parent]  # an enum constant is of its enum's type
        if held and held != full:
            aliases.append((f"{full}.*", f"{held}.*"))  # what a field holds, a method returns
    return Resolution(tuple(targets), tuple(confidence), def_full, tuple(bases), tuple(aliases))


def _package_path(f: _File, qualifier: str, name: str) -> bool:
    """Whether `qualifier.name` reads as a package path to a type or its member: it
    starts at the lowercase root of a package the file sees and names a type (a
    capitalised part after the root), so an inherited field `app` of a class in package
    `app.x` keeps `app.config.load()` a chain of members."""
    first, _, rest = qualifier.partition(".")
    if first not in f.package_roots or not first[:1].islower():
        return False
    return any(part[:1].isupper() for part in [*rest.split("."), name] if part)


def _anonymous_member(defs: tuple[Definition, ...], d: Definition) -> bool:
    """A member of an anonymous or local class: its parent is a function, not a type (nor
    a Scala package object, whose `type X` and `val X` share one name)."""
    return d.parent >= 0 and defs[d.parent].kind not in _NAMED_PARENTS and d.kind in (
        "method", "field", "const", "test")


def _extended(defs: tuple[Definition, ...], index: int) -> str:
    """The receiver type of the Kotlin extension function enclosing definition `index`
    (`Job` in `fun Job.cancelAndJoin() { cancel() }`: a top-level method placed under
    its receiver), or ""."""
    while index >= 0 and defs[index].parent >= 0:
        index = defs[index].parent
    d = defs[index] if index >= 0 else None
    return d.qualname.rpartition(".")[0] if d and d.kind == "method" and "." in d.qualname \
        else ""


def _full_names(defs: tuple[Definition, ...], prefix: str) -> tuple[str, ...]:
    """Full names; members of anonymous classes sharing one qualname in one function
    (two `new ActionListener() { actionPerformed … }`) are told apart by their line:
    ``Demo.build.$115.actionPerformed``."""
    count: dict[str, int] = {}
    for d in defs:
        count[d.qualname] = count.get(d.qualname, 0) + 1
    out: list[str] = []
    for d in defs:
        qual = d.qualname
        if count[qual] > 1 and _anonymous_member(defs, d):
            head, _, name = qual.rpartition(".")
            qual = f"{head}.${d.name_line}.{name}"
        out.append(prefix + qual)
    return tuple(out)


def _anonymous(defs: tuple[Definition, ...], qual: str, line: int) -> str:
    """A bare use of a duplicated anonymous member: the one whose class encloses it (the
    nearest declared above it), in `_full_names`' spelling."""
    same = [d for d in defs if d.qualname == qual]
    if len(same) < 2 or not _anonymous_member(defs, same[0]):
        return qual
    above = [d for d in same if d.start_line <= line] or same
    d = max(above, key=lambda x: x.start_line)
    head, _, name = qual.rpartition(".")
    return f"{head}.${d.name_line}.{name}"


_SUPER = frozenset({"super", "base"})
# `Outer.this` / `Outer.super`: a type's name qualifying its instance or its superclass.
_QUALIFIED_SELF = frozenset({"this", "super"})
# Languages whose files of one package are often written in several of them (src/main/java
# holding .java and .kt files): a capitalised unbound name may be a sibling's type.
_MIXED = frozenset({"java", "kotlin", "scala"})
# Languages whose import paths may start at a name in scope (Scala `import Outer.Inner`).
_RELATIVE_IMPORTS = frozenset({"scala"})


@cache
def _builtins(language: str) -> frozenset[str]:
    pack = all_packs().get(language)
    return frozenset(pack.manifest.get("builtins", ())) if pack is not None else frozenset()

_IMPORT_WORD = re.compile(r"^\s*import\s+")
_SELECTORS = re.compile(r"\.?\{.*$|\.(?:_|\*)\s*$", re.DOTALL)


def _path(module: str) -> str:
    """An import's module as a dotted path: a declaration's whole text (Scala's path is
    several nodes: `import a.b.{C => D}`, `import a.b._`) reduced to `a.b`."""
    if not module.startswith("import"):
        return module
    text = _SELECTORS.sub("", _IMPORT_WORD.sub("", module))
    return re.sub(r"\s+", "", text).rstrip(".")


_GENERIC = re.compile(r"[<\[(?].*$", re.DOTALL)


def _simple(text: str) -> str:
    """A declared type as one dotted name: generics, arrays, nullability dropped."""
    return _GENERIC.sub("", text.strip()).strip()
