"""Lua name resolution: modules by their require path, members of the returned table.

A file's module key is its require path: the path with `/` as `.`, without `.lua` (and
`a/init.lua` is `a`), below a `lua/` or `src/` folder when there is one. A file that
ends with `return M` exports M: `function M.f()` there is ``<module>.f``; every other
definition is ``<module>.<qualname>``. `local x = require("a.b")` binds x to module
``a.b``, so `x.f()` is ``a.b.f``; `self` in `function M:m()` is M; a local set from
`X.new()` reaches X's members (inferred). Globals and other receivers are left for name
matching.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from spyglass.syntax import heads as H
from spyglass.syntax.resolver import bound_target
from spyglass.types import FileContext, FileFacts, Resolution

ROOTS = ("lua", "src", "lib")


def module_keys(paths: Iterable[str], read: Callable[[str], bytes | None]
                ) -> dict[str, FileContext]:
    """Each file's require path (`pl/utils.lua` → ``pl.utils``)."""
    out: dict[str, FileContext] = {}
    for path in paths:
        parts = path.removesuffix(".lua").split("/")
        for i in range(len(parts) - 2, -1, -1):
            if parts[i] in ROOTS:
                parts = parts[i + 1:]
                break
        if len(parts) > 1 and parts[-1] == "init":
            parts = parts[:-1]
        out[path] = FileContext(path=path, module=".".join(parts))
    return out


def resolve(facts: FileFacts, ctx: FileContext) -> Resolution:
    """Resolve every reference of one file to a dotted module member, or None."""
    module = ctx.module
    exported = facts.package

    def full(qualname: str) -> str:
        head, _, rest = qualname.partition(".")
        if exported and head == exported:
            return f"{module}.{rest}" if rest else module
        return f"{module}.{qualname}"

    bound = [i.module for i in facts.imports]
    targets: list[str | None] = []
    confidence: list[str] = []
    for ref in facts.references:
        head, arg = H.split(ref.head)
        parts = ref.qualifier.split(".") if ref.qualifier else []
        target: str | None = None
        conf = "exact"
        if (known := bound_target(ref, bound, full)) is not None:
            target, conf = known
        elif head == H.INST:
            inst = H.parse_instance(arg)
            kind, val = H.split(inst.type_head)
            rest = [*inst.type_text.split(".")[1:], *parts[inst.consumed:], ref.name]
            if kind == H.IMPORT:
                target, conf = ".".join([bound[int(val)], *rest]), "inferred"
            elif kind == H.DEF:
                target, conf = full(".".join([val, *rest])), "inferred"
        targets.append(target)
        confidence.append(conf if target else "ambiguous")
    def_full = tuple(full(d.qualname) for d in facts.definitions)
    return Resolution(tuple(targets), tuple(confidence), def_full,
                      tuple(() for _ in facts.definitions), ())
