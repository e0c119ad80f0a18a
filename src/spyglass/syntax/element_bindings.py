"""Element types of containers bound to loop targets, appended lists and subscripts."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from spyglass.syntax import elements
from spyglass.syntax import heads as H
from spyglass.syntax.chains import DOTTED, unwrap_type
from spyglass.syntax.elements import ElementRules
from spyglass.syntax.intervals import innermost
from spyglass.syntax.langpack import LanguagePack
from spyglass.syntax.scope import SEPARATORS, SPACE, Scope, node_text
from spyglass.types import Definition

_SELF, _INST = H.prefix(H.SELF), H.prefix(H.INST)
_WORD = re.compile(rb"\w+")


class ElementBindings:
    """The extractor's element-type part (manifest `element_types`; syntax/elements.py):
    a loop or comprehension target, an appended list and a subscript have the element type
    of the container's declared type."""

    pack: LanguagePack
    data: bytes
    _elements: ElementRules | None
    _scope_segments: tuple[list[int], list[int]]
    _bound: dict[int, str | None]
    _modtypes: dict[str, tuple[str, int]]
    _literals: dict[str, str]
    _builtins: frozenset[str]
    _unwrap: list[re.Pattern[str]]
    _declared: dict[tuple[int, str], str]
    _declared_members: dict[str, dict[str, str]]
    _undeclared: tuple[list[tuple[int, dict[str, list[Node]]]], list[Scope],
                       list[Definition]] | None

    if TYPE_CHECKING:  # the extractor's (syntax/extract.py)
        def type_text(self, node: Node) -> str: ...
        def _binding_scope(self, name: str, si: int, scopes: list[Scope]) -> int | None: ...
        def _self_head(self, si: int, scopes: list[Scope], defs: list[Definition]) -> str: ...
        def _module_bindings(self) -> dict[str, str]: ...
        def _lookup(self, name: str, si: int, scopes: list[Scope],
                    modbind: dict[str, str]) -> str: ...
        def _instance_head(self, first: str, qualifier: str, head: str, si: int,
                           scopes: list[Scope], modbind: dict[str, str], depth: int = 0,
                           known: tuple[str, int] | None = None) -> str: ...

    def _element_bindings(self, matches: list[dict[str, list[Node]]],
                          typed: list[tuple[int, dict[str, list[Node]]]],
                          scopes: list[Scope], defs: list[Definition],
                          definitions: list[Node]) -> None:
        """Loop and comprehension targets typed by what their iterable yields: the element
        type of the container's declared type (or of a local list's appended values); a
        target over a container reached from an untyped parameter is set from that
        parameter (its members are not listed, as for `c = p.m()`). A target also bound
        by an untyped assignment in its scope keeps what it had."""
        rules = self._elements
        assert rules is not None
        self._undeclared = (typed, scopes, defs)  # read when first needed (_declared_text)
        appends = [c for c in matches if "local.appended" in c]
        if appends:
            self._appended_lists(appends, typed, scopes)
        loops = [c for c in matches if "local.element" in c]
        if not loops:
            return
        found: dict[tuple[int, str], list[str]] = {}
        targets = [c["local.element.target"][0] for c in loops]
        where = innermost(self._scope_segments, [t.start_byte for t in targets])
        data = self.data
        for caps, target, si in zip(loops, targets, where):
            start, end = (scopes[si].start, scopes[si].end) if si >= 0 else (0, len(data))
            if not any(data.find(name + b".", start, end) >= 0
                       for name in _WORD.findall(target.text or b"")):
                continue  # no member of a name it binds is used in its scope: nothing to type
            text, param = self._iterable_element(caps["local.element"][0], si, scopes, defs)
            for name_node, typ in self._unpacked(target, text, param):
                found.setdefault((si, node_text(name_node)), []).append(typ)
        typed_names = {name for (_, name), texts in found.items() if texts[0]}
        if not typed_names:
            return
        untyped: dict[tuple[int, str], int] = {}  # bindings without a type, by scope and name
        nodes = [n for n in {n.start_byte: n for n in definitions}.values()
                 if n.start_byte not in self._bound and node_text(n) in typed_names]
        for node, si in zip(nodes, innermost(self._scope_segments,
                                             [n.start_byte for n in nodes])):
            key = (si, node_text(node))
            untyped[key] = untyped.get(key, 0) + 1
        for (si, name), texts in found.items():
            text = texts[0]
            if not text or any(t != text for t in texts) or name in self.pack.self_names or \
                    untyped.get((si, name), 0) > len(texts):
                continue  # unknown, or bound otherwise too: left as it was
            table = scopes[si].types if si >= 0 else self._modtypes
            seen = table.get(name)
            table[name] = (text, si) if seen is None or seen[0] == text else ("", si)

    def _record_declared(self) -> None:
        """Declared types as written (`list[Item]`), of names and of self members; several
        different declarations of one name: unknown. Once, when first needed."""
        if self._undeclared is None or self._elements is None:
            return
        typed, scopes, defs = self._undeclared
        self._undeclared = None
        declared = self._elements.declared
        rows = [(caps["local.type"][0], caps) for _, caps in typed
                if caps["local.type"][0].type in declared]
        nodes = [(n, t, m) for t, caps in rows
                 for cap, m in (("local.definition", False), ("local.member", True))
                 for n in caps.get(cap, ())]
        where = innermost(self._scope_segments, [n.start_byte for n, _, _ in nodes])
        for (node, type_node, member), si in zip(nodes, where):
            raw = SPACE.sub("", node_text(type_node))
            if member:
                head = self._self_head(si, scopes, defs)
                if not head.startswith(_SELF):
                    continue
                table = self._declared_members.setdefault(head, {})
                key: str = node_text(node)
                seen = table.get(key)
                table[key] = raw if seen is None or seen == raw else ""
            else:
                k = (si, node_text(node))
                was = self._declared.get(k)
                self._declared[k] = raw if was is None or was == raw else ""

    def _appended_lists(self, appends: list[dict[str, list[Node]]],
                        typed: list[tuple[int, dict[str, list[Node]]]],
                        scopes: list[Scope]) -> None:
        """A local bound once to a list literal (`xs = []`) and given only values of one
        constructed or called type (`xs.append(Item(…))`) declares `list[Item]`."""
        rules = self._elements
        assert rules is not None
        lists: dict[tuple[int, str], list[str]] = {}
        appended = {node_text(c["local.appended"][0]) for c in appends}
        rows = [(caps["local.type"][0], n) for _, caps in typed
                for n in caps.get("local.definition", ())
                if self._literals.get(caps["local.type"][0].type) in rules.sequences
                and caps["local.type"][0].type not in rules.comprehensions
                and node_text(n) in appended]
        where = innermost(self._scope_segments, [n.start_byte for _, n in rows])
        for (literal, node), si in zip(rows, where):
            name = node_text(node)
            table = scopes[si].types if si >= 0 else self._modtypes
            if table.get(name, ("", si))[0] != self._literals.get(literal.type):
                continue  # bound to something else too
            lists.setdefault((si, name), []).extend(
                self._value_type(v) for v in literal.named_children)
        if not lists:
            return
        names = [c["local.appended"][0] for c in appends]
        at = innermost(self._scope_segments, [n.start_byte for n in names])
        for caps, node, si in zip(appends, names, at):
            owner = self._binding_scope(node_text(node), si, scopes)
            seen = lists.get((owner, node_text(node))) if owner is not None else None
            if seen is not None:
                seen.append(self._value_type(caps["local.appended.value"][0]))
        self._record_declared()
        for key, texts in lists.items():
            if texts and texts[0] and all(t == texts[0] for t in texts) and \
                    key not in self._declared:
                self._declared[key] = f"list[{texts[0]}]"

    def _value_type(self, node: Node) -> str:
        """The type of a value put in a container: a call's callee (`Item(…)`: an Item, `f()`:
        what f returns, as for `x = f()`); "" for anything else."""
        func = node.child_by_field_name("function")
        if func is None or func.child_by_field_name("function") is not None:
            return ""
        return self.type_text(func) if func.named_child_count == 0 or \
            func.child_by_field_name("attribute") is not None else ""

    def _iterable_element(self, node: Node, si: int, scopes: list[Scope],
                          defs: list[Definition]) -> tuple[str, bool]:
        """What iterating `node` yields, as a type text ("" unknown), and whether it is
        an untyped parameter's name (a container reached from one: `p.items()`)."""
        rules = self._elements
        assert rules is not None
        view, container = "", node
        func = node.child_by_field_name("function")
        if func is not None:
            args = node.child_by_field_name("arguments")
            argv = args.named_children if args is not None else []
            method = func.child_by_field_name("attribute")
            called = node_text(func)
            if method is not None and node_text(method) in rules.views and not argv:
                view = rules.views[node_text(method)]
                container = func.child_by_field_name("object") or func
            elif called in rules.passthrough or called in rules.enumerate:
                view = "enumerate" if called in rules.enumerate else ""
                container = argv[0] if len(argv) == 1 else func
        if container is not func:
            declared = self._declared_text(self._path(container), si, scopes, defs)
            text = elements.element(rules, declared, "" if view == "enumerate" else view) \
                if declared else ""
            if text:
                return (f"tuple[int,{text}]" if view == "enumerate" else text), False
        if not view and rules.member and container is not func:
            # declared elsewhere (another file, a call's result): `P.__element__`, a guess
            # the resolver's element aliases answer; not through a builtin (`map(f, xs)`)
            raw = SPACE.sub("", node_text(container.child_by_field_name("function") or container))
            if DOTTED.match(raw.encode()) and raw.split(".", 1)[0] not in self._builtins:
                return f"{raw}.{rules.member}", False
        root = container
        while root.named_child_count:
            inner = root.child_by_field_name("object") or root.child_by_field_name("function") \
                or root.child_by_field_name("value")
            if inner is None:
                return "", False
            root = inner
        name = node_text(root)
        if name not in self.pack.self_names and \
                self._lookup(name, si, scopes, self._module_bindings()) == H.PARAM:
            return name, True
        return "", False

    def _path(self, node: Node) -> str:
        """A name or a member of a self name (`self.items`) as text; "" otherwise."""
        if node.named_child_count == 0:
            return node_text(node)
        obj = node.child_by_field_name("object")
        attr = node.child_by_field_name("attribute")
        if obj is not None and attr is not None and obj.named_child_count == 0:
            return f"{node_text(obj)}.{node_text(attr)}"
        return ""

    def _declared_text(self, path: str, si: int, scopes: list[Scope],
                       defs: list[Definition]) -> str:
        """The declared type, as written, of a name or a self member (`self.items`)."""
        first, _, member = path.partition(".")
        if not first:
            return ""
        self._record_declared()
        if not member:
            owner = self._binding_scope(first, si, scopes)
            return self._declared.get((owner, first), "") if owner is not None else ""
        if first in self.pack.self_names and "." not in member:
            head = self._self_head(si, scopes, defs)
            return self._declared_members.get(head, {}).get(member, "")
        return ""

    _SUBSCRIPT = re.compile(rb"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\s*\[[^\[\]]*\]")

    def _subscript_head(self, raw: bytes, si: int, scopes: list[Scope],
                        defs: list[Definition], modbind: dict[str, str]
                        ) -> tuple[str, str] | None:
        """A member of a subscripted container (`xs[0].m`, `self.by_key[k].m`) whose
        declared element type is known: (the container's path, the element's head)."""
        rules = self._elements
        m = self._SUBSCRIPT.fullmatch(raw.rstrip(SEPARATORS)) if rules is not None else None
        if rules is None or m is None:
            return None
        path = m.group(1).decode("utf-8", "replace")
        declared = self._declared_text(path, si, scopes, defs)
        text = unwrap_type(elements.element(rules, declared, "subscript"), self._unwrap) \
            if declared else ""
        if not text:
            return None
        first = path.split(".", 1)[0]
        head = self._instance_head(first, path, H.EXPR, si, scopes, modbind, known=(text, si))
        if head.startswith(_INST):
            _, type_head, type_text = H.parse_instance(H.split(head)[1])
            head = H.instance(path.count(".") + 1, type_head, type_text)
        return (path, head) if head != H.EXPR else None

    def _unpacked(self, target: Node, text: str, param: bool = False
                  ) -> list[tuple[Node, str]]:
        """The names a loop target binds, each with its type text ("" unknown): one name
        has the element's type, a pattern (`k, v`) the element's components by position
        (each the parameter's name when the container is reached from an untyped one)."""
        rules = self._elements
        assert rules is not None
        if target.named_child_count == 0:
            wrapped = any(c in text for c in "[|'\"")  # else already one dotted name
            return [(target, unwrap_type(text, self._unwrap) if wrapped and not param else text)]
        parts = target.named_children
        out: list[tuple[Node, str]] = []
        for i, part in enumerate(parts):
            sub = text if param else elements.component(rules, text, i, len(parts)) \
                if text else ""
            out.extend(self._unpacked(part, sub, param))
        return out
