"""Python name resolution: module names from package layout, imports to dotted targets.

Receivers of known type (``inst:`` heads from extraction: annotated or constructed
variables, parameters and ``self`` members) resolve to members of their class, as
``inferred``. A module variable's type (its definition's first ``base``) becomes a wildcard
alias ``mod.var.*`` → ``mod.Class.*``, so ``from mod import var; var.m()`` reaches
``Class.m``. A function's ``bases`` are its decorators; only property-like ones are kept,
as ``heads.PROPERTY_MARKER``, so that callers count property accesses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cache

from spyglass.syntax import elements
from spyglass.syntax import heads as H
from spyglass.syntax.chains import unwrap_type
from spyglass.syntax.elements import ElementRules
from spyglass.syntax.langpack import all_packs
from spyglass.types import Definition, FileContext, FileFacts, Import, Resolution

SEP = "."


def module_keys(paths: Iterable[str], read: Callable[[str], bytes | None]
                ) -> dict[str, FileContext]:
    """Dotted module names. The package chain starts at the outermost folder holding an
    ``__init__.py``; folders below it count even without one (namespace sub-packages), so
    ``src/flask/sansio/app.py`` is ``flask.sansio.app`` and ``tests/test_x.py`` is ``test_x``."""
    paths = list(paths)
    packages = {p.rsplit("/", 1)[0] for p in paths
                if p.endswith(("/__init__.py", "/__init__.pyi"))}
    out: dict[str, FileContext] = {}
    for path in paths:
        parts = path.split("/")
        stem = parts[-1].rsplit(".", 1)[0]
        folders = parts[:-1]
        top = next((i for i in range(len(folders))
                    if "/".join(folders[: i + 1]) in packages), len(folders))
        names = folders[top:] + ([] if stem == "__init__" else [stem])
        module = ".".join(names) or (folders[-1] if folders else stem)
        out[path] = FileContext(path=path, module=module)
    return out


def _absolute(imp: Import, module: str, is_package: bool) -> str:
    text = imp.module
    if not text.startswith("."):
        return text
    level = len(text) - len(text.lstrip("."))
    rest = text[level:]
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, rest] if rest else base)


def _binding(imp: Import, absmod: str) -> str:
    if imp.name is None:
        explicit = imp.alias != imp.module.split(".")[0] or "." not in imp.module
        return absmod if explicit else imp.alias
    return f"{absmod}.{imp.name}"


def resolve(facts: FileFacts, ctx: FileContext) -> Resolution:
    """Resolve every reference of one file to a dotted target, or None."""
    module = ctx.module
    is_package = ctx.path.endswith(("__init__.py", "__init__.pyi"))
    absmods = [_absolute(i, module, is_package) for i in facts.imports]
    bound = [_binding(i, m) for i, m in zip(facts.imports, absmods)]
    prefix = f"{module}." if module else ""
    stars = [m for i, m in zip(facts.imports, absmods) if i.name == "*" and i.scope < 0]
    targets: list[str | None] = []
    confidence: list[str] = []
    for ref in facts.references:
        head, arg = H.split(ref.head)
        # `f().x`, `Cls().m`: a member of a call's result (its class, the callee's return
        # annotation through the `f.*` alias) is inferred
        called = "()" in ref.qualifier
        qualifier = ref.qualifier.replace("()", "") if called else ref.qualifier
        rest = qualifier.split(".")[1:] if qualifier else []
        tail = ".".join([*rest, ref.name]) if qualifier else ""
        target: str | None = None
        conf = "inferred" if called else "exact"
        if head == H.IMPORT:
            base = bound[int(arg)]
            if ref.role == "import":
                target = base
            else:
                target = f"{base}.{tail}" if tail else base
        elif head == H.DEF:
            target = f"{prefix}{arg}.{tail}" if tail else f"{prefix}{arg}"
        elif head == H.SELF and len(rest) == 0 and qualifier:
            target = f"{prefix}{arg}.{ref.name}"
        elif head == H.SELF and qualifier:
            # a member of a member (``self.url.host``): reached through the member's type
            # (an instance alias ``Cls.url.*`` → ``URL.*`` from its field definition)
            target, conf = f"{prefix}{arg}.{tail}", "inferred"
        elif head == H.FREE and not ref.qualifier and stars:
            # one of the wildcard imports binds it: this module's name, reached from the
            # definition through the wildcard aliases
            target, conf = f"{prefix}{ref.name}" if prefix else f"{stars[0]}.{ref.name}", \
                "inferred"
        elif head == H.SUPER and ref.qualifier == "?":
            target = _super_target(arg, ref.name, facts, bound, prefix)
            conf = "inferred"
        elif head == H.INST:
            target, conf = _instance(arg, qualifier, ref.name, bound, prefix), "inferred"
            if f".{_element_member()}" in arg:  # an element of what another file declares: a guess
                conf = GUESS
            elif not called and _direct(arg, qualifier):
                # a member of the receiver itself, whose declared or constructed type names
                # a class (`r: "Request"`, `r = Request()`): proven as `self.m` is
                conf = "exact"
        targets.append(target)
        confidence.append(conf if target else "ambiguous")
    def_full = tuple(f"{prefix}{d.qualname}" for d in facts.definitions)
    bases: list[tuple[str, ...]] = []
    aliases: list[tuple[str, str]] = []
    for d, full in zip(facts.definitions, def_full):
        if d.kind in ("func", "method"):
            decorators = [b[1:] for b in d.bases if b.startswith("@")]
            bases.append((H.PROPERTY_MARKER,) if any(_is_property(b) for b in decorators) else ())
            managed = any(b.rsplit(".", 1)[-1].endswith("contextmanager") for b in decorators)
            returns = [_yielded(b) if managed else b for b in d.bases if not b.startswith("@")]
            # the result of calling it: ``mod.f.*`` → ``mod.Ret.*`` (each operand of a union)
            for typ in _operands(returns[0]) if returns else ():
                ret = _typed(typ, d, facts, bound, prefix)
                if ret:
                    aliases.append((f"{full}.*", f"{ret}.*"))
            raw = [b for b in d.bases if not b.startswith("@")]
            aliases += _element_alias(full, raw[0] if raw else "", d, facts, bound, prefix)
        elif d.kind in ("var", "const", "field"):
            bases.append(())
            # a type alias's base is the type it stands for (`X: TypeAlias = A | B`)
            declared = [b for b in d.bases if not _TYPE_ALIAS.search(b)]
            for typ in _operands(declared[0]) if declared else ():
                ret = _typed(typ, d, facts, bound, prefix)
                if ret:
                    aliases.append((f"{full}.*", f"{ret}.*"))
            aliases += _element_alias(full, declared[0] if declared else "", d, facts, bound,
                                      prefix)
        else:
            bases.append(tuple(_resolve_base(b, facts, bound, prefix, d.parent)
                               for b in d.bases))
    for imp, target, absmod in zip(facts.imports, bound, absmods):
        if imp.scope >= 0:
            continue
        if imp.name == "*":
            aliases.append((f"{prefix}*", f"{absmod}.*"))
        elif imp.name is not None or imp.module.startswith("."):
            aliases.append((f"{prefix}{imp.alias}", target))
    return Resolution(tuple(targets), tuple(confidence), def_full, tuple(bases),
                      tuple(aliases))


# The confidence of a target through an element of what another file declares
# (`for b in app.blueprints()`): the query layer takes it as a name-matched candidate
# where no alias reaches a definition (query/symbols.py unresolved_refs).
GUESS = "ambiguous"


@cache
def _element_rules() -> ElementRules | None:
    return ElementRules.of(all_packs()["python"].manifest)




def _element_alias(full: str, declared: str, d: Definition, facts: FileFacts,
                   bound: list[str], prefix: str) -> list[tuple[str, str]]:
    """``mod.f.__element__.*`` → ``mod.Item.*`` for a function returning, or a variable or
    field declared as, a container of Items (`list[Item]`, `Iterator[Item]`)."""
    rules = _element_rules()
    if rules is None or not declared:
        return []
    item = _unwrap(elements.element(rules, re.sub(r"\s+", "", declared)))
    ret = _typed(item, d, facts, bound, prefix) if item else ""
    return [(f"{full}.{rules.member}.*", f"{ret}.*")] if ret and rules.member else []


@cache
def _element_member() -> str:
    rules = _element_rules()
    return rules.member if rules is not None and rules.member else "\0"


def _direct(arg: str, qualifier: str) -> bool:
    """Whether an ``inst:`` head's receiver is the whole qualifier (`r.m`, not `r.a.m`) and
    its type one class name (not a union, a container mark or a generic parameter)."""
    consumed, _, type_text = H.parse_instance(arg)
    return len(qualifier.split(".")) == consumed and _DOTTED.fullmatch(type_text) is not None


def _instance(arg: str, qualifier: str, name: str, bound: list[str], prefix: str
              ) -> str | None:
    """Target of a member access on a receiver of known type (an ``inst:`` head)."""
    consumed, type_head, type_text = H.parse_instance(arg)
    kind, val = H.split(type_head)
    if kind == H.IMPORT:
        base = bound[int(val)]
    elif kind in (H.DEF, H.SELF):
        base = f"{prefix}{val}"
    else:
        return None
    parts = [base, *type_text.split(".")[1:], *qualifier.split(".")[consumed:], name]
    return ".".join(parts)


@cache
def _type_patterns() -> tuple[re.Pattern[str], ...]:
    """The Python pack's `type_unwrap` patterns: the extractor reduces types by them too."""
    return tuple(re.compile(str(p)) for p in all_packs()["python"].manifest.get("type_unwrap", ()))


def _unwrap(text: str) -> str:
    return unwrap_type(re.sub(r"\s+", "", text), _type_patterns())


_TYPE_ALIAS = re.compile(r"(^|\.)TypeAlias$")
_DOTTED = re.compile(r"[A-Za-z_][\w.]*")
_UNION = re.compile(r"(?:[\w.]+\.)?(Union|Optional)\[(.*)\]")


def _operands(text: str) -> list[str]:
    """A declared type as the dotted names whose members it has: one type unwrapped
    (`Optional[A]` is A), or each operand of a union (`A | B | None`, `Union[A, B]`,
    quoted or parenthesized as a type alias's value is) but builtins; [] when none is a
    dotted name."""
    text = re.sub(r"\s+", "", text)
    while len(text) > 1 and (text[0] == text[-1] and text[0] in "\"'" or
                             text[0] == "(" and _closing(text, 0) == len(text) - 1):
        text = text[1:-1]
    parts = elements.top_level(text, "|")
    if len(parts) == 1 and (m := _UNION.fullmatch(text)):
        parts = elements.top_level(m.group(2), ",") + (["None"] if m.group(1) == "Optional" else [])
    if len(parts) == 1:
        one = _unwrap(text)
        return [one] if one else []
    out: list[str] = []
    for part in parts:  # a union of unions (`Optional[Union[A, B]]`) is one union
        nested = "|" in part or _UNION.fullmatch(part) or part[:1] in "(\"'"
        for typ in _operands(part) if nested else [_unwrap(part)]:
            if _DOTTED.fullmatch(typ) and typ not in _BUILTIN_TYPES and typ not in out:
                out.append(typ)
    return out


def _closing(text: str, start: int) -> int:
    """The index of the bracket closing the one at `start` (-1: none)."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "([":
            depth += 1
        elif text[i] in ")]":
            depth -= 1
            if depth == 0:
                return i
    return -1


_GENERATOR = re.compile(r"(?:[\w.]+\.)?(?:Async)?(?:Iterator|Generator|Iterable)\[\s*"
                        r"([^,\[\]]+(?:\[[^\]]*\])?)\s*(?:,.*)?\]")


def _yielded(text: str) -> str:
    """What a ``@contextmanager`` generator yields, from its ``Iterator[T]`` /
    ``Generator[T, ...]`` return annotation: ``with f() as x`` binds a ``T``."""
    m = _GENERATOR.fullmatch(text.strip())
    return m.group(1) if m else text


def _is_property(decorator: str) -> bool:
    last = decorator.rsplit(".", 1)[-1]
    return last.endswith("property") or last in ("setter", "getter", "deleter")


def _typed(text: str, d: Definition, facts: FileFacts, bound: list[str], prefix: str
           ) -> str:
    """A declared type, a constructed class or a called function (its result, through the
    function's own return alias) as a target; ``self.m``/``Self`` in a class mean that
    class; "" for builtin types."""
    head, _, rest = text.partition(".")
    owner = _owner_class(d, facts)
    resolved = _resolve_base(text, facts, bound, prefix, d.parent)
    if owner is not None and (head in ("self", "cls") and rest or text in _SELF_TYPES
                              or resolved in _SELF_TYPES):  # `import typing as t`: t.Self
        cls = f"{prefix}{facts.definitions[owner].qualname}"
        return f"{cls}.{rest}" if head in ("self", "cls") else cls
    if head in _BUILTIN_TYPES and not rest:
        return ""
    return resolved


_SELF_TYPES = frozenset({"Self", "typing.Self", "te.Self", "typing_extensions.Self"})
_BUILTIN_TYPES = frozenset({"str", "bytes", "int", "float", "bool", "dict", "list", "tuple",
                            "set", "frozenset", "None", "object", "type", "Any", "t.Any",
                            "typing.Any"})


def _super_target(cls: str, name: str, facts: FileFacts, bound: list[str], prefix: str
                  ) -> str | None:
    """``super().name`` in class `cls`: the member of its only base (several bases: the
    method resolution order is not followed, so no single target)."""
    for d in facts.definitions:
        if d.qualname == cls and d.kind == "class":
            if len(d.bases) != 1:
                return None
            return f"{_resolve_base(d.bases[0], facts, bound, prefix, d.parent)}.{name}"
    return None


def _owner_class(d: Definition, facts: FileFacts) -> int | None:
    """The class a method or field belongs to (a field placed by @receiver names it)."""
    defs = facts.definitions
    i = d.parent
    while i >= 0:
        if defs[i].kind == "class":
            return i
        i = defs[i].parent
    if d.kind == "field" and "." in d.qualname:
        cls = d.qualname.rsplit(".", 1)[0]
        return next((j for j, c in enumerate(defs) if c.qualname == cls and c.kind == "class"),
                    None)
    return None


def _resolve_base(text: str, facts: FileFacts, bound: list[str], prefix: str,
                  scope: int = -1) -> str:
    """A base-class expression as a dotted target, looked up lexically from `scope` (the
    definition enclosing the class, -1: module level): a class or an import in an
    enclosing function comes before the module's names."""
    head, _, rest = text.partition(".")
    defs = facts.definitions
    while True:
        for i, imp in enumerate(facts.imports):
            if imp.alias == head and imp.name != "*" and imp.scope == scope:
                return f"{bound[i]}.{rest}" if rest else bound[i]
        if scope < 0:
            break
        for d in defs:
            if d.name == head and d.parent == scope and d.kind not in ("var", "const"):
                return f"{prefix}{d.qualname}.{rest}" if rest else f"{prefix}{d.qualname}"
        scope = defs[scope].parent
    return f"{prefix}{text}"
