"""Names in one file's scopes: module bindings, the lookup of a bare name, the self name's class."""

from __future__ import annotations

from spyglass.syntax import heads as H
from spyglass.syntax.intervals import innermost
from spyglass.syntax.langpack import LanguagePack
from spyglass.syntax.scope import Scope
from spyglass.types import Definition

MEMBER_PARENTS = frozenset({"class", "struct", "interface"})


class NameLookup:
    """The extractor's part binding definitions in their scopes and looking names up."""

    pack: LanguagePack
    data: bytes
    _encloses: bool
    _binders: set[tuple[int, int]]
    _seps: tuple[bytes, ...]
    _scope_segments: tuple[list[int], list[int]]

    def _module_bindings(self) -> dict[str, str]:
        if not hasattr(self, "_modbind"):
            self._modbind: dict[str, str] = {}
        return self._modbind

    def _bind_definitions(self, defs: list[Definition], def_nodes: list[tuple[int, int]],
                          scopes: list[Scope], scope_of_def: dict[int, int]) -> None:
        where = innermost(self._scope_segments, [s for s, _ in def_nodes])
        for d, si in enumerate(where):
            if scope_of_def.get(d) == si and si >= 0:
                si = scopes[si].parent
            definition = defs[d]
            parent = definition.parent
            nested = f"{defs[parent].qualname}.{definition.name}" if parent >= 0 else definition.name
            if definition.qualname != nested:
                continue  # placed by @receiver (Go methods, `this.x` fields): no plain name
            target = self._module_bindings() if si < 0 else scopes[si].bindings
            target[definition.name] = H.make(H.DEF, definition.qualname)

    def _after_separators(self, pos: int) -> int:
        """The first byte after `pos` that is not whitespace or a qualifier separator."""
        data, end = self.data, len(self.data)
        while pos < end:
            if data[pos] in b" \t\r\n.":
                pos += 1
                continue
            sep = next((s for s in self._seps if data.startswith(s, pos)), None)
            if sep is None:
                break
            pos += len(sep)
        return pos

    def _lines(self) -> list[int]:
        if not hasattr(self, "_line_starts"):
            starts = [0]
            find = self.data.find
            pos = find(b"\n")
            while pos >= 0:
                starts.append(pos + 1)
                pos = find(b"\n", pos + 1)
            self._line_starts = starts
        return self._line_starts

    def _lookup(self, name: str, si: int, scopes: list[Scope], modbind: dict[str, str]) -> str:
        first = True
        encloses = self._encloses
        while si >= 0:
            scope = scopes[si]
            if scope.kind == "class" and not first and not encloses:
                si = scope.parent
                continue
            if name in scope.globals:
                break
            binding = scope.bindings.get(name)
            if binding is not None and name not in scope.nonlocals:
                return binding
            first = False
            si = scope.parent
        binding = modbind.get(name)
        if binding is None:
            return H.FREE
        return binding

    def _self_head(self, si: int, scopes: list[Scope], defs: list[Definition]) -> str:
        """The class (or object) the self name means at scope `si`: the nearest method's or
        class's; ``expr`` (unknown) at a scope binding it that is neither (@scope.self: a
        method of an object literal passed as an argument, a plain function), never the
        class around it; ``local`` where a parameter declares its type (TypeScript
        `this: T`), which the receiver's typed binding then gives."""
        binders = self._binders
        while si >= 0:
            scope = scopes[si]
            if scope.types and any(n in scope.types and scope.bindings.get(n) == H.LOCAL
                                   for n in self.pack.self_names):
                return H.LOCAL  # a declared `this` parameter: a typed local (_instance_head)
            owner = scope.owner
            if owner >= 0:
                d = defs[owner]
                if d.kind == "method" and "." in d.qualname:
                    return H.make(H.SELF, d.qualname.rsplit(".", 1)[0])
                if d.kind in MEMBER_PARENTS:
                    return H.make(H.SELF, d.qualname)
            if (scope.start, scope.end) in binders:
                return H.EXPR
            si = scope.parent
        return H.LOCAL
