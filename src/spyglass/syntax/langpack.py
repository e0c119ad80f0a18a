"""Language packs by name and the pack for a file: the folders packs load from, extensions,
claims on another pack's extension, and the languages recognised without a pack."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import threading
import tomllib
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from spyglass.errors import LanguagePackError
from spyglass.syntax.pack import (
    ENGINE_VERSION,
    QUERY_FILES,
    LanguagePack,
    grammar_version,
    load_pack,
    read_manifest,
)
from spyglass.syntax.pack_schema import MANIFEST, check_table, names_in

# the pack and its schema are read through this module too (one import for every layer)
__all__ = [
    "CLAIM_BYTES", "ENGINE_VERSION", "LANGS_DIR", "MANIFEST", "PACKS_ENV", "QUERY_FILES",
    "UNSUPPORTED_FILE", "LanguagePack", "all_packs", "check_table", "claimable",
    "claims_signature", "extension", "grammar_versions", "known_unsupported", "load_pack",
    "names_in", "pack_dirs", "pack_for_path", "pack_named", "reload_packs", "signature",
    "unsupported_language",
]

LANGS_DIR = Path(__file__).resolve().parent.parent / "langs"
# More folders of language packs, separated by os.pathsep (docs/languages.md): packs kept
# outside the package, such as the throwaway packs of tests/langs/throwaway/.
PACKS_ENV = "SPYGLASS_LANGUAGE_PACKS"


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
            pack = _loaded(folder) if base == LANGS_DIR else load_pack(folder)
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


_cached_load = cache(load_pack)
_LOAD_LOCK = threading.Lock()


def _loaded(folder: Path) -> LanguagePack:
    """A built-in pack folder, loaded once by all_packs or pack_named (under a lock: two
    threads' first questions share one pack object)."""
    with _LOAD_LOCK:
        return _cached_load(folder)


def pack_named(name: str) -> LanguagePack | None:
    """The pack called `name`, as `all_packs().get(name)`; while the packs are not loaded
    yet and $SPYGLASS_LANGUAGE_PACKS is unset, a built-in pack is loaded alone (its folder
    is named after it), so a question about one language loads one pack, not every one."""
    if all_packs.cache_info().currsize:
        return all_packs().get(name)
    return _alone(name)


@cache
def _alone(name: str) -> LanguagePack | None:
    if os.environ.get(PACKS_ENV) or not name.isidentifier() or name.startswith("_") \
            or not (LANGS_DIR / name / "manifest.toml").is_file():
        return all_packs().get(name)
    pack = _loaded(LANGS_DIR / name)
    return pack if pack.name == name else all_packs().get(name)


def reload_packs() -> None:
    """Forget the loaded packs (after $SPYGLASS_LANGUAGE_PACKS changed)."""
    all_packs.cache_clear()
    _cached_load.cache_clear()
    _alone.cache_clear()
    _builtin_extensions.cache_clear()
    _builtin_manifests.cache_clear()
    _by_extension.cache_clear()
    _claims.cache_clear()
    claims_signature.cache_clear()


def signature() -> str:
    """One hash of every pack's cache key: snapshots built under another one are rebuilt."""
    keys = sorted(p.cache_key for p in all_packs().values())
    return hashlib.sha1("\n".join(keys).encode()).hexdigest()[:16]


@cache
def _builtin_manifests() -> dict[str, dict[str, Any]] | None:
    """The built-in packs' manifests alone (no grammar, query or resolver loaded), by name
    in all_packs' order; None when $SPYGLASS_LANGUAGE_PACKS is set or a manifest is not as
    expected (then all_packs decides, and reports)."""
    if os.environ.get(PACKS_ENV):
        return None
    out: dict[str, dict[str, Any]] = {}
    try:
        for folder in sorted(LANGS_DIR.iterdir()):
            if not (folder / "manifest.toml").is_file():
                continue
            manifest = read_manifest(folder)
            if manifest.get("name") != folder.name \
                    or not isinstance(manifest.get("extensions"), list) \
                    or importlib.util.find_spec(str(manifest.get("grammar"))) is None:
                return None
            out[folder.name] = manifest
    except (LanguagePackError, ImportError, ValueError):
        return None
    return out


@cache
def _builtin_extensions() -> dict[str, str] | None:
    """Extension → pack name from the built-in manifests (`_builtin_manifests`), as
    all_packs would give it; None when that is not known without loading every pack."""
    manifests = _builtin_manifests()
    if manifests is None:
        return None
    table: dict[str, str] = {}
    for name, manifest in manifests.items():
        for ext in manifest["extensions"]:
            if ext in table:
                return None
            table[str(ext)] = name
    return table


def grammar_versions() -> tuple[tuple[str, str, str, str], ...]:
    """(pack, grammar module, grammar version, pack version) of every pack, in all_packs'
    order (an answer's provenance); while the packs are not loaded yet, read from the
    built-in manifests and the grammars' installed metadata, no grammar loaded."""
    manifests = None if all_packs.cache_info().currsize else _builtin_manifests()
    if manifests is not None:
        return tuple((name, m["grammar"], grammar_version(m["grammar"]), m["pack_version"])
                     for name, m in manifests.items())
    return tuple((p.name, p.grammar_module, p.grammar_version, p.pack_version)
                 for p in all_packs().values())


@cache
def _by_extension() -> dict[str, str]:
    if not all_packs.cache_info().currsize and (known := _builtin_extensions()) is not None:
        return known  # a question about one language loads that pack only (pack_named)
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
    return pack_named(default) if default else None


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
