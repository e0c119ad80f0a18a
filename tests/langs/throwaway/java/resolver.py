"""Java name resolution for the throwaway pack: ``package.Class.member`` full names.

A file's module key is the package its `package` line declares (in the facts); an
import binds its simple name to ``package.Name``; a bare class name with no binding is
one of the same package. A field's declared type is an alias of its members:
``shapes.Shape.c.*`` → ``shapes.Circle.*``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from spyglass.syntax import heads as H
from spyglass.types import FileContext, FileFacts, Resolution


def module_keys(paths: Iterable[str], read: Callable[[str], bytes | None]
                ) -> dict[str, FileContext]:
    """The package comes from each file's own `package` line: the key is the path."""
    return {p: FileContext(path=p, module=p) for p in paths}


def resolve(facts: FileFacts, ctx: FileContext) -> Resolution:
    """Resolve every reference of one file to ``package.Class.member``, or None."""
    prefix = f"{facts.package}." if facts.package else ""
    bound = [f"{i.module}.{i.name}" for i in facts.imports]
    targets: list[str | None] = []
    confidence: list[str] = []
    for ref in facts.references:
        head, arg = H.split(ref.head)
        rest = ref.qualifier.split(".")[1:] if ref.qualifier else []
        tail = ".".join([*rest, ref.name])
        target: str | None = None
        conf = "exact"
        if head == H.IMPORT:
            base = bound[int(arg)]
            target = f"{base}.{tail}" if ref.qualifier and ref.role != "import" else base
        elif head == H.DEF:
            target = f"{prefix}{arg}.{tail}" if ref.qualifier else f"{prefix}{arg}"
        elif head == H.SELF:
            target = f"{prefix}{arg}.{tail}"
        elif head == H.INST:
            inst = H.parse_instance(arg)
            kind, val = H.split(inst.type_head)
            base = bound[int(val)] if kind == H.IMPORT else f"{prefix}{val or inst.type_text}"
            target = ".".join([base, *inst.type_text.split(".")[1:],
                               *ref.qualifier.split(".")[inst.consumed:], ref.name])
            conf = "inferred"
        elif head == H.FREE and ref.name[:1].isupper() and not ref.qualifier:
            target, conf = f"{prefix}{ref.name}", "inferred"  # a class of the same package
        targets.append(target)
        confidence.append(conf if target else "ambiguous")
    def_full = tuple(f"{prefix}{d.qualname}" for d in facts.definitions)
    aliases: list[tuple[str, str]] = []
    for d, full in zip(facts.definitions, def_full):
        typ = d.bases[0] if d.bases and d.kind == "field" else ""  # what a field holds
        hit = next((b for b, i in zip(bound, facts.imports) if i.name == typ), None)
        if hit or any(c.qualname == typ and c.kind == "class" for c in facts.definitions):
            aliases.append((f"{full}.*", f"{hit or prefix + typ}.*"))
    return Resolution(tuple(targets), tuple(confidence), def_full,
                      tuple(() for _ in facts.definitions), tuple(aliases))
