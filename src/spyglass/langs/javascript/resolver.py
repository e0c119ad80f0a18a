"""JavaScript/TypeScript resolution: path-based module keys, specifiers via tsconfig paths.

Full names are ``modulekey#Qual.name``, the module key being the path without extension
and ``/index``. Imports resolve relative specifiers, tsconfig/jsconfig ``paths`` and
``baseUrl``; bare package specifiers stay as written (external). Re-exports become
aliases (``key#b`` → ``m#a``, ``key#*`` → ``m#*``, ``key#default`` → ``key#foo``). A
variable's or field's declared or constructed type becomes a wildcard alias
``key#C.field.*`` → ``m#Type.*``; members reached through it are ``inferred``.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterable

from spyglass.syntax import heads as H
from spyglass.syntax.composite import (
    LITERAL,
    container_aliases,
    has_param_segment,
    is_each,
    is_param_base,
    operands,
    split_mark,
)
from spyglass.syntax.langpack import all_packs
from spyglass.types import Definition, FileContext, FileFacts, Import, Resolution

# Extensions a specifier or file name may carry for the same module (longest first).
_EXTENSIONS = (".d.mts", ".d.cts", ".d.ts", ".mjs", ".cjs", ".jsx", ".mts", ".cts", ".tsx",
               ".js", ".ts")
_CONFIGS = ("tsconfig.json", "jsconfig.json")
_COMMENTS = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TRAILING_COMMA = re.compile(r'"(?:\\.|[^"\\])*"|,(\s*[}\]])', re.DOTALL)
_MAX_EXTENDS = 5
_EXPORTS_OBJECTS = frozenset({"exports", "module.exports"})
# Kinds whose @base is the type of their value (for a function: of what it returns).
_VALUE_KINDS = frozenset({"var", "const", "field", "func"})


def normalize(path: str) -> str:
    """A module key from a repository-relative file path or resolved specifier:
    without extension, without a trailing ``/index``."""
    for ext in _EXTENSIONS:
        if path.endswith(ext):
            path = path[: -len(ext)]
            break
    if path == "index" or path == ".":
        return ""
    return path.removesuffix("/index")


def _loads_jsonc(data: bytes) -> object:
    """JSON with comments and trailing commas, as tsconfig.json allows."""
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    text = _COMMENTS.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    text = _TRAILING_COMMA.sub(lambda m: m.group(1) or m.group(0), text)
    return json.loads(text)


def _config(folder: str, name: str, read: Callable[[str], bytes | None], depth: int = 0
            ) -> tuple[str, dict[str, list[str]]] | None:
    """(baseUrl, paths) of one tsconfig, following relative ``extends``; repo-relative."""
    path = posixpath.join(folder, name) if folder else name
    data = read(path)
    if data is None:
        return None
    try:
        doc = _loads_jsonc(data)
    except ValueError:
        return ("", {})
    if not isinstance(doc, dict):
        return ("", {})
    base_url, paths = "", dict[str, list[str]]()
    parent = doc.get("extends")
    if isinstance(parent, str) and parent.startswith(".") and depth < _MAX_EXTENDS:
        target = posixpath.normpath(posixpath.join(folder, parent))
        if not target.endswith(".json"):
            target += ".json"
        inherited = _config(posixpath.dirname(target), posixpath.basename(target), read,
                            depth + 1)
        if inherited is not None:
            base_url, paths = inherited
    options = doc.get("compilerOptions")
    if isinstance(options, dict):
        raw_base = options.get("baseUrl")
        if isinstance(raw_base, str):
            base_url = _join(folder, raw_base)
        raw_paths = options.get("paths")
        if isinstance(raw_paths, dict):
            root = base_url if isinstance(raw_base, str) else folder  # TS 4.1+ rule
            paths = {str(k): [_join(root, str(t)) for t in v if isinstance(t, str)]
                     for k, v in raw_paths.items() if isinstance(v, list)}
    return base_url, paths


def _join(folder: str, rel: str) -> str:
    joined = posixpath.normpath(posixpath.join(folder, rel)) if folder else posixpath.normpath(rel)
    return "" if joined == "." else joined


def module_keys(paths: Iterable[str], read: Callable[[str], bytes | None]
                ) -> dict[str, FileContext]:
    """Module key = path without extension and ``/index``; settings carry the nearest
    tsconfig.json/jsconfig.json ``baseUrl`` and ``paths`` (repository-relative)."""
    found: dict[str, tuple[str, dict[str, list[str]]] | None] = {}

    def nearest(folder: str) -> tuple[str, dict[str, list[str]]] | None:
        if folder not in found:
            conf = None
            for name in _CONFIGS:
                conf = _config(folder, name, read)
                if conf is not None:
                    break
            if conf is None and folder:
                conf = nearest(posixpath.dirname(folder))
            found[folder] = conf
        return found[folder]

    out: dict[str, FileContext] = {}
    for path in paths:
        conf = nearest(posixpath.dirname(path))
        settings: tuple[tuple[str, str], ...] = ()
        if conf is not None and (conf[0] or conf[1]):
            settings = (("baseUrl", conf[0]),
                        ("paths", json.dumps(conf[1], sort_keys=True, separators=(",", ":"))))
        out[path] = FileContext(path=path, module=normalize(path), settings=settings)
    return out


class _Specifiers:
    """Resolves import specifiers of one file to module keys."""

    def __init__(self, ctx: FileContext) -> None:
        self.folder = posixpath.dirname(ctx.path)
        settings = dict(ctx.settings)
        self.base_url: str | None = settings.get("baseUrl") if "baseUrl" in settings else None
        raw = json.loads(settings["paths"]) if settings.get("paths") else {}
        self.paths: dict[str, list[str]] = raw if isinstance(raw, dict) else {}
        self.module = ctx.module

    def resolve(self, spec: str) -> tuple[str, bool]:
        """(module key, certain). External packages keep their specifier."""
        if spec == "":
            return self.module, True
        if spec.startswith(("./", "../")) or spec in (".", ".."):
            return normalize(_join(self.folder, spec)), True
        if spec.startswith("/"):
            return normalize(spec.lstrip("/")), True
        for pattern, targets in self.paths.items():
            if not targets:
                continue
            star = pattern.find("*")
            if star < 0:
                if spec == pattern:
                    return normalize(targets[0]), len(targets) == 1
                continue
            head, tail = pattern[:star], pattern[star + 1:]
            if spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(head) + len(tail):
                middle = spec[len(head): len(spec) - len(tail)]
                return normalize(targets[0].replace("*", middle, 1)), len(targets) == 1
        if self.base_url is not None and "/" in spec and not spec.startswith("@"):
            return normalize(_join(self.base_url, spec)), False
        return spec, True


def _builtins(language: str) -> frozenset[str]:
    packs = all_packs()
    pack = packs.get(language)
    return frozenset(pack.manifest.get("builtins", ())) if pack is not None else frozenset()


def _bind(imp: Import, mod: str) -> str:
    """The full name an import binds: ``mod#name``, ``mod#default``, or ``mod`` itself."""
    if imp.name is None or imp.name == "*":
        return mod
    return f"{mod}#{imp.name}"


_NAMED_TYPE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")


_TYPE_KINDS = frozenset({"class", "interface", "type", "enum", "func"})


def _one_type(bases: tuple[str, ...]) -> bool:
    """Whether a field's bases are one declared named type (no container mark, no union,
    no parameter mark): `#query: Query<T>`, not `items: Query[]` nor `a: A | B`."""
    return len(bases) == 1 and _NAMED_TYPE.fullmatch(bases[0]) is not None


def _direct(arg: str, qualifier: str, named_types: frozenset[str]) -> bool:
    """Whether an ``inst:`` head's receiver is the whole qualifier (`x.m`, not `x.a.m`),
    typed by one named type: imported, or a class, interface, type or function (its
    declared result) of this file; not a union, not a value (`for (h of handlers)`: one of
    the array's values), not a member of `this`. A member of it is proven as `this.m` is."""
    consumed, type_head, type_text = H.parse_instance(arg)
    kind, val = H.split(type_head)
    if len(qualifier.split(".")) != consumed or _NAMED_TYPE.fullmatch(type_text) is None:
        return False
    if kind == H.IMPORT:
        return True
    return kind == H.DEF and val in named_types


def _each_named(arg: str, qualifier: str, named_types: frozenset[str],
                top_alias: dict[str, int]) -> bool:
    """Whether an ``inst:`` head's receiver is the whole qualifier, a callback's parameter
    given every element of an array literal in turn (`[A, B].forEach(k => k.m())`,
    syntax/composite.py each_of), each element imported or a named type of this file: its
    member is each element's, reached on a run (proven as `A.m` is)."""
    consumed, _, type_text = H.parse_instance(arg)
    if len(qualifier.split(".")) != consumed or "." in type_text or not is_each(type_text):
        return False
    return all(t in top_alias or t in named_types for t in operands(type_text))


def _instance(arg: str, qualifier: str, name: str, key: str, facts: FileFacts,
              bound: list[str]) -> str | None:
    """``inst:<parts consumed>|<type head>|<type>`` → the member's full name on the type:
    ``def:T`` → ``key#T.m``, an imported ``T`` → ``mod#T.m``, ``ns.T`` → ``mod#T.m``,
    ``self:C`` with ``this.f`` → ``key#C.f.m`` (through the field's type alias). A
    local set from a call (`x = f()`) has f as its type: the member of what f returns,
    reached through f's return-type alias, so only for a function of this file that
    declares its return type; an imported lowercase name is taken for a function whose
    return type this file cannot see: the member of what it returns, a guess
    (`_guessed_result`) that stays a candidate by name where it reaches no definition."""
    consumed, type_head, type_text = H.parse_instance(arg)
    kind, val = H.split(type_head)
    member = ".".join([*type_text.split(".")[1:], *qualifier.split(".")[consumed:], name])
    if kind == H.FREE and operands(type_text.split(".", 1)[0]):
        # a union or intersection (`x: A & B`): the member of the composite, which the
        # file's aliases map to each operand's (`resolve`)
        return f"{key}#{type_text.split('.', 1)[0]}.{member}"
    if kind == H.SELF:  # a local typed by a member of `this` (`this.#items.forEach(…)`)
        return f"{key}#{val}.{member}" if "." in type_text else None
    if kind == H.DEF:
        funcs = [d for d in facts.definitions if d.qualname == val and d.kind == "func"]
        return None if funcs and not any(_plain(d.bases) for d in funcs) else f"{key}#{val}.{member}"
    if kind != H.IMPORT:
        return None
    n = int(val)
    imp = facts.imports[n]
    if imp.name is not None:
        return f"{bound[n]}.{member}"
    return f"{bound[n]}#{member}" if "." in type_text else None


# The confidence of a target that may reach no definition (a member of what an imported
# function returns, whose return type this file cannot see): the query layer takes it as
# a name-matched candidate where it does not resolve (query/symbols.py unresolved_refs).
GUESS = "ambiguous"


def _guessed_result(arg: str, facts: FileFacts) -> bool:
    """Whether an ``inst:`` head's type is an imported lowercase name (`const s =
    makeStore()`): a function of another module, whose declared result may be unknown."""
    kind, val = H.split(H.parse_instance(arg).type_head)
    if kind != H.IMPORT:
        return False
    imp = facts.imports[int(val)]
    return imp.name is not None and imp.alias[:1].islower()


def _container_aliases(full: str, bases: tuple[str, ...], local: Callable[[str], str],
                       builtins: frozenset[str], top_alias: dict[str, int], language: str,
                       typed_values: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """The aliases of a member declared with a container type (a base marked by
    syntax/composite.py): its element-keeping members (manifest `element_members`) and a
    map's value-returning ones (`value_members`) reach what it holds. An array literal's
    elements count only where they are `typed_values` (the file's module-level constants
    with a declared type: never a function, whose members would be its result's)."""
    manifest = all_packs()[language].manifest
    elements = tuple(str(m) for m in manifest.get("element_members", ()))
    values = tuple(str(m) for m in manifest.get("value_members", ()))
    out: list[tuple[str, str]] = []
    for base in bases:
        mark, held = split_mark(base)
        if not mark or (held.split(".", 1)[0] in builtins and held not in top_alias):
            continue
        if mark == LITERAL and held not in typed_values:
            continue  # an element that is not the file's own typed constant
        target = local(held)
        if "#" in target:
            out += container_aliases(full, mark, target, elements, values)
    return list(dict.fromkeys(out))


def _by_context(arg: str) -> bool:
    """Whether an ``inst:`` head's type is a parameter typed by context (``f.$0``): a
    guess, a name-matched candidate where it reaches no definition."""
    return has_param_segment(H.parse_instance(arg).type_text)


def _plain(bases: tuple[str, ...]) -> tuple[str, ...]:
    """A definition's bases without the marks of containers, parameter types and
    accessors."""
    return tuple(b for b in bases if not is_param_base(b) and not split_mark(b)[0]
                 and b != H.PROPERTY_MARKER)


def _parameter_aliases(full: str, bases: tuple[str, ...], local: Callable[[str], str],
                       builtins: frozenset[str], top_alias: dict[str, int]
                       ) -> list[tuple[str, str]]:
    """A function's declared parameter types (bases ``$i=Type``, syntax/contextual.py) as
    aliases ``full.$i.*`` → ``Type.*``: what a parameter typed by context reaches."""
    out: list[tuple[str, str]] = []
    for base in bases:
        if not is_param_base(base):
            continue
        pos, _, text = base.partition("=")
        for t in _each_operand((text,)):
            if t.split(".", 1)[0] in builtins and t not in top_alias:
                continue
            target = local(t)
            if "#" in target:
                out.append((f"{full}.{pos}.*", f"{target}.*"))
    return out


def _each_operand(types: tuple[str, ...]) -> list[str]:
    """Types with each composite (``(A&B).x``) as its operands (``A.x``, ``B.x``)."""
    out: list[str] = []
    for t in types:
        first, dot, rest = t.partition(".")
        parts = operands(first)
        out.extend([f"{p}{dot}{rest}" for p in parts] if parts else [t])
    return out


def _unknown_result(head: str, arg: str, qualifier: str, facts: FileFacts) -> bool:
    """Whether a call chain starts at a function whose result type is unknown, by the rule
    of typed locals (`_instance`): a function of this file without a declared return type,
    or an imported lowercase name (a function of unknown return type)."""
    first = qualifier.split(".", 1)[0]
    if head == H.DEF and arg == first:
        funcs = [d for d in facts.definitions if d.qualname == arg and d.kind == "func"]
        return bool(funcs) and not any(_plain(d.bases) for d in funcs)
    if head == H.IMPORT:
        imp = facts.imports[int(arg)]
        return imp.name is not None and first == imp.alias and imp.alias[:1].islower()
    return False


def resolve(facts: FileFacts, ctx: FileContext) -> Resolution:
    """Resolve every reference of one file to ``module#Qual.name``, or None."""
    key = ctx.module
    specs = _Specifiers(ctx)
    resolved = [specs.resolve(i.module) for i in facts.imports]
    bound = [_bind(i, m) for i, (m, _) in zip(facts.imports, resolved)]
    top_alias = {i.alias: n for n, i in enumerate(facts.imports)
                 if i.scope < 0 and not i.reexport and i.name != "*"}
    def_full = tuple(f"{key}#{d.qualname}" for d in facts.definitions)
    local_defs = {d.qualname for d in facts.definitions}
    targets: list[str | None] = []
    confidence: list[str] = []
    supers: list[int] = []
    composites: set[str] = set()
    named_types = frozenset(d.qualname for d in facts.definitions if d.kind in _TYPE_KINDS)
    field_types = {d.qualname: d.bases for d in facts.definitions if d.kind == "field"}
    for ref in facts.references:
        head, arg = H.split(ref.head)
        # `f().m`, `c.getCache().build`: a member of a call's result, through the callee's
        # declared return type (manifest `call_chains_marked` leaves the `()`): inferred
        called = "()" in ref.qualifier
        qualifier = ref.qualifier.replace("()", "") if called else ref.qualifier
        rest = qualifier.split(".")[1:] if qualifier else []
        tail = ".".join([*rest, ref.name])
        target: str | None = None
        conf = "exact"
        if head == H.IMPORT:
            n = int(arg)
            imp, base = facts.imports[n], bound[n]
            certain = resolved[n][1]
            if ref.role == "import" or not qualifier:
                target = base
            elif imp.name is None:
                target = f"{base}#{tail}"  # namespace import / require: ns.foo → mod#foo
            else:
                target = f"{base}.{tail}"  # static member of an imported class or enum
            conf = "exact" if certain else "inferred"
        elif head == H.DEF:
            target = f"{key}#{arg}.{tail}" if qualifier else f"{key}#{arg}"
            if qualifier and f"{arg}.{tail}" not in local_defs:
                conf = "inferred"  # through a typed variable's alias, or not at all
        elif head == H.SELF and qualifier:
            target = f"{key}#{arg}.{tail}"
            conf = "inferred" if rest else "exact"  # this.field.m(): via the field's type
            if len(rest) == 1 and _one_type(field_types.get(f"{arg}.{rest[0]}", ())):
                conf = "exact"  # a field declared with one named type: proven as x.m is
        elif head == H.FREE and qualifier == "super":
            supers.append(len(targets))  # `super.m()`: the member of the class's base
        elif head == H.FREE and qualifier in _EXPORTS_OBJECTS:
            target = f"{key}#{ref.name}"  # CommonJS: exports.f() inside the module itself
        elif head == H.INST:  # a typed or constructed local: x.m() → Type.m
            target, conf = _instance(arg, qualifier, ref.name, key, facts, bound), \
                "inferred"
            if target and target.startswith(f"{key}#("):
                composites.add(target[len(key) + 1:].split(".", 1)[0])
            if target and (_guessed_result(arg, facts) or _by_context(arg)):
                conf = GUESS
            elif target and not called and (_direct(arg, qualifier, named_types) or _each_named(
                    arg, qualifier, named_types, top_alias)):
                conf = "exact"  # `x.m()`, x declared or constructed as one named type
        if called and target and _unknown_result(head, arg, qualifier, facts):
            if head == H.IMPORT:  # `makeStore().get()`: through its declared result, if any
                conf = GUESS
            else:  # a function of this file without a declared result: a name match
                target = None
        if called and conf == "exact":
            conf = "inferred"
        targets.append(target)
        confidence.append(conf if target else "ambiguous")

    def local(text: str) -> str:
        """A name or dotted expression of this module as a full name."""
        first, dot, more = text.partition(".")
        n = top_alias.get(first)
        if n is not None:
            imp = facts.imports[n]
            if not dot:
                return bound[n]
            return f"{bound[n]}#{more}" if imp.name is None else f"{bound[n]}.{more}"
        if first in local_defs or not dot:
            return f"{key}#{text}"
        return text

    for n in supers:  # `super.m()` in a class with one base: that base's m (inferred)
        ref = facts.references[n]
        i = ref.scope
        while i >= 0 and facts.definitions[i].kind != "class":
            i = facts.definitions[i].parent
        if i >= 0 and len(_plain(facts.definitions[i].bases)) == 1:
            targets[n] = f"{local(_plain(facts.definitions[i].bases)[0])}.{ref.name}"
            confidence[n] = "inferred"

    def own_class(d: Definition) -> str:
        """`this` as a method's declared result: the class the method belongs to."""
        owner = facts.definitions[d.parent] if d.parent >= 0 else None
        return f"{key}#{owner.qualname}" if owner is not None else ""

    builtins = _builtins(facts.language)
    typed_values = frozenset(d.qualname for d in facts.definitions
                             if d.kind in ("var", "const") and d.parent < 0 and _plain(d.bases))
    bases: list[tuple[str, ...]] = []
    aliases: list[tuple[str, str]] = []
    for text in sorted(composites):  # `(A|B).*` → `A.*`, `B.*`: a member of either
        aliases.extend((f"{key}#{text}.*", f"{local(t)}.*") for t in operands(text)
                       if t.split(".", 1)[0] not in builtins or t in top_alias)
    for d, full in zip(facts.definitions, def_full):
        plain = _plain(d.bases)
        if d.kind in _VALUE_KINDS or d.kind == "method":
            # a declared or constructed type, a method's declared result: alias, not a base
            # (a composite base, a type parameter's constraint `A & B`: each operand)
            types = dict.fromkeys(own_class(d) if b == "this" else local(b)
                                  for b in _each_operand(plain)
                                  if b.split(".", 1)[0] not in builtins or b in top_alias)
            aliases.extend((f"{full}.*", f"{t}.*") for t in types if "#" in t)
            if len(plain) < len(d.bases):
                aliases.extend(a for a in _container_aliases(
                    full, d.bases, local, builtins, top_alias, facts.language, typed_values)
                    if a not in aliases)
            # a `get` accessor: a read of it is a call (query/symbols.py is_property)
            bases.append((H.PROPERTY_MARKER,) if H.PROPERTY_MARKER in d.bases else ())
        else:
            bases.append(tuple(local(b) for b in plain))
        aliases.extend(_parameter_aliases(full, d.bases, local, builtins, top_alias))
    for imp, (mod, _), target in zip(facts.imports, resolved, bound):
        if not imp.reexport:  # (a named `export default class` sits in its own scope)
            continue
        if imp.module == "":  # export {a as b} / export default a: a binding of this file
            source = local(imp.name) if imp.name else key
        elif imp.name == "*":
            source = f"{mod}#*"
        else:
            source = target
        alias = f"{key}#*" if imp.name == "*" else f"{key}#{imp.alias}"
        if alias != source:
            aliases.append((alias, source))
    return Resolution(tuple(targets), tuple(confidence), def_full, tuple(bases),
                      tuple(aliases))
