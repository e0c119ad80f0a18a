"""PHP name resolution: namespaces and `use` imports to dotted full names (`\\` → `.`).

A definition's full name is its file's namespace (the `namespace` statement, the
definitions' @package) and its qualname: `App\\Models\\Circle::area` is
``App.Models.Circle.area``. A file's module key is the class composer.json's PSR-4
autoload roots expect it to hold (`"App\\\\": "src/"` makes `src/Models/Circle.php`
``App.Models.Circle``), else its path; the names themselves come from the namespace
statements, as PHP resolves them.

References, as PHP resolves class names: an imported name (`use A\\B as C`) is the
import; a name defined in the file is that definition; `$this`/`self`/`static` are the
enclosing class, `parent` its base; a qualified name (`A\\B::m`) is taken from the root;
any other class name (a type, `new X`, `X::m`) is the current namespace's. An unqualified
function call inside a namespace may be the namespace's function or the global one (PHP
falls back at run time): it is left for name matching. Receivers of known type
(typed parameters and properties, `new`) reach members of their class (inferred); a
method's declared return type becomes an alias ``m.*`` → ``Type.*``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable

from spyglass.syntax import heads as H
from spyglass.types import Definition, FileContext, FileFacts, Resolution

CLASS_KINDS = ("class", "interface", "enum")


def _psr4(data: bytes | None, folder: str) -> list[tuple[str, str]]:
    """(repository-relative directory, namespace prefix) pairs of one composer.json."""
    if data is None:
        return []
    try:
        doc = json.loads(data.decode("utf-8", "replace"))
    except json.JSONDecodeError:
        return []
    out: list[tuple[str, str]] = []
    for section in ("autoload", "autoload-dev"):
        table = doc.get(section) if isinstance(doc, dict) else None
        roots = table.get("psr-4") if isinstance(table, dict) else None
        if not isinstance(roots, dict):
            continue
        for prefix, dirs in roots.items():
            for d in dirs if isinstance(dirs, list) else [dirs]:
                if isinstance(d, str):
                    rel = "/".join(p for p in (folder, d.strip("/")) if p and p != ".")
                    out.append((rel, str(prefix).strip("\\").replace("\\", ".")))
    return out


def module_keys(paths: Iterable[str], read: Callable[[str], bytes | None]
                ) -> dict[str, FileContext]:
    """Each file's PSR-4 class name (composer.json autoload roots), else its path."""
    paths = list(paths)
    candidates = {"/".join(p.split("/")[:i]) for p in paths for i in range(p.count("/") + 1)}
    roots: list[tuple[str, str]] = []
    for folder in sorted(candidates):
        roots += _psr4(read(f"{folder}/composer.json" if folder else "composer.json"), folder)
    roots.sort(key=lambda r: -len(r[0]))  # the deepest root first
    out: dict[str, FileContext] = {}
    for path in paths:
        stem = path.removesuffix(".php")
        module = stem.replace("/", ".")
        for d, prefix in roots:
            if not d or path.startswith(d + "/"):
                rest = stem[len(d) + 1:] if d else stem
                module = ".".join(p for p in (prefix, rest.replace("/", ".")) if p)
                break
        out[path] = FileContext(path=path, module=module)
    # The namespaces below each namespace (`Shop.Handler` → Curl, Slack), from the modules:
    # what a relative qualified name (`Curl.Util` in namespace Shop.Handler) starts with.
    children: dict[str, set[str]] = {}
    for ctx in out.values():
        parts = ctx.module.split(".")[:-1]
        for i in range(1, len(parts)):
            children.setdefault(".".join(parts[:i]), set()).add(parts[i])
    for path, ctx in out.items():
        namespace = ctx.module.rpartition(".")[0]
        below = children.get(namespace)
        if below:
            out[path] = FileContext(path=path, module=ctx.module, settings=(
                (_BELOW, f"{namespace}:{','.join(sorted(below))}"),))
    return out


_BELOW = "namespaces_below"


def _name(text: str) -> str:
    return text.strip().lstrip("\\").replace("\\", ".").replace("::", ".")


_DOC_TAG = {"field": "var", "method": "return", "func": "return"}


def _doc_type(d: Definition) -> str:
    """The class a PHPDoc comment gives a property (`@var`) or a method (`@return`) that
    declares no type: the first class of a union (`Foo|null`), never an array (`Foo[]`)
    nor a scalar; "" for none."""
    tag = _DOC_TAG.get(d.kind)
    for text in d.bases if tag else ():
        m = re.search(rf"@(?:phpstan-|psalm-)?{tag}\s+([\\\w|?]+(?:\[\])?)", text)
        if m is None or m.group(1).endswith("[]"):
            continue
        for part in m.group(1).lstrip("?").split("|"):
            name = _name(part)
            if name[:1].isupper() or "." in name:
                return name
    return ""


def resolve(facts: FileFacts, ctx: FileContext) -> Resolution:
    """Resolve every reference of one file to a namespace-qualified dotted name, or None."""
    ns = _name(facts.package)
    pre = f"{ns}." if ns else ""
    imports = facts.imports
    bound = [_name(f"{i.module}.{i.name}" if i.name not in (None, "*") else i.module)
             for i in imports]
    by_alias = {i.alias: b for i, b in zip(imports, bound) if i.name != "*"}
    local = {d.qualname for d in facts.definitions}
    where, _, below_text = dict(ctx.settings).get(_BELOW, "").partition(":")
    below = set(below_text.split(",")) if where == ns and below_text else set()

    def cls(text: str) -> str:
        """A class name as written in this file, as a full name. A qualified name is taken
        from the root, unless it starts with a namespace of the project below the file's
        own (`Curl.Util` in namespace Shop.Handler is Shop.Handler.Curl.Util: a name
        relative to the namespace; the leading separator of a fully qualified one is not
        seen)."""
        text = _name(text)
        head, _, rest = text.partition(".")
        if head in by_alias:
            return f"{by_alias[head]}.{rest}" if rest else by_alias[head]
        if "." in text:
            return f"{pre}{text}" if head in below else text
        return f"{pre}{text}"

    targets: list[str | None] = []
    confidence: list[str] = []
    for ref in facts.references:
        head, arg = H.split(ref.head)
        qualifier = ref.qualifier.replace("()", "")
        parts = qualifier.split(".") if qualifier else []
        tail = ".".join([*parts[1:], ref.name.lstrip("$")])  # `self::$count` is `count`
        target: str | None = None
        conf = "exact"
        if head == H.IMPORT:
            base = bound[int(arg)]
            target = f"{base}.{tail}" if qualifier and ref.role != "import" else base
        elif head == H.DEF:
            target = f"{pre}{arg}.{tail}" if qualifier else f"{pre}{arg}"
        elif head == H.SELF and qualifier:
            target = f"{pre}{arg}.{tail}"
            conf = "exact" if len(parts) == 1 else "inferred"
        elif head == H.INST:
            target, conf = _instance(arg, qualifier, ref.name, cls, pre), "inferred"
        elif head == H.FREE and parts and parts[0] == "parent":
            owner = _owner_class(facts.definitions, ref.scope)
            if owner is not None and owner.bases:
                target, conf = f"{cls(owner.bases[0])}.{tail}", "inferred"
        elif head == H.FREE and qualifier and not qualifier.startswith("$"):
            target = f"{cls(qualifier)}.{ref.name.lstrip('$')}"
        elif head == H.FREE and (ref.role in ("type", "read") or not ns):
            target = cls(ref.name)  # a class name (or, outside a namespace, a function)
        elif head == H.FREE and ref.role == "call" and _is_new(ref.name, local):
            target = cls(ref.name)
        targets.append(target)
        confidence.append(conf if target else "ambiguous")
    def_full = tuple(f"{pre}{d.qualname}" for d in facts.definitions)
    bases: list[tuple[str, ...]] = []
    aliases: list[tuple[str, str]] = []
    for d, full in zip(facts.definitions, def_full):
        if d.kind in CLASS_KINDS:
            bases.append(tuple(cls(b) for b in d.bases))
            continue
        bases.append(())
        declared = [b for b in d.bases if not b.lstrip().startswith("/*")]
        typ = _name(declared[0]).lstrip("?") if declared else _doc_type(d)
        if typ and d.kind in ("method", "func", "field"):
            if typ in ("self", "static") and "." in d.qualname:
                typ_full = f"{pre}{d.qualname.rsplit('.', 1)[0]}"
            elif typ[:1].isupper() or "." in typ:
                typ_full = cls(typ)
            else:
                continue
            aliases.append((f"{full}.*", f"{typ_full}.*"))
    return Resolution(tuple(targets), tuple(confidence), def_full, tuple(bases),
                      tuple(aliases))


def _is_new(name: str, local: set[str]) -> bool:
    """A called name written like a class (`new Circle()`): PHP classes are capitalised
    by convention, functions are not."""
    return name[:1].isupper() and name not in local


def _owner_class(defs: tuple[Definition, ...], index: int) -> Definition | None:
    while index >= 0:
        d = defs[index]
        if d.kind in CLASS_KINDS:
            return d
        index = d.parent
    return None


def _instance(arg: str, qualifier: str, name: str, cls: Callable[[str], str], pre: str
              ) -> str | None:
    """A member of a receiver of known type (an ``inst:`` head)."""
    inst = H.parse_instance(arg)
    kind, val = H.split(inst.type_head)
    type_parts = inst.type_text.split(".")
    if kind in (H.IMPORT, H.FREE):
        base = cls(inst.type_text)
        type_parts = [base]
    elif kind in (H.DEF, H.SELF):
        base = f"{pre}{val}"
        type_parts = [base, *type_parts[1:]]
    else:
        return None
    return ".".join([*type_parts, *qualifier.split(".")[inst.consumed:], name])
