"""The resolver module of a language pack, loaded once: apart from the parse worker, so a
question that computes resolution contexts does not import the indexer."""

from __future__ import annotations

import importlib
import importlib.util
from functools import cache
from typing import cast

from spyglass.errors import LanguagePackError
from spyglass.syntax.langpack import LANGS_DIR, all_packs
from spyglass.syntax.resolver import Resolver


@cache
def resolver_for(name: str) -> Resolver | None:
    """The resolver of the packs whose manifest names `name` (their `resolver`, by default
    their own name): `resolver.py` in the pack folder of that name, or None. A built-in
    pack's is imported as `spyglass.langs.<name>.resolver`; one of another pack folder
    ($SPYGLASS_LANGUAGE_PACKS) is loaded from its file, and wins over a built-in folder of
    the same name (as its extensions do, syntax/langpack.all_packs)."""
    pack = next((p for p in reversed(all_packs().values()) if p.folder.name == name), None)
    path = pack.folder / "resolver.py" if pack is not None else LANGS_DIR / name / "resolver.py"
    if not path.is_file():
        return None
    if path.parent.parent == LANGS_DIR:
        return cast(Resolver, importlib.import_module(f"spyglass.langs.{name}.resolver"))
    spec = importlib.util.spec_from_file_location(f"spyglass_pack_{name}_resolver", path)
    if spec is None or spec.loader is None:
        raise LanguagePackError(f"{path}: cannot load the resolver")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # a pack's code: its error names the file
        raise LanguagePackError(f"{path}: {exc}") from exc
    return cast(Resolver, module)
