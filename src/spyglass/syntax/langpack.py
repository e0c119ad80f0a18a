"""Language packs: a folder of tree-sitter queries plus a manifest, validated when loaded."""

from __future__ import annotations

import fnmatch
import hashlib
import importlib
import importlib.metadata
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from tree_sitter import Language, Query

from spyglass.errors import LanguagePackError
from spyglass.types import DEF_KINDS, ROLES

LANGS_DIR = Path(__file__).resolve().parent.parent / "langs"
# More folders of language packs, separated by os.pathsep (docs/languages.md): packs kept
# outside the package, such as the throwaway packs of tests/langs/throwaway/.
PACKS_ENV = "SPYGLASS_LANGUAGE_PACKS"

QUERY_FILES = ("definitions", "references", "imports", "scopes")
# Bumped when extraction or row shaping changes what facts a pack yields: stores rebuild.
ENGINE_VERSION = 8

# The capture names each query file may use; anything else is a pack error.
ALLOWED_CAPTURES: dict[str, frozenset[str]] = {
    "definitions": frozenset(
        {f"definition.{k}" for k in DEF_KINDS}
        | {"name", "receiver", "base", "package", "parameters"}
    ),
    # @qualified: a node whose text up to the name is the qualifier (`a.b` of `a.b.c`);
    # @receiver: the receiver itself, where the node holding it spans more than the name
    # (Java's `method_invocation` spans the arguments): the qualifier runs from it to the name.
    # @doc: a comment searched with the manifest's `doc_link` (`{@link Name}`).
    # @key: a key of a composite literal (Go `T{k: v}`): role `ref`, the literal's type as
    # its qualifier (the resolver reads it as a field of T or, for a map type, a value).
    # @arguments: a call's bracketed argument list (its items counted); @argument: one
    # argument outside it (a trailing lambda). @tag: a name in the tag name space (C's
    # `struct X`): its head is marked ``tag:`` (syntax/heads.py). Definitions' @parameters: a parameter list.
    "references": frozenset({f"reference.{r}" for r in ROLES}
                            | {"qualified", "receiver", "ignore", "doc", "key",
                               "arguments", "argument", "tag"}),
    "imports": frozenset(
        {"import.module", "import.name", "import.alias", "import.wildcard", "import.default",
         "import.reexport"}
    ),
    "scopes": frozenset(
        {"scope", "scope.class", "scope.self", "local.definition", "local.global", "local.self",
         "local.type", "local.member", "local.nonlocal", "local.parameter", "local.narrow",
         "local.narrow.block", "local.element", "local.element.target", "local.appended",
         "local.appended.value", "local.read", "local.read.name"}
    ),
}

# -- the manifest schema (docs/languages.md, "Manifest keys") ----------------------------
# A type is a Python type, ("list", item type), ("map", value type), a nested schema (a
# table with those keys) or a frozenset of allowed strings.
Schema = dict[str, Any]
STRS = ("list", str)
DETECT: Schema = {  # one way a configuration file names a test framework
    "file": str, "files": STRS, "toml_table": str, "ini_section": str,
    "json_dependency": str, "json_script": str, "capture": str, "evidence": str,
}
SELECT: Schema = {"option": str, "names": str, "none": str}  # test names → a command option
FRAMEWORK: Schema = {  # a test framework: detection, commands, shared fixture files
    "detect": ("list", DETECT), "root": frozenset({"config", "repository"}),
    "command": str, "id_separator": str, "max_ids": int, "name_option": str,
    "name_separator": str, "symbol_format": str, "outermost": bool,
    "select": ("list", SELECT), "expand_files": bool, "fixture_files": STRS,
}
ARITY: Schema = {  # regular expressions over one parameter's (or list's) text
    "variadic": str, "optional": str, "optional_list": str, "empty": str,
    "defaults_apart": bool,  # read at query time (query/overloads.py), not a pattern
}
COVERAGE: Schema = {  # the depth a pack reaches, stated by the pack (README, code_status)
    "definitions": str, "references": str, "resolution": str, "callers": str, "tests": str,
    "limitations": str,
}
CONTEXTUAL: Schema = {  # grammar nodes of parameters typed by context (syntax/contextual.py)
    "functions": STRS, "arrow": str, "method": str, "object": str, "parameters": STRS,
    "receiver": str, "name": str, "annotation": str, "typed": STRS, "function_types": STRS,
    "return_statement": str, "return_wrappers": STRS,
}
MANIFEST: Schema = {
    "name": str, "pack_version": str, "extensions": STRS, "grammar": str,
    "grammar_function": str, "extends": str, "resolver": str, "replaces": str,
    "claims": ("map", STRS),  # another pack's extension, claimed when the text matches
    # extraction
    "self_names": STRS, "class_scope_encloses": bool, "const_pattern": str,
    "import_binds": frozenset({"head", "tail"}), "import_tail_skip": str,
    "qualifier_separators": STRS, "parse_blanks": STRS,
    "super_receivers": STRS, "call_chains": str, "call_chains_marked": bool,
    "call_chains_type_assertions": bool,
    "typed_member_paths": bool, "type_unwrap": STRS, "builtin_types_external": bool,
    "element_containers": STRS, "value_containers": STRS, "element_members": STRS,
    "value_members": STRS, "contextual_parameters": CONTEXTUAL,
    "container_nodes": {"generic": str, "array": str, "literal": str},
    "builtins": STRS, "literal_types": ("map", str), "literal_receiver": str,
    "type_operators": ("map", str), "type_operands_skipped": STRS,
    "optional_member_tokens": STRS, "anonymous_structs": ("map", str),
    "doc_link": str, "doc_comment_start": str, "build_constraint": str,
    "flow_types": {"blocks": STRS, "assignments": STRS, "loops": STRS, "keeps": STRS,
                   "parameters": STRS, "tries": STRS, "handlers": STRS, "exits": STRS,
                   "finals": STRS},
    "element_types": {"sequences": STRS, "mappings": STRS, "tuples": STRS, "wrappers": STRS,
                      "passthrough": STRS, "enumerate": STRS, "declared": STRS,
                      "comprehensions": STRS, "member": str, "views": ("map", str)},
    "build_constraint_file": str,
    "arity": ARITY,
    "preprocessor_conditions": bool, "preprocessor_absent": STRS,
    "preprocessor_present": ("map", str), "file_scoped_kinds": STRS, "tag_namespace": bool,
    "inherited_members": bool, "external_guesses_dropped": bool,
    "submodules_bound_by_import": bool,
    # queries
    "callers_include_value_uses": bool, "callers_include_member_uses": bool,
    "builtin_members": STRS,
    "builtin_interfaces": ("map", STRS), "structural_interfaces": bool,
    "external_interfaces": ("map", STRS), "external_types": ("map", STRS),
    "structural_bases": STRS,
    "constructor_names": STRS, "declaration_sites": STRS, "declaration_files": STRS,
    "inherited_bare_names": bool,
    "references_through_types": bool,
    "type_namespace": bool, "member_namespaces": bool,
    # tests
    "module_file_stems": STRS, "test_file_patterns": STRS, "test_dirs_any_file": STRS, "test_function_pattern": str,
    "test_class_pattern": str, "test_class_bases": str, "test_framework": str,
    "test_frameworks": STRS,
    "test_config_boundary": str, "test_framework_assumed": str,
    "frameworks": ("map", FRAMEWORK),
    "coverage": COVERAGE,
}
REQUIRED = ("name", "pack_version", "extensions", "grammar")
_TYPE_NAMES = {str: "a string", bool: "a boolean", int: "an integer"}
TypeSpec = type | tuple[str, Any] | Schema | frozenset[str]


def _describe(spec: TypeSpec) -> str:
    if isinstance(spec, type):
        return _TYPE_NAMES[spec]
    if isinstance(spec, frozenset):
        return "one of " + ", ".join(repr(v) for v in sorted(spec))
    if isinstance(spec, dict):
        return "a table"
    inner = _describe(spec[1])
    return f"a list of {inner.removeprefix('a ').removeprefix('an ')}s" if spec[0] == "list" \
        else f"a table of {inner.removeprefix('a ').removeprefix('an ')}s"


def _valid(value: Any, spec: TypeSpec) -> bool:
    if isinstance(spec, type):
        return isinstance(value, spec) and not (spec is int and isinstance(value, bool))
    if isinstance(spec, frozenset):
        return value in spec
    if isinstance(spec, dict):
        return isinstance(value, dict)
    if spec[0] == "list":
        return isinstance(value, list) and all(_valid(v, spec[1]) for v in value)
    return isinstance(value, dict) and all(_valid(v, spec[1]) for v in value.values())


def names_in(table: Mapping[str, object], key: str) -> frozenset[str]:
    """A manifest table's list of strings under `key` as a set (empty when absent)."""
    value = table.get(key, ())
    return frozenset(str(v) for v in value) if isinstance(value, list) else frozenset()


def check_table(path: Path, where: str, table: dict[str, Any], schema: Schema) -> None:
    """Every key of `table` known to `schema` and of its type, nested tables included;
    else a LanguagePackError naming the file and the key (`where` is the key's prefix)."""
    for key, value in table.items():
        name = f"{where}{key}"
        spec = schema.get(key)
        if spec is None:
            raise LanguagePackError(f"{path}: unknown key {name!r}")
        if not _valid(value, spec):
            raise LanguagePackError(f"{path}: {name!r} must be {_describe(spec)}")
        nested = spec if isinstance(spec, dict) else spec[1] if isinstance(spec, tuple) \
            and isinstance(spec[1], dict) else None
        if nested is None:
            continue
        if isinstance(spec, dict):
            check_table(path, f"{name}.", value, nested)
        elif spec[0] == "list":
            for i, item in enumerate(value):
                check_table(path, f"{name}[{i}].", item, nested)
        else:
            for k, item in value.items():
                check_table(path, f"{name}.{k}.", item, nested)


@dataclass(frozen=True)
class LanguagePack:
    """One language: its grammar, queries and file conventions.

    Queries are compiled (and validated) on first use, so a process pays only for the
    languages it meets; `validate()` compiles them all at once."""

    name: str
    pack_version: str
    extensions: tuple[str, ...]
    grammar_module: str
    grammar_version: str
    language: Language
    manifest: dict[str, Any]
    digest: str  # hash of manifest + queries: part of every fact's cache key
    folder: Path
    texts: dict[str, str]  # query file texts, base pack's first when the manifest extends

    @cached_property
    def queries(self) -> dict[str, Query]:
        """Each query file compiled on its own (validation names the failing file)."""
        return {stem: _compile(self.language, self.folder, stem, self.texts[stem])
                for stem in QUERY_FILES}

    @cached_property
    def references(self) -> Query:
        """The references query (compiled alone: extraction runs it on its own)."""
        return _compile(self.language, self.folder, "references", self.texts["references"])

    @cached_property
    def structure(self) -> Query:
        """Definitions + imports + scopes in one query: one tree traversal for all three.
        Compiled once (a large grammar's queries take seconds to compile: Swift's); only
        when it fails are the files compiled one by one, for an error naming the file."""
        for stem in STRUCTURE_FILES:
            _check_captures(self.folder, stem, self.texts[stem])
        try:
            return Query(self.language, "\n".join(self.texts[s] for s in STRUCTURE_FILES))
        except Exception:
            _ = self.queries  # raises a LanguagePackError naming the file
            raise

    @cached_property
    def structure_offsets(self) -> tuple[int, int]:
        """First pattern index of the imports, and of the scopes, within `structure`: the
        first pattern starting past the definitions' (and the imports') text."""
        query = self.structure
        ends = (len(self.texts["definitions"]) + 1,
                len(self.texts["definitions"]) + len(self.texts["imports"]) + 2)
        count = _count(query, "pattern_count")
        starts = [query.start_byte_for_pattern(i) for i in range(count)]
        first_import = next((i for i, b in enumerate(starts) if b >= ends[0]), count)
        first_scope = next((i for i, b in enumerate(starts) if b >= ends[1]), count)
        return first_import, first_scope

    def validate(self) -> None:
        """Compile every query now (raises LanguagePackError on the first bad file)."""
        _ = self.structure
        _ = self.references
        _ = self.blanks
        _ = self.constraint_pattern
        _ = self.claim_patterns
        _ = self.file_constraint_pattern

    def _manifest_regex(self, key: str) -> re.Pattern[str] | None:
        """The manifest's regex `key` compiled (an error naming the file and key), or None."""
        pattern = self.manifest.get(key)
        if not pattern:
            return None
        try:
            return re.compile(str(pattern))
        except re.error as exc:
            raise LanguagePackError(f"{self.folder / 'manifest.toml'}: {key!r}: {exc}") from exc

    @cached_property
    def constraint_pattern(self) -> re.Pattern[str] | None:
        """The manifest's `build_constraint` regex (group 1: the expression), compiled
        once; None when the language has no build constraints."""
        return self._manifest_regex("build_constraint")

    @cached_property
    def claim_patterns(self) -> dict[str, re.Pattern[bytes]]:
        """The manifest's `claims`: extension → one pattern of text this language claims
        that extension for (a C++ `.h`), compiled once."""
        out: dict[str, re.Pattern[bytes]] = {}
        for ext, patterns in self.manifest.get("claims", {}).items():
            try:
                out[str(ext).lower()] = re.compile(
                    "|".join(f"(?:{p})" for p in patterns).encode(), re.MULTILINE)
            except re.error as exc:
                raise LanguagePackError(
                    f"{self.folder / 'manifest.toml'}: 'claims' {ext!r}: {exc}") from exc
        return out

    @cached_property
    def file_constraint_pattern(self) -> re.Pattern[str] | None:
        """The manifest's `build_constraint_file` regex, matched on a file's name (group 1:
        the constraint it names, Go's `_windows` suffix), compiled once; None if unset."""
        return self._manifest_regex("build_constraint_file")

    @cached_property
    def blanks(self) -> re.Pattern[bytes] | None:
        """The manifest's `parse_blanks` as one pattern: text the grammar cannot parse
        (attribute-like macros), blanked before parsing; None without any."""
        patterns = [str(p) for p in self.manifest.get("parse_blanks", ())]
        if not patterns:
            return None
        try:
            return re.compile("|".join(f"(?:{p})" for p in patterns).encode())
        except re.error as exc:
            raise LanguagePackError(
                f"{self.folder / 'manifest.toml'}: 'parse_blanks': {exc}") from exc

    @property
    def self_names(self) -> frozenset[str]:
        return frozenset(self.manifest.get("self_names", []))

    @property
    def class_scope_encloses(self) -> bool:
        return bool(self.manifest.get("class_scope_encloses", True))

    @property
    def resolver(self) -> str:
        """The pack folder whose resolver.py resolves this language (default: its own)."""
        return str(self.manifest.get("resolver", self.folder.name))

    @property
    def resolver_path(self) -> Path:
        """Where the resolver module would be: `resolver.py` of the pack it names."""
        return self.folder.parent / self.resolver / "resolver.py"

    @property
    def qualifier_separators(self) -> tuple[bytes, ...]:
        """Separators between the names of a qualifier besides `.` (Rust and C++ `::`),
        longest first: extraction writes every qualifier with `.`."""
        seps = {str(s).encode() for s in self.manifest.get("qualifier_separators", ())}
        return tuple(sorted(seps - {b"."}, key=lambda s: (-len(s), s)))

    @property
    def cache_key(self) -> str:
        """What a unit's facts depend on: pack, grammar, and the engine's own version."""
        return (f"{self.name}:{self.pack_version}:{self.grammar_version}:{self.digest[:12]}:"
                f"e{ENGINE_VERSION}")

    def is_test_file(self, path: str) -> bool:
        """Whether `path` follows this language's test-file conventions."""
        name = path.rsplit("/", 1)[-1]
        if any(fnmatch.fnmatchcase(name, p) for p in self.manifest.get("test_file_patterns", [])):
            return True
        parts = path.split("/")[:-1]
        dirs = set(self.manifest.get("test_dirs_any_file", []))
        return bool(dirs.intersection(parts))

    def is_test_name(self, name: str, kind: str) -> bool:
        """Whether a definition in a test file is itself a test (function or class)."""
        key = "test_class_pattern" if kind in ("class", "struct") else "test_function_pattern"
        pattern = self.manifest.get(key)
        return bool(pattern) and re.search(str(pattern), name) is not None

    def is_test_base(self, bases: tuple[str, ...]) -> bool:
        """Whether a class in a test file is a test class by a base it declares: a base's
        last name as written (type arguments and constructor arguments dropped) matching
        `test_class_bases` (ScalaTest's `extends AnyFunSuite`, ScalaCheck's `Properties`)."""
        pattern = self.manifest.get("test_class_bases")
        return bool(pattern) and any(
            re.search(str(pattern), re.split(r"[\[(]", b, 1)[0].strip().rpartition(".")[2])
            for b in bases)


def _load_language(module_name: str, function: str) -> tuple[Language, str]:
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise LanguagePackError(f"grammar package {module_name!r} is not installed") from exc
    factory = getattr(module, function, None)
    if factory is None:
        raise LanguagePackError(f"grammar package {module_name!r} has no {function}()")
    dist = module_name.replace("_", "-")
    try:
        version = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return Language(factory()), version


def _count(query: Query, attr: str) -> int:
    """Query.pattern_count / capture_count: properties at run time, methods in the stubs."""
    value = getattr(query, attr)
    return int(value() if callable(value) else value)


def _query_text(folder: Path, stem: str, manifest: dict[str, Any]) -> str:
    """A query file's text: the base pack's file first when the manifest `extends` one,
    then this pack's own file (which may then be absent)."""
    path = folder / f"{stem}.scm"
    parts: list[str] = []
    base = manifest.get("extends")
    if base:
        parts.append(_query_text(folder.parent / str(base), stem, _read_manifest(
            folder.parent / str(base))))
    if path.is_file():
        parts.append(_expand_includes(path, path.read_text(encoding="utf-8")))
    elif not base:
        raise LanguagePackError(f"{path}: missing query file")
    return "\n".join(parts)


_INCLUDE = re.compile(r"^; include: ([\w-]+/[\w-]+)$", re.MULTILINE)


def _expand_includes(path: Path, text: str) -> str:
    """Replace each `; include: folder/name` line with the text of `folder/name.scm` beside
    the pack (langs/ for the built-in ones): patterns several packs share verbatim
    (JavaScript and TypeScript), kept once and inserted where they stand, since a
    pattern's position decides which match wins."""
    def fragment(m: re.Match[str]) -> str:
        source = path.parent.parent / f"{m.group(1)}.scm"
        try:
            return source.read_text(encoding="utf-8").rstrip("\n")
        except OSError as exc:
            raise LanguagePackError(f"{path}: cannot include {m.group(1)}: {exc}") from exc
    return _INCLUDE.sub(fragment, text)


STRUCTURE_FILES = ("definitions", "imports", "scopes")
_CAPTURE = re.compile(r"@([A-Za-z_][\w.]*)")
_COMMENT = re.compile(r"^\s*;.*$", re.MULTILINE)


def _check_captures(folder: Path, stem: str, text: str) -> None:
    """Every capture name of a query file's text is one its file may use."""
    allowed = ALLOWED_CAPTURES[stem]
    for name in _CAPTURE.findall(_COMMENT.sub("", text)):
        if not name.startswith("_") and name not in allowed:
            raise LanguagePackError(f"{folder / f'{stem}.scm'}: unknown capture name @{name}")


def _compile(language: Language, folder: Path, stem: str, text: str) -> Query:
    path = folder / f"{stem}.scm"
    try:
        query = Query(language, text)
    except Exception as exc:  # tree-sitter raises QueryError with the position
        raise LanguagePackError(f"{path}: {exc}") from exc
    allowed = ALLOWED_CAPTURES[stem]
    for i in range(_count(query, "capture_count")):
        name = query.capture_name(i)
        if name.startswith("_"):
            continue  # private helper captures used only in predicates
        if name not in allowed:
            raise LanguagePackError(f"{path}: unknown capture name @{name}")
    return query


def _read_manifest(folder: Path) -> dict[str, Any]:
    """A pack's manifest, checked against the schema; with `extends = "base"`, the base's
    keys under its own."""
    path = folder / "manifest.toml"
    try:
        manifest = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LanguagePackError(f"{path}: {exc}") from exc
    check_table(path, "", manifest, MANIFEST)
    base = manifest.get("extends")
    if base is not None:
        if not isinstance(base, str) or not (folder.parent / base / "manifest.toml").is_file():
            raise LanguagePackError(f"{path}: extends names no language pack: {base!r}")
        merged = _read_manifest(folder.parent / base)
        merged.pop("extends", None)
        merged.update(manifest)
        manifest = merged
    return manifest


def load_pack(folder: Path) -> LanguagePack:
    """Load one language pack folder: manifest checked now, queries on first use."""
    manifest_path = folder / "manifest.toml"
    manifest = _read_manifest(folder)
    for key in REQUIRED:
        if key not in manifest:
            raise LanguagePackError(f"{manifest_path}: {key!r} is missing (must be "
                                    f"{_describe(MANIFEST[key])})")
    language, version = _load_language(
        manifest["grammar"], str(manifest.get("grammar_function", "language"))
    )
    # (the `[coverage]` table only describes the pack: editing it rebuilds nothing)
    digest = hashlib.sha256(repr(sorted(
        (k, v) for k, v in manifest.items() if k != "coverage")).encode())
    texts: dict[str, str] = {}
    for stem in QUERY_FILES:
        texts[stem] = _query_text(folder, stem, manifest)
        digest.update(texts[stem].encode())
    resolver = folder.parent / str(manifest.get("resolver", folder.name)) / "resolver.py"
    if resolver.is_file():  # cached facts depend on the resolver's code
        digest.update(resolver.read_bytes())
    return LanguagePack(
        name=manifest["name"],
        pack_version=manifest["pack_version"],
        extensions=tuple(manifest["extensions"]),
        grammar_module=manifest["grammar"],
        grammar_version=version,
        language=language,
        manifest=manifest,
        digest=digest.hexdigest(),
        folder=folder,
        texts=texts,
    )


def pack_dirs() -> tuple[Path, ...]:
    """The folders holding language packs: langs/, then those named by $SPYGLASS_LANGUAGE_PACKS."""
    extra = [Path(p) for p in os.environ.get(PACKS_ENV, "").split(os.pathsep) if p]
    return (LANGS_DIR, *extra)


@cache
def all_packs() -> dict[str, LanguagePack]:
    """Every language pack, by name: the built-in ones and those of `pack_dirs()`. Two
    packs of one name, or two packs claiming one extension, are a LanguagePackError, except
    that a pack of $SPYGLASS_LANGUAGE_PACKS whose manifest says `replaces = "<built-in
    pack>"` takes that pack's extensions over (a user's own pack, or a test's throwaway
    one, for a language the package ships)."""
    packs: dict[str, LanguagePack] = {}
    owner: dict[str, str] = {}
    builtin: frozenset[str] = frozenset()
    for base in pack_dirs():
        if not base.is_dir():
            raise LanguagePackError(f"{base}: no such folder of language packs ({PACKS_ENV})")
        for folder in sorted(base.iterdir()):
            if not (folder / "manifest.toml").is_file():
                continue
            pack = load_pack(folder)
            if pack.name in packs:
                raise LanguagePackError(f"{folder}: a language pack named {pack.name!r} is "
                                        f"already loaded from {packs[pack.name].folder}")
            for ext in pack.extensions:
                takes_over = base != LANGS_DIR and owner.get(ext) in builtin \
                    and pack.manifest.get("replaces") == owner.get(ext)
                if ext in owner and not takes_over:
                    raise LanguagePackError(f"{folder}: extension {ext} is already the "
                                            f"{owner[ext]} pack's")
                if ext in owner:  # a pack of $SPYGLASS_LANGUAGE_PACKS `replaces` a built-in one
                    old = packs[owner[ext]]
                    packs[old.name] = replace(old, extensions=tuple(
                        e for e in old.extensions if e != ext))
                owner[ext] = pack.name
            packs[pack.name] = pack
        if base == LANGS_DIR:
            builtin = frozenset(packs)
    return packs


def reload_packs() -> None:
    """Forget the loaded packs (after $SPYGLASS_LANGUAGE_PACKS changed)."""
    all_packs.cache_clear()
    _by_extension.cache_clear()
    _claims.cache_clear()
    claims_signature.cache_clear()


def signature() -> str:
    """One hash of every pack's cache key: snapshots built under another one are rebuilt."""
    keys = sorted(p.cache_key for p in all_packs().values())
    return hashlib.sha1("\n".join(keys).encode()).hexdigest()[:16]


@cache
def _by_extension() -> dict[str, str]:
    table: dict[str, str] = {}
    for pack in all_packs().values():
        for ext in pack.extensions:
            table[ext] = pack.name
    return table


CLAIM_BYTES = 65_536  # of a file's start, matched against the packs' `claims`


@cache
def _claims() -> dict[str, list[tuple[str, re.Pattern[bytes]]]]:
    """Extension → (pack, one pattern of its claims): a pack claims another's extension
    (`.h` is C's; the C++ pack claims a `.h` whose text is C++) when the text matches."""
    table: dict[str, list[tuple[str, re.Pattern[bytes]]]] = {}
    for pack in all_packs().values():
        for ext, rx in pack.claim_patterns.items():
            table.setdefault(ext, []).append((pack.name, rx))
    return table


def extension(path: str) -> str:
    """A file's extension, lower case (`.h`), "" without one (dotfiles included)."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


@cache
def claims_signature() -> str:
    """One hash of every pack's `claims`: a decision stored under it (index/builder.py)
    holds while no pack's claims change."""
    text = repr(sorted((ext, name, rx.pattern) for ext, found in _claims().items()
                       for name, rx in found))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def claimable(path: str) -> bool:
    """Whether the file's pack depends on its text (its extension is claimed)."""
    return extension(path) in _claims()


def pack_for_path(path: str, text: bytes | None = None) -> LanguagePack | None:
    """The language pack for a file path, by extension, or None when unsupported; with
    the file's `text`, a pack claiming the extension for text like it wins."""
    ext = extension(path)
    if text is not None:
        for lang, rx in _claims().get(ext, ()):
            if rx.search(text, 0, CLAIM_BYTES):
                return all_packs()[lang]
    default = _by_extension().get(ext) if ext else None
    return all_packs()[default] if default else None


UNSUPPORTED_FILE = LANGS_DIR / "unsupported.toml"


@cache
def known_unsupported() -> dict[str, str]:
    """Extensions of languages recognised but without a pack (langs/unsupported.toml):
    answers name them as explicit limitations instead of returning nothing."""
    try:
        table = tomllib.loads(UNSUPPORTED_FILE.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LanguagePackError(f"{UNSUPPORTED_FILE}: {exc}") from exc
    check_table(UNSUPPORTED_FILE, "", table, {"extensions": ("map", str)})
    return {str(k).lower(): str(v) for k, v in table.get("extensions", {}).items()}


def unsupported_language(path: str) -> str | None:
    """The name of a recognised-but-unsupported language for `path`, else None."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return known_unsupported().get(name[dot:].lower()) if dot > 0 else None
