"""One language pack: its grammar, query files (compiled on first use) and manifest
conventions, loaded and validated from its folder."""

from __future__ import annotations

import fnmatch
import hashlib
import importlib
import importlib.metadata
import re
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from tree_sitter import Language, Query

from spyglass.errors import LanguagePackError
from spyglass.syntax.pack_schema import ALLOWED_CAPTURES, MANIFEST, REQUIRED, check_table, describe

QUERY_FILES = ("definitions", "references", "imports", "scopes")
# Bumped when extraction or row shaping changes what facts a pack yields: stores rebuild.
ENGINE_VERSION = 10


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
        """The references query (compiled alone: extraction runs it on its own), with a
        pattern capturing the manifest's token kinds (`tokens.kinds`) that no catch-all
        reference pattern captures already (`@_token`: the accounting's tokens)."""
        text = self.texts["references"]
        kinds = [k for k in self.token_kinds if not re.search(
            rf"^\({re.escape(k)}\) @reference\.\w+\s*$", text, re.MULTILINE)]
        if kinds:
            text += "\n[" + " ".join(f"({k})" for k in kinds) + "] @_token\n"
        return _compile(self.language, self.folder, "references", text)

    @cached_property
    def token_kinds(self) -> frozenset[str]:
        """The grammar's identifier-like leaf kinds (manifest `tokens.kinds`)."""
        tokens = self.manifest.get("tokens", {})
        return frozenset(str(k) for k in tokens.get("kinds", ())) \
            if isinstance(tokens, dict) else frozenset()

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
        _ = self.separators
        _ = self.recovery_patterns
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

    @cached_property
    def separators(self) -> re.Pattern[bytes] | None:
        """The manifest's `parse_separators` as one pattern: group 1 of a match (whitespace
        where the grammar needs a `;`, TypeScript's call signatures one per line) becomes
        `;` before parsing; None without any."""
        patterns = [str(p) for p in self.manifest.get("parse_separators", ())]
        if not patterns:
            return None
        try:
            compiled = re.compile("|".join(f"(?:{p})" for p in patterns).encode())
        except re.error as exc:
            raise LanguagePackError(
                f"{self.folder / 'manifest.toml'}: 'parse_separators': {exc}") from exc
        if compiled.groups != len(patterns):
            raise LanguagePackError(f"{self.folder / 'manifest.toml'}: 'parse_separators': "
                                    "each pattern has exactly one group (the separator's place)")
        return compiled

    @cached_property
    def recovery_patterns(self) -> tuple[tuple[str, re.Pattern[bytes]], ...]:
        """The manifest's `recovered_definitions` (kind → regex, group 1 the name), each
        compiled multi-line: definitions read from unparsed regions (syntax/recovery.py)."""
        out: list[tuple[str, re.Pattern[bytes]]] = []
        for kind, pattern in self.manifest.get("recovered_definitions", {}).items():
            try:
                compiled = re.compile(str(pattern).encode(), re.MULTILINE)
            except re.error as exc:
                raise LanguagePackError(f"{self.folder / 'manifest.toml'}: "
                                        f"'recovered_definitions' {kind!r}: {exc}") from exc
            if compiled.groups < 1:
                raise LanguagePackError(f"{self.folder / 'manifest.toml'}: "
                                        f"'recovered_definitions' {kind!r}: no name group")
            out.append((str(kind), compiled))
        return tuple(out)

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
    return Language(factory()), grammar_version(module_name)


def grammar_version(module_name: str) -> str:
    """The installed version of a grammar package (its distribution's metadata)."""
    try:
        return importlib.metadata.version(module_name.replace("_", "-"))
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


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


def read_manifest(folder: Path) -> dict[str, Any]:
    """A pack folder's manifest alone, checked, with its base's keys (no grammar loaded)."""
    return _read_manifest(folder)


def load_pack(folder: Path) -> LanguagePack:
    """Load one language pack folder: manifest checked now, queries on first use."""
    manifest_path = folder / "manifest.toml"
    manifest = _read_manifest(folder)
    for key in REQUIRED:
        if key not in manifest:
            raise LanguagePackError(f"{manifest_path}: {key!r} is missing (must be "
                                    f"{describe(MANIFEST[key])})")
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

