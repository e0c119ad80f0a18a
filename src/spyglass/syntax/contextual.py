"""Declared-type marks on definitions and parameters typed by their context (TypeScript).

The grammar nodes read come from the pack's manifest (`container_nodes`, the
`[contextual_parameters]` table; docs/languages.md): no language is named here."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tree_sitter import Node

from spyglass.syntax import heads as H
from spyglass.syntax.chains import unwrap_type
from spyglass.syntax.composite import PARAM_MARK, container_mark, is_param_base
from spyglass.syntax.langpack import names_in
from spyglass.syntax.scope import SPACE, Scope, node_text
from spyglass.types import Definition


@dataclass(frozen=True, slots=True)
class ContextRules:
    """The grammar nodes of functions, parameters and their annotations (manifest
    `[contextual_parameters]`)."""

    functions: frozenset[str]  # function nodes (their parameters may be typed by context)
    arrow: str  # a function whose single bare parameter is its own list
    method: str  # a method (its holder is itself: an object literal's member)
    holder: str  # an object literal holding a method
    parameters: frozenset[str]  # the parameters of a list (others: `this`, rest, …)
    receiver: str  # a parameter pattern left out of positions (`this`)
    name: str  # a plain parameter name
    annotation: str  # a type annotation wrapping the declared type
    typed: frozenset[str]  # declared types read as a parameter's type
    function_types: frozenset[str]  # what a member or value holding a function is
    return_statement: str
    return_wrappers: frozenset[str]  # between `return` and a returned function
    assignment: str = ""  # an assignment (`handlers.focus = view => …`)
    member: str = ""  # a member expression `obj.key` on an assignment's left
    index_types: frozenset[str] = frozenset()  # an object type holding an index signature
    index_signature: str = ""  # `[key: string]: (view: View) => R`

    @staticmethod
    def of(manifest: Mapping[str, object]) -> ContextRules | None:
        raw = manifest.get("contextual_parameters")
        if not isinstance(raw, Mapping):
            return None

        def names(key: str) -> frozenset[str]:
            return names_in(raw, key)

        def one(key: str) -> str:
            return str(raw.get(key, ""))
        return ContextRules(
            names("functions"), one("arrow"), one("method"), one("object"),
            names("parameters"), one("receiver"), one("name"), one("annotation"),
            names("typed"), names("function_types"), one("return_statement"),
            names("return_wrappers"), one("assignment"), one("member"),
            names("index_types"), one("index_signature"))

    def parameters_of(self, node: Node) -> Node | None:
        """The parameter list of a function node, a function-typed member or type alias
        (`parse: (opts: Opts) => R`, `type Fn = (ctx: Ctx) => R`), or a variable or field
        holding a function or typed by one index signature of functions (`{[k: string]:
        (v: View) => R}`: the functions its keys hold); an arrow's single bare parameter
        is its own list."""
        if node.type == self.arrow and node.child_by_field_name("parameter") is not None:
            return node
        params = node.child_by_field_name("parameters")
        if params is not None:
            return params
        for field_name in ("type", "value"):
            child = node.child_by_field_name(field_name)
            if child is not None and child.type == self.annotation and child.named_children:
                child = child.named_children[0]
            if child is not None and child.type in self.function_types:
                return self.parameters_of(child)
            signature = self.index_signature_of(child) if field_name == "type" else None
            if signature is not None:
                return self.parameters_of(signature)
        return None

    def index_signature_of(self, node: Node | None) -> Node | None:
        """The one index signature an object type holds (nothing else), or None."""
        if node is None or node.type not in self.index_types or len(node.named_children) != 1:
            return None
        only = node.named_children[0]
        return only if only.type == self.index_signature else None

    def keyed_holder(self, node: Node) -> Node | None:
        """The holder `obj` of `obj.key = <node>` (an assignment's right side), or None."""
        parent = node.parent
        if parent is None or parent.type != self.assignment or \
                parent.child_by_field_name("right") != node:
            return None
        left = parent.child_by_field_name("left")
        holder = left.child_by_field_name("object") if left is not None and \
            left.type == self.member else None
        return holder if holder is not None and holder.type == self.name else None

    def positional(self, params: Node) -> list[Node]:
        """The parameters of a list in order (an arrow's bare one alone), `this` left out."""
        if params.type == self.arrow:
            bare = params.child_by_field_name("parameter")
            return [bare] if bare is not None else []
        out = []
        for p in params.named_children:
            if p.type not in self.parameters:
                continue
            pattern = p.child_by_field_name("pattern")
            if pattern is not None and pattern.type == self.receiver:
                continue
            out.append(p)
        return out


class ContextualTypes:
    """The extractor's part marking container and parameter types on definitions' bases
    and typing untyped parameters by their place (manifest `contextual_parameters`)."""

    _context: ContextRules | None
    _container_nodes: dict[str, str]
    _containers: list[re.Pattern[str]]
    _values: list[re.Pattern[str]]
    _unwrap: list[re.Pattern[str]]

    if TYPE_CHECKING:  # the extractor's (syntax/extract.py)
        def type_text(self, node: Node) -> str: ...

    def _container_marks(self, nodes: list[Node]) -> tuple[str, ...]:
        """The container marks of declared types (`Array<Job>`, `Job[]`: the pattern
        captures an array's element, whose parent is the array type)."""
        out: list[str] = []
        for node in nodes:
            if node.parent is not None and node.parent.type == self._container_nodes.get("array"):
                node = node.parent
            elif node.type != self._container_nodes.get("generic"):
                continue
            mark = container_mark(SPACE.sub("", node_text(node)), self._containers, self._values,
                                  lambda t: unwrap_type(t, self._unwrap))
            if mark:
                out.append(mark)
        return tuple(out)

    def _parameter_marks(self, node: Node) -> tuple[str, ...]:
        """A function's, method's or function-typed member's declared parameter types as
        ``$i=Type`` (i counts the parameters, a `this` parameter left out)."""
        rules = self._context
        params = rules.parameters_of(node) if rules is not None else None
        if rules is None or params is None:
            return ()
        out: list[str] = []
        for i, p in enumerate(rules.positional(params)):
            ann = p.child_by_field_name("type")
            inner = ann.named_children[0] if ann is not None and ann.named_children else None
            text = self.type_text(inner) if inner is not None and inner.type in rules.typed else ""
            if text:
                out.append(f"{PARAM_MARK}{i}={text}")
        return tuple(out)

    def _contextual_params(self, nodes: list[Node], scopes: list[Scope],
                           defs: list[Definition], def_nodes: list[tuple[int, int]]) -> None:
        """Untyped parameters of a function whose place declares its type, as tsc types
        them by context: the value of a definition (an object literal's method or arrow
        member, a typed variable or field: ``obj.m.$0``, the definition's type reaching the
        declared one), or a function returned by a function that declares its result
        (``f.$0``). The type stays a guess where it reaches no definition (the resolver)."""
        rules = self._context
        assert rules is not None
        by_range = {(s.start, s.end): i for i, s in enumerate(scopes)}
        def_at = {rng: i for i, rng in enumerate(def_nodes)}
        for node in nodes:
            if node.type not in rules.functions:
                continue
            si = by_range.get((node.start_byte, node.end_byte))
            params = rules.parameters_of(node)
            if si is None or params is None:
                continue
            untyped = [(i, p) for i, p in enumerate(rules.positional(params))
                       if p.type == rules.name or p.child_by_field_name("type") is None]
            if not untyped:
                continue
            place = self._context_of(rules, node, defs, def_at)
            if not place:
                continue
            scope = scopes[si]
            for i, p in untyped:
                name_node = p if p.type == rules.name else p.child_by_field_name("pattern")
                if name_node is None or name_node.type != rules.name:
                    continue
                name = node_text(name_node)
                if name not in scope.types:
                    scope.types[name] = (f"{place}.{PARAM_MARK}{i}", scope.parent)

    def _context_of(self, rules: ContextRules, node: Node, defs: list[Definition],
                    def_at: dict[tuple[int, int], int]) -> str:
        """The qualname whose declared type types `node`'s parameters, or ""."""
        parent = node.parent
        holder = node if node.type == rules.method else parent
        d = def_at.get((holder.start_byte, holder.end_byte)) if holder is not None else None
        if d is not None and holder is not None and (
                node.type != rules.method or (
                    holder.parent is not None and holder.parent.type == rules.holder)):
            return defs[d].qualname  # a member of a definition's object, a typed value
        keyed = self._keyed_context(rules, node, defs, def_at)
        if keyed:
            return keyed
        keyed = self._keyed_context(rules, node, defs, def_at)
        if keyed:
            return keyed
        while parent is not None and parent.type in rules.return_wrappers:
            parent = parent.parent
        if parent is None or parent.type != rules.return_statement:
            return ""
        outer = parent.parent
        while outer is not None and outer.type not in rules.functions:
            outer = outer.parent
        d = def_at.get((outer.start_byte, outer.end_byte)) if outer is not None else None
        if d is None or not any(not is_param_base(b) and b != H.PROPERTY_MARKER
                                for b in defs[d].bases):
            return ""
        return defs[d].qualname

    def _keyed_context(self, rules: ContextRules, node: Node, defs: list[Definition],
                       def_at: dict[tuple[int, int], int]) -> str:
        """`obj` for a function assigned to a key of `obj` (`handlers.focus = view => …`)
        where `obj` is a file-level definition whose declared type is one index signature
        of functions, as tsc types the function by that signature; else ""."""
        holder = rules.keyed_holder(node)
        if holder is None:
            return ""
        name = node_text(holder)
        root = holder
        while root.parent is not None:
            root = root.parent
        for (start, end), i in def_at.items():
            if defs[i].qualname != name or defs[i].parent != -1:
                continue
            decl: Node | None = root.descendant_for_byte_range(start, end)
            while decl is not None and (decl.start_byte, decl.end_byte) != (start, end):
                decl = decl.parent
            ann = decl.child_by_field_name("type") if decl is not None else None
            inner = ann.named_children[0] if ann is not None and ann.named_children else None
            if rules.index_signature_of(inner) is not None:
                return name
        return ""
