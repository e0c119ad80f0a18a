"""Language packs: a folder of tree-sitter queries plus a manifest, validated when loaded."""

from __future__ import annotations

import fnmatch
import hashlib
import importlib
import importlib.metadata
import re
import tomllib
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from tree_sitter import Language, Query

from spyglass.errors import LanguagePackError
from spyglass.types import DEF_KINDS, ROLES

LANGS_DIR = Path(__file__).resolve().parent.parent / "langs"

QUERY_FILES = ("definitions", "references", "imports", "scopes")
# Bumped when extraction or row shaping changes what facts a pack yields: stores rebuild.
ENGINE_VERSION = 7

# The capture names each query file may use; anything else is a pack error.
ALLOWED_CAPTURES: dict[str, frozenset[str]] = {
    "definitions": frozenset(
        {f"definition.{k}" for k in DEF_KINDS} | {"name", "receiver", "base", "package"}
    ),
    "references": frozenset({f"reference.{r}" for r in ROLES} | {"qualified", "ignore", "doc"}),
    "imports": frozenset(
        {"import.module", "import.name", "import.alias", "import.wildcard", "import.default",
         "import.reexport"}
    ),
    "scopes": frozenset(
        {"scope", "scope.class", "local.definition", "local.global", "local.self",
         "local.type", "local.member", "local.nonlocal", "local.parameter"}
    ),
}

_REQUIRED_KEYS = {"name": str, "pack_version": str, "extensions": list, "grammar": str}


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
        return {stem: _compile(self.language, self.folder, stem, self.texts[stem])
                for stem in QUERY_FILES}

    @cached_property
    def structure(self) -> Query:
        """Definitions + imports + scopes in one query: one tree traversal for all three."""
        _ = self.queries  # validate first: errors name the file
        return Query(self.language, "\n".join(
            self.texts[s] for s in ("definitions", "imports", "scopes")))

    @cached_property
    def structure_offsets(self) -> tuple[int, int]:
        """First pattern index of the imports, and of the scopes, within `structure`."""
        n_defs = _count(self.queries["definitions"], "pattern_count")
        return n_defs, n_defs + _count(self.queries["imports"], "pattern_count")

    def validate(self) -> None:
        """Compile every query now (raises LanguagePackError on the first bad file)."""
        _ = self.structure

    @property
    def self_names(self) -> frozenset[str]:
        return frozenset(self.manifest.get("self_names", []))

    @property
    def class_scope_encloses(self) -> bool:
        return bool(self.manifest.get("class_scope_encloses", True))

    @property
    def resolver(self) -> str:
        return str(self.manifest.get("resolver", self.name))

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
    """Replace each `; include: folder/name` line with the text of `langs/folder/name.scm`:
    patterns several packs share verbatim (JavaScript and TypeScript), kept once and
    inserted where they stand, since a pattern's position decides which match wins."""
    def fragment(m: re.Match[str]) -> str:
        source = LANGS_DIR / f"{m.group(1)}.scm"
        try:
            return source.read_text(encoding="utf-8").rstrip("\n")
        except OSError as exc:
            raise LanguagePackError(f"{path}: cannot include {m.group(1)}: {exc}") from exc
    return _INCLUDE.sub(fragment, text)


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
    """A pack's manifest; with `extends = "base"`, the base's keys under its own."""
    path = folder / "manifest.toml"
    try:
        manifest = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LanguagePackError(f"{path}: {exc}") from exc
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
    for key, typ in _REQUIRED_KEYS.items():
        if not isinstance(manifest.get(key), typ):
            raise LanguagePackError(f"{manifest_path}: {key!r} must be a {typ.__name__}")
    language, version = _load_language(
        manifest["grammar"], str(manifest.get("grammar_function", "language"))
    )
    digest = hashlib.sha256(repr(sorted(manifest.items())).encode())
    texts: dict[str, str] = {}
    for stem in QUERY_FILES:
        texts[stem] = _query_text(folder, stem, manifest)
        digest.update(texts[stem].encode())
    resolver = folder.parent / str(manifest.get("resolver", manifest["name"])) / "resolver.py"
    if resolver.is_file():
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


@cache
def all_packs() -> dict[str, LanguagePack]:
    """Every built-in language pack, by name."""
    packs: dict[str, LanguagePack] = {}
    for folder in sorted(LANGS_DIR.iterdir()):
        if (folder / "manifest.toml").is_file():
            pack = load_pack(folder)
            packs[pack.name] = pack
    return packs


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


def pack_for_path(path: str) -> LanguagePack | None:
    """The language pack for a file path, by extension, or None when unsupported."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    if dot <= 0:
        return None
    lang = _by_extension().get(name[dot:].lower())
    return all_packs()[lang] if lang else None


# Languages we recognise by extension but cannot analyse: named in explicit limitations.
KNOWN_UNSUPPORTED = {
    ".rs": "Rust", ".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++", ".hpp": "C++",
    ".java": "Java", ".kt": "Kotlin", ".rb": "Ruby", ".php": "PHP", ".cs": "C#",
    ".swift": "Swift", ".scala": "Scala", ".lua": "Lua", ".sh": "Shell", ".m": "Objective-C",
    ".ex": "Elixir", ".exs": "Elixir", ".erl": "Erlang", ".hs": "Haskell", ".ml": "OCaml",
    ".dart": "Dart", ".zig": "Zig", ".r": "R", ".jl": "Julia", ".pl": "Perl",
}


def unsupported_language(path: str) -> str | None:
    """The name of a recognised-but-unsupported language for `path`, else None."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return KNOWN_UNSUPPORTED.get(name[dot:].lower()) if dot > 0 else None
