"""Rust name resolution for the throwaway pack: crate-relative dotted full names.

A file's module key is its path below `src/` (``src/shapes.rs`` → ``shapes``; ``main.rs``,
``lib.rs`` and ``mod.rs`` stand for their folder); full names are ``module.Qual.name``.
A `use` path, and a qualified path with no binding in the file, are read from the crate
root (``crate::``, ``self::`` and ``super::`` are followed). A function's return type is
an alias of what its result reaches: ``shapes.Circle.new.*`` → ``shapes.Circle.*``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from spyglass.syntax import heads as H
from spyglass.types import Definition, FileContext, FileFacts, Resolution

ROOT_FILES = ("main", "lib", "mod")


def module_keys(paths: Iterable[str], read: Callable[[str], bytes | None]
                ) -> dict[str, FileContext]:
    """Each file's module path below the crate's `src/` folder, dotted."""
    out: dict[str, FileContext] = {}
    for path in paths:
        parts = path.split("/")
        if "src" in parts:
            parts = parts[parts.index("src") + 1:]
        stem = parts[-1].removesuffix(".rs")
        names = parts[:-1] + ([] if stem in ROOT_FILES else [stem])
        out[path] = FileContext(path=path, module=".".join(names))
    return out


def _crate_path(text: str, module: str) -> str:
    """A path (with `.` for `::`) from the crate root."""
    parts = text.replace("::", ".").split(".")
    here = module.split(".") if module else []
    if parts[0] == "crate":
        parts = parts[1:]
    elif parts[0] == "self":
        parts = here + parts[1:]
    elif parts[0] == "super":
        parts = here[:-1] + parts[1:]
    return ".".join(p for p in parts if p)


def resolve(facts: FileFacts, ctx: FileContext) -> Resolution:
    """Resolve every reference of one file to a crate-relative dotted name, or None."""
    prefix = f"{ctx.module}." if ctx.module else ""
    bound = [_crate_path(f"{i.module}.{i.name}", ctx.module) for i in facts.imports]
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
        elif head == H.SELF and ref.qualifier:
            target = f"{prefix}{arg}.{tail}"
        elif head == H.INST:
            target, conf = _instance(arg, ref.qualifier, ref.name, bound, ctx.module), "inferred"
        elif head == H.FREE:
            path = _crate_path(f"{ref.qualifier}.{ref.name}", ctx.module) if ref.qualifier \
                else f"{prefix}{ref.name}"
            target, conf = path, "inferred"
        targets.append(target)
        confidence.append(conf if target else "ambiguous")
    def_full = tuple(f"{prefix}{d.qualname}" for d in facts.definitions)
    bases: list[tuple[str, ...]] = []
    aliases: list[tuple[str, str]] = []
    for d, full in zip(facts.definitions, def_full):
        bases.append(())
        if d.bases and d.kind in ("func", "method", "field"):
            typ = _type(d.bases[0], d, facts, bound, prefix)
            if typ:
                aliases.append((f"{full}.*", f"{typ}.*"))
    return Resolution(tuple(targets), tuple(confidence), def_full, tuple(bases),
                      tuple(aliases))


def _instance(arg: str, qualifier: str, name: str, bound: list[str], module: str
              ) -> str | None:
    """A member of a receiver of known type (an ``inst:`` head)."""
    inst = H.parse_instance(arg)
    kind, val = H.split(inst.type_head)
    prefix = f"{module}." if module else ""
    if kind == H.IMPORT:
        base = bound[int(val)]
    elif kind in (H.DEF, H.SELF):
        base = f"{prefix}{val}"
    elif kind == H.FREE:
        base = _crate_path(inst.type_text.split(".")[0], module)
    else:
        return None
    return ".".join([base, *inst.type_text.split(".")[1:],
                     *qualifier.split(".")[inst.consumed:], name])


def _type(text: str, d: Definition, facts: FileFacts, bound: list[str], prefix: str) -> str:
    """A declared type as a full name: `Self` is the impl's type; "" for other types."""
    text = text.replace("::", ".").lstrip("&").removeprefix("mut ").strip()
    if text == "Self" and "." in d.qualname:
        return f"{prefix}{d.qualname.rsplit('.', 1)[0]}"
    head, _, rest = text.partition(".")
    for i, imp in enumerate(facts.imports):
        if imp.alias == head:
            return f"{bound[i]}.{rest}" if rest else bound[i]
    if any(t.qualname == head and t.kind in ("struct", "enum") for t in facts.definitions):
        return f"{prefix}{text}"
    return ""
