"""Declared and constructed types of locals and self members, and receivers' instance heads."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from spyglass.syntax import heads as H
from spyglass.syntax.composite import split_mark
from spyglass.syntax.elements import ElementRules
from spyglass.syntax.flow import FlowTypes
from spyglass.syntax.intervals import innermost
from spyglass.syntax.langpack import LanguagePack
from spyglass.syntax.scope import SPACE, Scope, node_text
from spyglass.types import Definition

_SELF, _INST = H.prefix(H.SELF), H.prefix(H.INST)
# Grammar nodes of a destructured name (`{ a }`, `{ k: a }`): its type is the value's
# member of that key (ECMAScript grammars; a pack's @local.type pattern selects them).
_DESTRUCTURING = frozenset({"object_pattern", "pair_pattern"})
# Heads a receiver's type may have for an ``inst:`` head (a free name: another file's).
_TYPE_HEADS = (H.prefix(H.DEF), H.prefix(H.IMPORT), _SELF, H.FREE)
_LITERAL_MEMBER = re.compile(rb"[\"')]\s*\.\s*\w+$")  # a member of a literal: `",".join`


class TypedBindings:
    """The extractor's part typing names by scope (@local.type, self member reads, struct
    fields written in place, flow types) and reading a receiver's type as an ``inst:`` head."""

    pack: LanguagePack
    _defs: list[Definition]
    _scope_segments: tuple[list[int], list[int]]
    _anon: dict[str, str]
    _fields: dict[tuple[int, str], dict[str, tuple[str, int]]]
    _bound: dict[int, str | None]
    _member_read: set[tuple[int, str]]
    _builtins: frozenset[str]
    _constraints: dict[tuple[int, str], str]
    _containers: list[re.Pattern[str]]
    _elements: ElementRules | None
    _encloses: bool
    _extern: bool
    _flow: FlowTypes | None
    _literal_receiver: re.Pattern[bytes] | None
    _member_types: dict[str, dict[str, tuple[str, int]]]
    _modtypes: dict[str, tuple[str, int]]
    _paths: bool
    _unwrap: list[re.Pattern[str]]

    if TYPE_CHECKING:  # the extractor's (syntax/extract.py)
        def type_text(self, node: Node) -> str: ...
        def _self_head(self, si: int, scopes: list[Scope], defs: list[Definition]) -> str: ...
        def _module_bindings(self) -> dict[str, str]: ...
        def _lookup(self, name: str, si: int, scopes: list[Scope],
                    modbind: dict[str, str]) -> str: ...

    def _constrained_bases(self, defs: list[Definition], def_nodes: list[tuple[int, int]],
                           scopes: list[Scope]) -> None:
        """A definition's base naming a type parameter in scope (`schema: S` in a class
        `Holder<S extends Schema>`, a method returning `T`) stands for its constraint, as a
        local typed with it does."""
        where = innermost(self._scope_segments, [s for s, _ in def_nodes])
        for i, (d, si) in enumerate(zip(defs, where)):
            if not d.bases:
                continue
            bases = []
            for base in d.bases:
                mark, base = split_mark(base) if self._containers else ("", base)  # `T[]`
                first, dot, rest = base.partition(".")
                owner = self._binding_scope(first, si, scopes)
                found = self._constraints.get((owner, first)) if owner is not None else None
                bases.append(f"{mark}{found}{dot}{rest}" if found else mark + base)
            if tuple(bases) != d.bases:
                defs[i] = d._replace(bases=tuple(bases))

    def _typed_bindings(self, matches: list[tuple[int, dict[str, list[Node]]]],
                        scopes: list[Scope], defs: list[Definition]) -> None:
        """Record @local.type for names (@local.definition) and members set through a self
        name (@local.member). At one binding site the earliest pattern wins (a declared type
        before a constructor); different types at different sites mean "unknown"."""
        best: dict[int, tuple[int, Node, Node, bool]] = {}
        for pattern, caps in matches:
            type_node = caps["local.type"][0]
            for cap, member in (("local.definition", False), ("local.member", True)):
                for node in caps.get(cap, ()):
                    prev = best.get(node.start_byte)
                    if prev is None or pattern < prev[0]:
                        best[node.start_byte] = (pattern, node, type_node, member)
        items = [(n, t, m) for _, n, t, m in sorted(best.values(), key=lambda b: b[1].start_byte)]
        where = innermost(self._scope_segments, [n.start_byte for n, _, _ in items])
        for (node, type_node, member), si in zip(items, where):
            text = self.type_text(type_node)
            if member:
                head = self._self_head(si, scopes, defs)
                if not head.startswith(_SELF):
                    continue
                table = self._member_types.setdefault(head, {})
            else:
                table = scopes[si].types if si >= 0 else self._modtypes
            name = node_text(node)
            anon = self._anonymous(type_node) if not member and self._anon else None
            if anon is not None:
                self._fields[(si, name)] = self._struct_fields(anon, si)
                text = ""  # no type name: `x.f.M()` goes through the field's type
            written = type_node.text or b""
            if not member and self._literal_receiver is not None and \
                    self._literal_receiver.match(written) and _LITERAL_MEMBER.search(written):
                text = "str"  # `x = ",".join(xs)`: a builtin literal's member gives a builtin
            if not member and text and node.parent is not None and \
                    node.parent.type in _DESTRUCTURING:  # `const { a: x } = opts`: opts.a
                key_node = node.parent.child_by_field_name("key")
                text = f"{text}.{node_text(key_node) if key_node is not None else name}"
            if not member and text.startswith(f"{name}."):
                self._bound[node.start_byte] = None
                continue  # `x = x.m()` (a builder returning its own kind) keeps x's type
            if not member:
                self._bound[node.start_byte] = text
                if "." in text and type_node.parent is not None and node.parent is not None \
                        and type_node.parent.id == node.parent.id:  # `x = v.attr`, no call
                    self._member_read.add((si, name))
            seen = table.get(name)
            table[name] = (text, si) if seen is None or seen[0] == text else ("", si)
            parent = node.parent
            if not member and text and parent is not None and parent.type == "type_parameter":
                self._constraints[(si, name)] = text

    def _member_reads(self, reads: list[dict[str, list[Node]]], scopes: list[Scope],
                      defs: list[Definition]) -> None:
        """A local set from a self member (`c = self.client`) has the member's type where
        this file gives it one (`self.client: Client`, `self.client = Client()`); else it
        stays untyped (a name-matched receiver)."""
        names = [c["local.read.name"][0] for c in reads]
        where = innermost(self._scope_segments, [n.start_byte for n in names])
        for caps, node, si in zip(reads, names, where):
            head = self._self_head(si, scopes, defs)
            found = self._member_types.get(head, {}).get(node_text(caps["local.read"][0]))
            if not found or not found[0] or si < 0:
                continue
            name = node_text(node)
            if name in self.pack.self_names:
                continue
            self._bound[node.start_byte] = found[0]
            seen = scopes[si].types.get(name)
            scopes[si].types[name] = found if seen is None or seen[0] == found[0] \
                else ("", si)

    def _anonymous(self, node: Node) -> Node | None:
        """The struct written in place that `node` is, or wraps in a way the pack's
        `type_unwrap` reads through (a pointer `*struct{…}`)."""
        while node.type not in self._anon:
            text = SPACE.sub("", node_text(node))
            if node.named_child_count != 1 or not any(p.fullmatch(text) for p in self._unwrap):
                return None
            node = node.named_children[0]
        return node

    def _struct_fields(self, node: Node, si: int) -> dict[str, tuple[str, int]]:
        """The fields of a struct type written in place (`struct{ a *Alert; Rule }`), each
        with its declared type's text (an embedded field is named after its type)."""
        field_type = self._anon[node.type]
        out: dict[str, tuple[str, int]] = {}
        stack = list(node.named_children)
        while stack:
            child = stack.pop()
            if child.type != field_type:
                if child.type not in self._anon:  # not a nested struct's fields
                    stack.extend(child.named_children)
                continue
            type_node = child.child_by_field_name("type")
            if type_node is None or type_node.type in self._anon:
                continue
            text = self.type_text(type_node)
            names = [node_text(n) for n in child.children_by_field_name("name")]
            for fname in names or [text.rsplit(".", 1)[-1]]:
                out[fname] = (text, si)
        return out

    def _flow_bindings(self, nodes: list[Node], narrows: list[dict[str, list[Node]]],
                       scopes: list[Scope]) -> None:
        """Each binding of a local and each type test guarding a block, in order, for the
        type at a use (syntax/flow.py). A test of several types (`isinstance(x, (str,
        bytes))`) narrows only when they agree or are all builtins."""
        flow = self._flow
        assert flow is not None
        nodes = list({n.start_byte: n for n in nodes}.values())  # several patterns bind one
        where = innermost(self._scope_segments, [n.start_byte for n in nodes])
        for node, si in zip(nodes, where):
            name = node_text(node)
            if si < 0 or name in scopes[si].globals or name in scopes[si].nonlocals:
                continue
            flow.bind(si, name, node, self._bound.get(node.start_byte, ""))
        tests: dict[tuple[int, str], tuple[Node, int, list[str]]] = {}
        for caps in narrows:
            name_node, block = caps["local.narrow"][0], caps["local.narrow.block"][0]
            texts = [self.type_text(t) for t in caps.get("local.type", ())]
            seen = tests.setdefault((block.start_byte, node_text(name_node)),
                                    (block, name_node.start_byte, []))
            seen[2].extend(texts)
        at = innermost(self._scope_segments, [pos for _, pos, _ in tests.values()])
        for ((_, name), (block, _, texts)), si in zip(tests.items(), at):
            owner = self._binding_scope(name, si, scopes)
            if owner is None or not texts or not all(texts):
                continue
            if len(set(texts)) == 1 or all(t.split(".")[0] in self._builtins for t in texts):
                flow.narrow(owner, name, block, texts[0])
        flow.done()

    def _instance_head(self, first: str, qualifier: str, head: str, si: int,
                       scopes: list[Scope], modbind: dict[str, str], depth: int = 0,
                       known: tuple[str, int] | None = None) -> str:
        """``inst:<parts consumed>|<head of the type>|<type>`` when the receiver of a member
        access has a known type (a typed or constructed variable, a typed self member; with
        the manifest's `typed_member_paths`, a local set from a typed local or its member:
        `const s = opts.signal` has the type ``Options.signal``)."""
        parts = qualifier.split(".")
        if head.startswith(_SELF):
            if len(parts) < 2:
                return head
            found = self._member_types.get(head, {}).get(parts[1])
            consumed = 2
        elif known is not None:  # the type at this very use (syntax/flow.py)
            found, consumed = known, 1
        else:
            owner = self._binding_scope(first, si, scopes)
            if owner is None:
                return head
            found = (scopes[owner].types if owner >= 0 else self._modtypes).get(first)
            consumed = 1
            fields = self._fields.get((owner, first))
            if fields is None and found and found[0].isidentifier():
                # An element of a local container of a struct written in place (`for _, c
                # := range cases` with `cases := []struct{…}{…}`): the same fields.
                elem_owner = self._binding_scope(found[0], found[1], scopes)
                if elem_owner is not None:
                    fields = self._fields.get((elem_owner, found[0]))
            if fields is not None:  # `c.alert.M()`: the field's declared type
                found, consumed = fields.get(parts[1]) if len(parts) > 1 else None, 2
        if not found or not found[0]:
            return head
        text, at = found
        type_first = text.split(".", 1)[0]
        # A name typed with its own name (Go `func f(ctx *ctx)`) means the type the scope
        # around the binding has: the binding itself is no type.
        own = type_first == first and not head.startswith(_SELF) \
            and at >= 0 and "." not in text
        type_head = self._lookup(type_first, scopes[at].parent if own else at, scopes, modbind)
        element = self._elements is not None and bool(self._elements.member) and \
            f".{self._elements.member}" in text
        if type_head == H.FREE and type_first in self._builtins:
            if element:
                return head  # an element of a builtin container: unknown
            return H.EXTERN if self._extern else head  # never a project member
        # A call on the receiver (`x = self.m()`, Go `u := r.client.URL()`): its class.
        if type_head == H.SELF or (type_first in self.pack.self_names and "." in text):
            type_head = self._self_head(at, scopes, self._defs)
        if type_head == H.LOCAL and self._paths and depth < 3:
            inner = self._instance_head(type_first, text, type_head, at, scopes, modbind,
                                        depth + 1)
            if inner == H.EXTERN and (at, first) in self._member_read:
                return head  # a member read of a builtin-typed value: not known
            if inner == H.EXTERN or not inner.startswith(_INST):
                return inner if inner == H.EXTERN and not element else head
            used, inner_head, inner_type = H.parse_instance(H.split(inner)[1])
            path = ".".join([inner_type, *text.split(".")[used:]])
            return H.instance(consumed, inner_head, path)
        if type_head == H.PARAM:  # set from a parameter of unknown type (`c = app.test_client()`)
            # a member read of it (`e = a.shop`) stays a name-matched local, as before
            return head if (at, first) in self._member_read else H.PARAM
        if not type_head.startswith(_TYPE_HEADS):
            return head
        return H.instance(consumed, type_head, text)

    def _binding_scope(self, name: str, si: int, scopes: list[Scope]) -> int | None:
        """The scope whose binding `_lookup` would use (-1: module level, None: free)."""
        first = True
        while si >= 0:
            scope = scopes[si]
            if scope.kind == "class" and not first and not self._encloses:
                si = scope.parent
                continue
            if name in scope.globals:
                break
            if name in scope.bindings and name not in scope.nonlocals:
                return si
            first = False
            si = scope.parent
        return -1 if name in self._module_bindings() else None
