"""What identifies a unit besides path and blob: decodability, resolution context, pack key."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from spyglass.index import source as src
from spyglass.index.resolvers import resolver_for
from spyglass.syntax.langpack import LanguagePack, all_packs
from spyglass.types import FileContext


def binary_or_undecodable(data: bytes) -> str | None:
    """Why bytes cannot be analysed as source text, or None."""
    if b"\0" in data[:8192]:
        return "binary file"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not valid UTF-8 (byte {exc.start})"
    return None


def contexts(files: list[src.SourceFile], packs: dict[str, LanguagePack],
             read: Callable[[str], bytes | None]) -> dict[str, FileContext]:
    """Each supported file's resolution context, from its language's resolver."""
    by_lang: dict[str, list[str]] = {}
    for f in files:
        if f.path in packs:
            by_lang.setdefault(packs[f.path].name, []).append(f.path)
    out: dict[str, FileContext] = {}
    for paths in by_lang.values():
        module = resolver_for(packs[paths[0]].resolver)
        if module is None:
            out.update({p: FileContext(p, p.rsplit(".", 1)[0]) for p in paths})
        else:
            out.update(module.module_keys(paths, read))
    return out


def ctx_key(ctx: FileContext) -> str:
    """The resolution-context part of a unit's key."""
    text = ctx.module + "\0" + "\0".join(f"{k}={v}" for k, v in ctx.settings)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def pack_key(language: str) -> str:
    return all_packs()[language].cache_key
