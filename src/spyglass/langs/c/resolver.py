"""C and C++ name resolution: one global name space, file-local names, `#include` to files.

Full names are what the linker and the compiler see: a function, variable, type or macro
defined in a header, or a non-`static` function or variable of a source file, is its
qualified name (``kmalloc``, ``file.f_op``, C++ ``ns.Widget.draw``); a `static` function or
variable, and a type, macro or enumerator of a source file (``.c``, ``.cc``), is local to
that file, named by its path without the extension: ``fs/read_write#helper`` (shown
as ``read_write.helper``). A struct's fields sit under it (``file.f_op``);
enumerators and nested structs of C are not scoped. A variable's, field's or function's
declared type, and the type a typedef names, become aliases (``getf.*`` → ``file.*``,
``point_t.*`` → ``point.*``), so that ``getf()->f_op`` and ``p.x`` reach the fields.

An ``#include`` resolves to a file: a quoted path first from the including file's folder,
then along the include directories (``-I``/``-iquote``/``-isystem`` of the file's entry in a
``compile_commands.json`` when the repository has one, else each ancestor folder's
``include/``, nearest first), then, when exactly one file of the repository ends with the
path, that file (inferred). Which files exist is taken from the paths the resolution
contexts were computed for (the same list every build and view passes), so a header added
later changes an include's file only when the including file is parsed again.

With a ``compile_commands.json``, each unit's includes are followed through the
preprocessor's directives (syntax/conditionals.py ``IncludeWalk``): the `#if` branches of
units and of the headers they include are decided with what the headers define, and the
macros that expand to nothing are found (docs/c.md "Preprocessor conditions").
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import shlex
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING

from spyglass.langs.c import specifiers as S
from spyglass.syntax import conditionals as C
from spyglass.syntax import expansions as E
from spyglass.syntax import heads as H
from spyglass.syntax import include_walk as W
from spyglass.syntax.conditionals import DEFINES  # a file's -D/-U: its inactive `#if`s
from spyglass.types import Definition, FileContext, FileFacts, Resolution

if TYPE_CHECKING:
    from tree_sitter import Language, Query

    from spyglass.syntax.langpack import LanguagePack

HEADER_EXTENSIONS = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inc", ".ipp", ".tcc")
COMPILE_COMMANDS = ("compile_commands.json", "build/compile_commands.json")
_FIELD_KINDS = frozenset({"field"})
_TYPE_KINDS = frozenset({"struct", "class", "enum", "type", "interface"})
_TYPED_KINDS = frozenset({"func", "method", "var", "field", "type"})
_SCOPING_KINDS = frozenset({"struct", "class", "module", "interface"})  # C++ names nest here
# Local to a source file besides `static` names: macros and typedefs (clangd names them by
# file); struct, union and enum tags and enumerators are one name across files, as clangd
# (and the linker's view of types) has them.
_LOCAL_IN_SOURCE = frozenset({"type", "macro"})
_TAG_KINDS = frozenset({"struct", "enum"})  # C struct, union and enum tags
# Names a macro's body uses (not members after `.`/`->`, not pasted with `##`).
_BODY_NAME = re.compile(r"(?<![\w.#>$])(?<!->)([A-Za-z_]\w*)(?![\w#$])")
# String and character literals of a macro's body: their words are no names it uses.
_LITERAL = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_KEYWORDS = frozenset({
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
    "typedef", "union", "unsigned", "void", "volatile", "while", "typeof", "__typeof__",
    "_Bool", "bool", "true", "false", "NULL", "defined", "__VA_ARGS__", "asm",
    "__asm__", "__attribute__", "nullptr", "this", "new", "delete", "class", "template"})
MAX_MACRO_NAMES = 16  # names of one macro's body followed (a bound per definition)
MAX_TEXT_BYTES = 64 << 20  # file text the include walk keeps to find empty macros' uses
_INCLUDE_FLAGS = ("-I", "-iquote", "-isystem", "-idirafter")

_CPP_LANGUAGES = frozenset({"cpp"})
# The setting naming, per source file a unit includes, its file-local names (a unit's
# unresolved uses of them are that file's: `source.c:name,name;…`).
INCLUDED_LOCALS = "included_locals"

# The repository's files as the latest `module_keys` call of each file family saw them
# (paths of C and C++ files: a C++ source includes `.h` headers of the C pack).
_KNOWN: dict[str, frozenset[str]] = {}
_BY_TAIL: dict[str, dict[str, list[str]]] = {}


def _family(paths: list[str]) -> str:
    return "cpp" if paths and not paths[0].endswith((".c", ".h")) else "c"


def is_header(path: str) -> bool:
    return path.endswith(HEADER_EXTENSIONS)


def _commands(read: Callable[[str], bytes | None], known: frozenset[str],
              options: dict[str, list[str]] | None = None
              ) -> dict[str, tuple[list[str], dict[str, str | None]]]:
    """Include directories (repository-relative) and `-D`/`-U` macros (name → value, None
    when undefined) per file from a compile_commands.json; an option of `options` (the
    pack's `preprocessor_options`: `-mavx2`) defines the compiler's macros it names."""
    data = next((d for d in (read(p) for p in COMPILE_COMMANDS) if d is not None), None)
    if data is None:
        return {}
    try:
        entries = json.loads(data)
    except ValueError:
        return {}
    out: dict[str, tuple[list[str], dict[str, str | None]]] = {}
    if not isinstance(entries, list):
        return out
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        directory = str(entry.get("directory", ""))
        file = posixpath.normpath(posixpath.join(directory, str(entry.get("file", ""))))
        rel = next((p for p in _suffixes(file) if p in known), None)
        if rel is None:
            continue
        root = file[: len(file) - len(rel)].rstrip("/")
        args = entry.get("arguments")
        if not isinstance(args, list):
            try:
                args = shlex.split(str(entry.get("command", "")))
            except ValueError:
                continue
        dirs: list[str] = []
        macros: dict[str, str | None] = {}
        it = iter(str(a) for a in args)
        for arg in it:
            if options and arg in options:
                macros.update(dict.fromkeys(options[arg], "1"))
                continue
            if arg.startswith(("-D", "-U")):
                text = arg[2:] or next(it, "")
                name, eq, value = text.partition("=")
                macros[name] = (value if eq else "1") if arg[1] == "D" else None
                continue
            flag = next((f for f in _INCLUDE_FLAGS if arg.startswith(f)), None)
            if flag is None:
                continue
            value = arg[len(flag):] or next(it, "")
            absolute = posixpath.normpath(posixpath.join(directory, value))
            if absolute == root or absolute.startswith(root + "/"):
                dirs.append(absolute[len(root) + 1:] if absolute != root else "")
        out[rel] = (dirs, macros)
    return out


def _options(family: str) -> dict[str, list[str]]:
    """The pack's `preprocessor_options`: a compiler option → the macros it defines."""
    from spyglass.syntax.langpack import all_packs
    pack = all_packs().get(family)
    table = pack.manifest.get("preprocessor_options", {}) if pack is not None else {}
    return {str(k): [n.strip() for n in str(v).split(",") if n.strip()]
            for k, v in dict(table).items()}


def _suffixes(path: str) -> Iterable[str]:
    """`a/b/c.c`, `b/c.c`, `c.c` of an absolute path (longest first)."""
    parts = path.strip("/").split("/")
    for i in range(len(parts)):
        yield "/".join(parts[i:])


def module_keys(paths: Iterable[str], read: Callable[[str], bytes | None]
                ) -> dict[str, FileContext]:
    """Each file's module key is its path; its settings are its include directories."""
    listed = list(paths)
    known = frozenset(listed)
    family = _family(listed)
    _KNOWN[family] = known
    tails: dict[str, list[str]] = {}
    for p in listed:
        tails.setdefault(p.rsplit("/", 1)[-1], []).append(p)
    _BY_TAIL[family] = tails
    folders: set[str] = set()  # every folder holding files, at any depth below it
    for p in listed:
        parts = p.split("/")[:-1]
        for i in range(len(parts), 0, -1):
            folder = "/".join(parts[:i])
            if folder in folders:
                break
            folders.add(folder)
    commands = _commands(read, known, _options(family))
    shared = list(dict.fromkeys(d for dirs, _ in commands.values() for d in dirs))
    out: dict[str, FileContext] = {}
    default_cache: dict[str, str] = {}
    decided = _with_includes(family, commands, read)
    for path in listed:
        entry = commands.get(path)
        walked = decided.get(path, ())
        if entry is not None:
            text = ":".join(entry[0])
            out[path] = FileContext(path=path, module=path, settings=(
                ("include_dirs", text), ("includes_from", "compile_commands.json"),
                (DEFINES, json.dumps(entry[1], sort_keys=True)), *walked))
            continue
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        text = default_cache.get(folder, "")
        if folder not in default_cache:
            text = default_cache[folder] = ":".join(
                dict.fromkeys([*_ancestor_includes(folder, folders), *shared]))
        source = "compile_commands.json" if commands else "include folders"
        out[path] = FileContext(path=path, module=path, settings=(
            ("include_dirs", text), ("includes_from", source), *walked))
    return out


def _with_includes(family: str, commands: dict[str, tuple[list[str], dict[str, str | None]]],
                   read: Callable[[str], bytes | None]
                   ) -> dict[str, tuple[tuple[str, str], ...]]:
    """Each unit's and reached header's settings from the includes read (syntax/
    conditionals.py IncludeWalk): its inactive `#if` regions, encoded, and the macros it
    invokes that expand to nothing; {} when the walk gives up (the worker then decides
    each file alone)."""
    if not commands:
        return {}
    from spyglass.syntax.langpack import all_packs
    pack = all_packs().get(family)
    if pack is None or not pack.manifest.get("preprocessor_conditions"):
        return {}
    present = {str(k): str(v)
               for k, v in dict(pack.manifest.get("preprocessor_present", {})).items()}
    absent = [str(n) for n in pack.manifest.get("preprocessor_absent", ())]
    cache: dict[str, list[C.Line] | None] = {}
    texts: dict[str, bytes] = {}
    kept = [0]

    def lines_of(path: str) -> list[C.Line] | None:
        if path not in cache:
            data = read(path)
            if data is not None and kept[0] + len(data) <= MAX_TEXT_BYTES:
                texts[path] = data  # to find the empty macros it invokes
                kept[0] += len(data)
            cache[path] = C.directives(data) if data is not None and b"#" in data else \
                ([] if data is not None else None)
        return cache[path]
    dirs = ""

    def resolve(includer: str, written: str) -> str | None:
        if not written[:1] in ('"', "<"):
            return None  # a computed `#include MACRO`: not followed
        ctx = FileContext(path=includer, module=includer, settings=(("include_dirs", dirs),))
        return include_target(written, ctx)[0]
    walk = W.IncludeWalk(lines_of, resolve, absent, present,
                         is_source=lambda p: not is_header(p))
    regions: dict[str, str] = {}
    for path, (unit_dirs, macros) in sorted(commands.items()):
        dirs = ":".join(unit_dirs)
        found = walk.unit(path, macros)
        if found is None:
            return {}
        # a unit's own branches are decided by its own command, with what it includes
        # read: a name nothing above defines is undefined there, even when another unit
        # including this file defines it (`#define EKS` then `#include "blowfish.c"`):
        # clangd indexes the file once, under its own command
        regions[path] = C.encode([replace(r, assumed=()) for r in found])
    for header, found in walk.headers().items():
        if header not in commands:
            regions[header] = C.encode(found)
    unused = walk.unused_arguments()
    empty = [f"{n}:{','.join(map(str, at))}" for n, at in sorted(unused.items())]
    specifiers = S.specifier_macros(walk.object_bodies())
    out: dict[str, tuple[tuple[str, str], ...]] = {}
    for path, text in regions.items():
        data = texts.get(path, b"")
        used = [e for e in empty if _invoked(e.partition(":")[0], data)
                and walk.visible(e.partition(":")[0], path)]
        spelled = [e for e in S.used(data, specifiers)
                   if walk.visible(e.partition("=")[0], path)]
        locals_ = _included_locals(pack, walk, path, specifiers, read, empty)
        out[path] = ((C.REGIONS, text),) + \
            (((E.EMPTY_MACROS, ";".join(used)),) if used else ()) + \
            (((E.SPECIFIER_MACROS, ",".join(spelled)),) if spelled else ()) + \
            (((INCLUDED_LOCALS, locals_),) if locals_ else ())
    return out


def _included_locals(pack: LanguagePack, walk: W.IncludeWalk, unit: str,
                     specifiers: dict[str, bool], read: Callable[[str], bytes | None],
                     empty: list[str]) -> str:
    """The INCLUDED_LOCALS setting of `unit` (a unit, or a header that includes a source):
    for each source file its own text includes (`#include "mod25519.c"`), the names
    file-local to that source as the unit compiles it (its `static` functions and
    variables, typedefs and macros: `mod25519.c`'s `static add32`, and `keccak.c`'s
    `KECCAK_API` functions once `KECCAK_EMBEDDED` makes that `static inline`; a header's
    by the first unit reading it), as `source:name,name;…`; "" when it includes none."""
    parts: list[str] = []
    for source in dict.fromkeys(walk.sources.get(unit, ())):
        data = read(source)
        if data is None:
            continue
        settings = ((E.EMPTY_MACROS, ";".join(
                        e for e in empty if _invoked(e.partition(":")[0], data)
                        and walk.visible(e.partition(":")[0], unit))),
                    (E.SPECIFIER_MACROS, ",".join(
                        e for e in S.used(data, specifiers, walk.unit_values(unit))
                        if walk.visible(e.partition("=")[0], unit))))
        text = E.prepared(data, settings)
        key = hashlib.blake2b(text, digest_size=16).digest()  # the names follow the text
        if key not in _LOCALS_SEEN:
            if len(_LOCALS_SEEN) > MAX_LOCALS_SEEN:
                _LOCALS_SEEN.clear()
            _LOCALS_SEEN[key] = _file_locals(pack, text)
        local = _LOCALS_SEEN[key]
        if local:
            parts.append(f"{source}:{','.join(local)}")
    return ";".join(parts)


# File-local names by the digest of the text they were read from (as the unit prepares it):
# keyed by content, so an edited source or another repository's same-named file is read anew.
_LOCALS_SEEN: dict[bytes, list[str]] = {}
MAX_LOCALS_SEEN = 4096  # texts whose file-local names are kept
_LOCAL_KINDS = frozenset({"definition.type", "definition.macro"})
_NESTING = frozenset({"function_definition", "field_declaration_list", "compound_statement"})


def _file_locals(pack: LanguagePack, data: bytes) -> list[str]:
    """The file-local names of a source file's text (a `static` function or variable at
    file level, a typedef, a macro: `_Names`' local ones), from its definitions query
    alone (the rest of the extraction is not needed)."""
    from spyglass.syntax.budget import Budget, OverBudget
    from spyglass.syntax.parsing import parse, prepared
    budget = Budget()  # one file's parse budget: past it the source gives no names
    try:
        matches = budget.matches(_definitions_query(pack),
                                 parse(pack, prepared(pack, data), budget).root_node)
    except OverBudget:
        return []
    out: dict[str, None] = {}
    for _, caps in matches:
        kind = next((k for k in caps if k.startswith("definition.")), None)
        names = caps.get("name")
        if kind is None or not names:
            continue
        static = any(b.text == b"static" for b in caps.get("base", ()))
        if kind not in _LOCAL_KINDS and not (static and kind in ("definition.func",
                                                                 "definition.var")):
            continue
        node = caps[kind][0].parent
        while node is not None and node.type not in _NESTING:
            node = node.parent
        if node is None:  # at file level (or in `#if` blocks)
            out.update((n.text.decode("utf-8", "replace"), None) for n in names if n.text)
    return list(out)


def _definitions_query(pack: LanguagePack) -> Query:
    """The pack's definitions query alone (compiling all of its queries takes longer)."""
    return _query(pack.language, pack.texts["definitions"])


@cache
def _query(language: Language, text: str) -> Query:
    from tree_sitter import Query
    return Query(language, text)


def _invoked(name: str, data: bytes) -> bool:
    return name.encode() + b"(" in data or name.encode() + b" (" in data


def included_locals(ctx: FileContext) -> dict[str, str]:
    """Name → full name of the file-local names of the sources a unit includes (the
    INCLUDED_LOCALS setting; the first source naming one wins)."""
    text = dict(ctx.settings).get(INCLUDED_LOCALS)
    out: dict[str, str] = {}
    for part in text.split(";") if text else ():
        source, _, names = part.rpartition(":")
        stem = source.rsplit(".", 1)[0]
        for n in names.split(","):
            out.setdefault(n, f"{stem}#{n}")
    return out


def _ancestor_includes(folder: str, folders: set[str]) -> list[str]:
    """Each ancestor folder's `include/` child that holds files, nearest first."""
    found: list[str] = []
    parts = folder.split("/") if folder else []
    for i in range(len(parts), -1, -1):
        base = "/".join(parts[:i])
        candidate = f"{base}/include" if base else "include"
        if candidate in folders:
            found.append(candidate)
    return found


def _exists(path: str) -> bool:
    return any(path in known for known in _KNOWN.values())


def include_target(written: str, ctx: FileContext) -> tuple[str | None, str]:
    """The file an ``#include`` names (with its confidence), or None outside the repository."""
    system = written.startswith("<")
    name = written.strip("<>\" \t")
    if not name:
        return None, "ambiguous"
    settings = dict(ctx.settings)
    dirs = [d for d in settings.get("include_dirs", "").split(":") if d or not system]
    folder = ctx.path.rsplit("/", 1)[0] if "/" in ctx.path else ""
    candidates = ([] if system else [folder]) + dirs
    for base in candidates:
        path = posixpath.normpath(posixpath.join(base, name)) if base else posixpath.normpath(name)
        if _exists(path):
            return path, "exact"
    if not _KNOWN:  # no file list (resolution outside a build): the first candidate
        base = candidates[0] if candidates else ""
        return posixpath.normpath(posixpath.join(base, name)), "inferred"
    tail = name.rsplit("/", 1)[-1]
    matches = sorted({p for tails in _BY_TAIL.values() for p in tails.get(tail, ())
                      if p == name or p.endswith("/" + name)})
    if len(matches) == 1:
        return matches[0], "inferred"
    return None, "ambiguous"


class _Names:
    """Full names of one file's definitions, and of the types its references name."""

    def __init__(self, facts: FileFacts, ctx: FileContext) -> None:
        self.facts = facts
        self.cpp = facts.language in _CPP_LANGUAGES
        stem = ctx.path.rsplit(".", 1)[0] if "." in ctx.path.rsplit("/", 1)[-1] else ctx.path
        self.local_prefix = "" if is_header(ctx.path) else f"{stem}#"
        self.included = included_locals(ctx)  # file-local names of sources it includes
        defs = facts.definitions
        self.full: list[str] = []
        for d in defs:
            self.full.append(self._full(d, defs))
        self.by_qual: dict[str, str] = {}
        for d, full in zip(defs, self.full):
            self.by_qual.setdefault(d.qualname, full)
        # C: `struct X` names the tag, a bare `X` the typedef (two name spaces)
        self.tags: dict[str, str] = {}
        self.plain: dict[str, str] = {}
        if not self.cpp:
            for d, full in zip(defs, self.full):
                into = self.tags if d.kind in _TAG_KINDS else self.plain
                into.setdefault(d.qualname, full)
        self.types: dict[str, str] = {}
        for d, full in zip(defs, self.full):
            if d.kind in _TYPE_KINDS:
                self.types.setdefault(_dotted(d.qualname), full)
                if not self.cpp:  # C: `typedef struct point {…} point_t` names `point`
                    self.types.setdefault(d.name, full)

    def _full(self, d: Definition, defs: tuple[Definition, ...]) -> str:
        qual = _dotted(d.qualname)
        parent = defs[d.parent] if d.parent >= 0 else None
        if d.kind in _FIELD_KINDS and parent is not None:
            owner = self._full(parent, defs)
            return f"{owner}.{d.name}"
        if self.cpp:
            if parent is not None and "." in qual and not qual.startswith(_dotted(parent.qualname)):
                # `void A::f() {}` inside `namespace ns {}`: the receiver is ns's
                qual = f"{self._scope(d.parent, defs)}.{qual}"
            elif parent is not None and parent.kind not in _SCOPING_KINDS:
                qual = self._scope(d.parent, defs, d.name)
        else:
            qual = d.name  # C: only fields are scoped
        local = "static" in d.bases or (d.kind in _LOCAL_IN_SOURCE and not self.cpp)
        return f"{self.local_prefix}{qual}" if local and self.local_prefix else qual

    def _scope(self, index: int, defs: tuple[Definition, ...], name: str = "") -> str:
        """The namespace/class path of the definition at `index` (enums and typedefs are
        not scopes), with `name` appended."""
        parts: list[str] = [name] if name else []
        while index >= 0:
            d = defs[index]
            if d.kind in _SCOPING_KINDS:
                parts.append(_dotted(d.qualname))
                break
            index = d.parent
        return ".".join(reversed(parts))

    def def_target(self, qual: str, role: str, tag: bool = False) -> str:
        """What a name bound to this file's definition `qual` means: a constructor's name
        in a type or call position is its class (`Circle c` in a class with `Circle()`);
        in C, `struct X` (`tag`) the tag and a bare `X` the typedef when both are here."""
        parts = qual.split(".")
        if len(parts) > 1 and parts[-1] == parts[-2] and role in ("type", "call"):
            qual = ".".join(parts[:-1])
        found = (self.tags if tag else self.plain).get(qual)
        return found or self.by_qual.get(qual, _dotted(qual))

    def type_full(self, text: str) -> str:
        """A type named in this file as a full name (its own definition, an included
        source's typedef, else global)."""
        text = _dotted(text)
        return self.types.get(text) or self.included.get(text, text)


def _dotted(text: str) -> str:
    return text.replace("::", ".")


def resolve(facts: FileFacts, ctx: FileContext) -> Resolution:
    """Resolve every reference of one C or C++ file (see the module docstring)."""
    names = _Names(facts, ctx)
    targets: list[str | None] = []
    confidence: list[str] = []
    for ref in facts.references:
        raw, tagged = H.untagged(ref.head)  # `struct X`: the tag name space
        head, arg = H.split(raw)
        rest = ref.qualifier.split(".")[1:] if ref.qualifier else []
        chain = ".".join([*rest, ref.name])
        target: str | None = None
        conf = "inferred"
        if head == H.IMPORT:
            target, conf = include_target(facts.imports[int(arg)].module, ctx)
        elif head == H.DEF:
            base = names.def_target(arg, ref.role, tagged)
            target = f"{base}.{chain}" if ref.qualifier else base
            conf = "exact" if not ref.qualifier else "inferred"
        elif head == H.SELF:
            target = f"{names.by_qual.get(arg, _dotted(arg))}.{chain}"
        elif head == H.INST:
            inst = H.parse_instance(arg)
            kind, val = H.split(inst.type_head)
            if kind in (H.DEF, H.FREE, H.SELF):
                parts = _dotted(inst.type_text).split(".")
                base = ".".join([names.by_qual.get(val, _dotted(val)), *parts[1:]]) \
                    if kind != H.FREE else names.type_full(inst.type_text)
                tail = ref.qualifier.split(".")[inst.consumed:]
                target = ".".join([base, *tail, ref.name])
                if not names.cpp and not tail:  # a declared C type: no dispatch, no bases
                    conf = "exact"
        elif head == H.FREE:
            target = f"{ref.qualifier}.{ref.name}" if ref.qualifier else \
                (ref.name if tagged else names.included.get(ref.name, ref.name))
            target = _dotted(target)
            conf = "inferred" if ref.qualifier else "exact"  # the linker binds by name
        targets.append(target)
        confidence.append(conf if target else "ambiguous")
    aliases: list[tuple[str, str]] = []
    bases: list[tuple[str, ...]] = []
    for d, full in zip(facts.definitions, names.full):
        typed = [b for b in d.bases if b != "static"]
        if d.kind == "macro":  # an expansion uses what the body names: M → f
            aliases.extend((full, names.by_qual.get(n, n)) for n in _macro_names(d))
            bases.append(())
        elif d.kind in _TYPED_KINDS and typed:
            aliases.extend((f"{full}.*", f"{names.type_full(b)}.*") for b in typed[:1]
                           if names.type_full(b) != full)
            bases.append(())
        elif d.kind in ("class", "struct") and typed:  # C++ base classes
            bases.append(tuple(names.type_full(b) for b in typed))
        else:
            bases.append(())
    return Resolution(tuple(targets), tuple(confidence), tuple(names.full), tuple(bases),
                      tuple(aliases))


def _macro_names(d: Definition) -> list[str]:
    """The names a macro's body uses (its parameters and keywords left out), at most
    MAX_MACRO_NAMES, in order of appearance."""
    if not d.bases:
        return []
    params: set[str] = set()
    body = d.bases[-1]
    if len(d.bases) > 1 and d.bases[0].startswith("("):
        params = set(re.findall(r"[A-Za-z_]\w*", d.bases[0]))
    out: dict[str, None] = {}
    for m in _BODY_NAME.finditer(_LITERAL.sub('""', body)):
        name = m.group(1)
        if name not in params and name not in _KEYWORDS and name != d.name:
            out[name] = None
            if len(out) >= MAX_MACRO_NAMES:
                break
    return list(out)
