"""Imports of one file (@import.* captures) and the names they bind, by scope."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from spyglass.syntax import heads as H
from spyglass.syntax.intervals import innermost
from spyglass.syntax.langpack import LanguagePack
from spyglass.syntax.scope import Scope, node_text
from spyglass.types import Import


class ImportBindings:
    """The extractor's part reading imports and binding their aliases in their scopes."""

    pack: LanguagePack
    _scope_segments: tuple[list[int], list[int]]

    if TYPE_CHECKING:  # the extractor's (syntax/extract.py)
        def _module_bindings(self) -> dict[str, str]: ...

    def _imports(self, scopes: list[Scope], matches: list[dict[str, list[Node]]]
                 ) -> tuple[list[Import], dict[int, int]]:
        found: list[tuple[Node, Import, int]] = []
        for caps in matches:
            mod_node = caps["import.module"][0] if "import.module" in caps else None
            if mod_node is None and "import.reexport" not in caps:
                continue
            module = node_text(mod_node) if mod_node is not None else ""  # "": this very module
            name_node = caps["import.name"][0] if "import.name" in caps else None
            name: str | None = node_text(name_node) if name_node is not None else None
            if "import.wildcard" in caps:
                name = "*"
            alias_node = caps["import.alias"][0] if "import.alias" in caps else None
            if "import.default" in caps:
                alias_node, name = caps["import.default"][0], "default"
            if alias_node is not None:
                alias = node_text(alias_node)
            elif name is not None and name != "*":
                alias = name
            else:
                alias = self._default_alias(module)
            anchor = name_node or alias_node or mod_node
            if anchor is None:
                continue
            imp = Import(module=module, name=name, alias=alias,
                         line=anchor.start_point[0] + 1, col=anchor.start_point[1],
                         reexport="import.reexport" in caps)
            found.append((anchor, imp, name_node.start_byte if name_node is not None else -1))
        found.sort(key=lambda f: f[0].start_byte)
        where = innermost(self._scope_segments, [f[0].start_byte for f in found])
        imports: list[Import] = []
        import_at: dict[int, int] = {}
        for (anchor, imp, name_start), si in zip(found, where):
            owner = scopes[si].owner if si >= 0 else -1
            idx = len(imports)
            imports.append(Import(imp.module, imp.name, imp.alias, imp.line, imp.col,
                                  owner, imp.reexport))
            if name_start >= 0:
                import_at[name_start] = idx
            if imp.name != "*" and not imp.reexport:
                bindings = scopes[si].bindings if si >= 0 else self._module_bindings()
                bindings[imp.alias] = H.make(H.IMPORT, idx)
        return imports, import_at

    def _default_alias(self, module: str) -> str:
        """The name a whole-module import binds when it names none: the manifest's
        `import_binds` says "head" (first dotted segment: ``import a.b`` binds ``a``) or
        "tail" (last path segment, skipping one that matches the manifest's
        `import_tail_skip`: Go's ``v2``-style major-version suffix)."""
        if self.pack.manifest.get("import_binds", "tail") == "head":
            return module.split(".")[0]
        parts = module.rstrip("/").split("/")
        tail = parts[-1]
        skip = self.pack.manifest.get("import_tail_skip")
        if len(parts) > 1 and skip and re.fullmatch(str(skip), tail):
            tail = parts[-2]
        return re.sub(r"[^\w$]", "_", tail.split(".")[0])
