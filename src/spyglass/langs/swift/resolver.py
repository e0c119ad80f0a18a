"""Swift name resolution: one namespace per SwiftPM target, members through declared types.

A file's module is its target: `Sources/<T>/…` and `Tests/<T>/…` are target T (the
SwiftPM layout), any other file its top folder (an Xcode project's target folder,
`Capacitor/…`); a test target's free names are
the project target it imports (`@testable import Geo`). Full names are
``T.Qual.name``; an `extension Circle` adds ``T.Circle.m``. Within a target every file
sees every other's declarations, so a name bound by nothing in the file is the target's
(inferred); an `import M` binds M, so `M.x` is ``M.x``. `self.m`, a bare member in a type
and `super.m` (the first inherited type's) are the enclosing type's; typed parameters and
locals, constructor calls (`Circle(..)`) and a function's declared return type reach
members of their type (inferred).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from spyglass.syntax import heads as H
from spyglass.syntax.langpack import all_packs
from spyglass.syntax.resolver import bound_target
from spyglass.types import Definition, FileContext, FileFacts, Resolution

TYPE_KINDS = ("class", "struct", "enum", "interface")


def module_keys(paths: Iterable[str], read: Callable[[str], bytes | None]
                ) -> dict[str, FileContext]:
    """Each file's SwiftPM target (`Sources/<T>/…`, `Tests/<T>/…`), else its folder."""
    found: dict[str, tuple[str, bool]] = {}
    for path in paths:
        parts = path.split("/")
        target, test = parts[0] if len(parts) > 1 else "", False  # an Xcode project's
        for i in range(len(parts) - 2):
            if parts[i] in ("Sources", "Tests"):
                target, test = parts[i + 1], parts[i] == "Tests"
                break
        found[path] = (target.replace("-", "_").replace(".", "_"), test)
    sources = ",".join(sorted({t for t, test in found.values() if t and not test}))
    return {p: FileContext(path=p, module=t, settings=(("sources", sources),) if test else ())
            for p, (t, test) in found.items()}


def _owner(defs: tuple[Definition, ...], index: int) -> Definition | None:
    while index >= 0:
        if defs[index].kind in TYPE_KINDS:
            return defs[index]
        index = defs[index].parent
    return None


def _extension_owner(defs: tuple[Definition, ...], index: int) -> str:
    """The extended type of the extension method enclosing definition `index`, or ""."""
    while index >= 0:
        d = defs[index]
        if d.kind == "method" and d.parent < 0 and "." in d.qualname:
            return d.qualname.rsplit(".", 1)[0]
        index = d.parent
    return ""


def resolve(facts: FileFacts, ctx: FileContext) -> Resolution:
    """Resolve every reference of one file to a target-qualified dotted name, or None."""
    pre = f"{ctx.module}." if ctx.module else ""
    defs = facts.definitions
    bound = [i.module for i in facts.imports]
    # A test target's free names come from the project target it imports (`@testable
    # import Geo`), the first one when several are.
    sources = dict(ctx.settings).get("sources", "").split(",")
    tested = next((m for m in bound if m in sources), None)
    free_pre = f"{tested}." if tested else pre
    pack = all_packs().get(facts.language)
    builtins = frozenset(pack.manifest.get("builtins", ())) if pack else frozenset()
    targets: list[str | None] = []
    confidence: list[str] = []
    for ref in facts.references:
        head, arg = H.split(ref.head)
        parts = ref.qualifier.split(".") if ref.qualifier else []
        tail = ".".join([*parts[1:], ref.name])
        target: str | None = None
        conf = "exact"
        if (known := bound_target(ref, bound, lambda q: pre + q)) is not None:
            target, conf = known
        elif head == H.INST:
            inst = H.parse_instance(arg)
            kind, val = H.split(inst.type_head)
            rest = [*inst.type_text.split(".")[1:], *parts[inst.consumed:], ref.name]
            if kind == H.IMPORT:
                target = ".".join([bound[int(val)], *rest])
            elif kind in (H.DEF, H.SELF):
                target = ".".join([f"{pre}{val}", *rest])
            elif kind == H.FREE:
                target = ".".join([f"{free_pre}{inst.type_text.split('.')[0]}", *rest])
            conf = "inferred"
        elif head == H.FREE and parts and parts[0] == "super":
            owner = _owner(defs, ref.scope)
            if owner is not None and owner.bases:
                target, conf = f"{pre}{owner.bases[0]}.{tail}", "inferred"
        elif head == H.FREE and not parts and _extension_owner(defs, ref.scope):
            # a bare name in an extension's method: implicit self first
            target, conf = f"{pre}{_extension_owner(defs, ref.scope)}.{ref.name}", "inferred"
        elif head == H.FREE:  # another file of the target (or the tested one) declares it
            target, conf = f"{free_pre}{'.'.join([*parts, ref.name])}", "inferred"
        targets.append(target)
        confidence.append(conf if target else "ambiguous")
    def_full = tuple(f"{pre}{d.qualname}" for d in defs)
    bases: list[tuple[str, ...]] = []
    aliases: list[tuple[str, str]] = []
    for d, full in zip(defs, def_full):
        if d.kind in TYPE_KINDS:
            bases.append(tuple(dict.fromkeys(f"{pre}{b}" for b in d.bases
                                             if b not in builtins)))
            continue
        bases.append(())
        typ = d.bases[0].rstrip("?!") if d.bases else ""
        if typ[:1].isupper() and typ.replace(".", "").isidentifier() and typ not in builtins:
            if typ == "Self" and "." in d.qualname:
                typ = d.qualname.rsplit(".", 1)[0]
            aliases.append((f"{full}.*", f"{pre}{typ}.*"))
    return Resolution(tuple(targets), tuple(confidence), def_full, tuple(bases),
                      tuple(aliases))
