"""Extraction: one file's bytes → FileFacts, driven entirely by the language pack's queries."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable

from tree_sitter import Node

from spyglass.syntax import arity as A
from spyglass.syntax import heads as H
from spyglass.syntax.budget import Budget, OverBudget
from spyglass.syntax.chains import DOTTED, call_path, unwrap_type
from spyglass.syntax.composite import LITERAL, composite, each_of
from spyglass.syntax.constraints import build_constraint
from spyglass.syntax.contextual import ContextRules, ContextualTypes
from spyglass.syntax.destructured import CONSTRUCTED, destructured_keys
from spyglass.syntax.diagnostics import diagnostics
from spyglass.syntax.element_bindings import ElementBindings
from spyglass.syntax.elements import ElementRules
from spyglass.syntax.expansions import blanked_tokens
from spyglass.syntax.flow import FlowRules, FlowTypes
from spyglass.syntax.import_bindings import ImportBindings
from spyglass.syntax.intervals import innermost, parents, segments
from spyglass.syntax.langpack import LanguagePack
from spyglass.syntax.name_lookup import MEMBER_PARENTS, NameLookup
from spyglass.syntax.parsing import not_analysed, parse, prepared
from spyglass.syntax.recovery import read as read_definitions
from spyglass.syntax.recovery import recovered
from spyglass.syntax.scope import SEPARATORS, SPACE, Scope, node_text
from spyglass.syntax.typed_bindings import TypedBindings
from spyglass.types import Definition, Diagnostic, FileFacts, Import, Reference

# Roles from weakest to strongest: a node captured with several roles keeps the strongest.
ROLES_ASCENDING = ("ref", "read", "write", "type", "call", "import")
# Kinds whose body counts as "the enclosing symbol" of a call or reference.
ENCLOSING_KINDS = frozenset({"func", "method", "class", "struct", "interface", "type", "enum",
                             "test"})
# Definitions whose declared type (or result) may be a container (composite.container_mark).
_CONTAINER_KINDS = frozenset({"func", "method", "field", "var", "const"})

_SELF, _INST = H.prefix(H.SELF), H.prefix(H.INST)


class _Extractor(NameLookup, TypedBindings, ElementBindings, ImportBindings, ContextualTypes):
    """State for one extraction; the public entry point is `extract`."""

    def __init__(self, pack: LanguagePack, data: bytes, budget: Budget) -> None:
        self.pack = pack
        data = prepared(pack, data)
        self.data = data
        self.budget = budget
        self.tree = parse(pack, data, budget)
        self.root = self.tree.root_node
        self._builtins = frozenset(pack.manifest.get("builtins", ()))
        self._encloses = pack.class_scope_encloses
        self._unwrap = [re.compile(p) for p in pack.manifest.get("type_unwrap", ())]
        self._extern = bool(pack.manifest.get("builtin_types_external"))
        # A literal's builtin type by grammar node type (`[]` → list): manifest `literal_types`
        self._literals: dict[str, str] = dict(pack.manifest.get("literal_types", {}))
        # A name linked from a doc comment (manifest `doc_link`, group 1; `@doc` captures).
        link = pack.manifest.get("doc_link")
        self._doc_link = re.compile(link.encode()) if link else None
        self._doc_start = str(pack.manifest.get("doc_comment_start", "")).encode()
        # A receiver written as a literal (manifest `literal_receiver`, a regex on its text).
        pattern = pack.manifest.get("literal_receiver")
        self._literal_receiver = re.compile(pattern.encode()) if pattern else None
        self._paths = bool(pack.manifest.get("typed_member_paths"))
        self._supers = {t.encode() for t in pack.manifest.get("super_receivers", ())}
        self._chains = str(pack.manifest.get("call_chains", "")).encode()
        # A receiver constructing its type (manifest `constructed_receiver`, a regex whose
        # group 1 is the type: `new T<X>(a)`), read as a call of the type (`T(a)`).
        built = pack.manifest.get("constructed_receiver")
        self._constructed = re.compile(built.encode(), re.DOTALL) if built else None
        # Qualifiers keep ``()`` after a called name, for the resolver to tell a call's
        # result from an attribute; constructed types follow such chains too.
        self._marked = bool(pack.manifest.get("call_chains_marked"))
        # A type written as a chain of calls (`x := New(u).Get()`: `New.Get`), unmarked too.
        self._chain_types = self._marked or bool(pack.manifest.get("call_chain_types"))
        self._seps = pack.qualifier_separators  # written as `.` in every qualifier
        self._assertions = bool(pack.manifest.get("call_chains_type_assertions"))
        # Composite types (manifest `type_operators`: node type → operator) and the
        # operands they leave out (`type_operands_skipped`: `null`, `undefined`).
        self._operators: dict[str, str] = dict(pack.manifest.get("type_operators", {}))
        # Declared container types (manifest `element_containers`, `value_containers`): a
        # member's base marked with what it holds (syntax/composite.py, container_mark).
        self._containers = [re.compile(p) for p in pack.manifest.get("element_containers", ())]
        self._values = [re.compile(p) for p in pack.manifest.get("value_containers", ())]
        # Their grammar nodes (manifest `container_nodes`: generic, array type, literal).
        self._container_nodes: dict[str, str] = dict(pack.manifest.get("container_nodes", {}))
        self._array_literal = self._container_nodes.get("literal", "")
        # Parameters typed by context (manifest `contextual_parameters`): a function's declared
        # parameter types as ``$i=Type`` bases; an untyped parameter of a function whose
        # type its place declares has the type ``Place.$i`` (_contextual_params).
        self._context = ContextRules.of(pack.manifest)
        self._skipped = frozenset(pack.manifest.get("type_operands_skipped", ()))
        # Tokens read as `.` in a qualifier (manifest `optional_member_tokens`: `?.`, `!.`).
        self._optional = tuple(str(t) for t in pack.manifest.get("optional_member_tokens", ()))
        # Subscripts taking one element of a container (manifest `element_subscripts`:
        # `xs![0]`), left out of a qualifier: a container stands for its element type.
        subs = pack.manifest.get("element_subscripts")
        self._subscripts = re.compile(str(subs).encode()) if subs else None
        # A struct type written in place (manifest `anonymous_structs`: node type → its field
        # node type): a local of that type has its fields' declared types, by scope and name.
        self._anon: dict[str, str] = dict(pack.manifest.get("anonymous_structs", {}))
        self._fields: dict[tuple[int, str], dict[str, tuple[str, int]]] = {}
        # A type parameter's constraint by (scope, name): `<T extends Schema>` (extends `T`
        # as a declared type of locals and of the bases of members typed with it).
        self._constraints: dict[tuple[int, str], str] = {}
        # Parameter counts (@parameters): the manifest's `arity` patterns over their text.
        self._arity = {k: re.compile(v.encode())
                       for k, v in pack.manifest.get("arity", {}).items() if isinstance(v, str)}
        self._call_args: list[int] = []  # FileFacts.call_args
        self._tokens: tuple[tuple[str, str, str], ...] = ()  # FileFacts.tokens
        self._modtypes: dict[str, tuple[str, int]] = {}
        self._member_types: dict[str, dict[str, tuple[str, int]]] = {}  # self head → member
        # Types at a use (manifest `flow_types`; syntax/flow.py): each binding's type.
        rules = pack.manifest.get("flow_types")
        self._flow = FlowTypes(FlowRules(*(frozenset(rules.get(k, ())) for k in (
            "blocks", "assignments", "loops", "keeps", "parameters", "tries", "handlers",
            "exits", "finals")))) if rules else None
        self._bound: dict[int, str | None] = {}  # name node → its binding's type (None: kept)
        # Names bound to a member read (`x = v.attr`) by (scope, name): a builtin-typed `v`
        # (`value: object`, narrowed by a test) tells nothing of the member's type.
        self._member_read: set[tuple[int, str]] = set()
        # Element types of containers (manifest `element_types`; syntax/elements.py): the
        # declared types as written, of names by (scope, name) and of self members by head.
        self._elements = ElementRules.of(pack.manifest)
        self._declared: dict[tuple[int, str], str] = {}
        self._declared_members: dict[str, dict[str, str]] = {}
        self._undeclared: tuple[list[tuple[int, dict[str, list[Node]]]], list[Scope],
                                list[Definition]] | None = None

    def run(self) -> FileFacts:
        # One traversal for the structural queries (definitions, imports, scopes) together.
        def_matches: list[tuple[int, dict[str, list[Node]]]] = []
        import_matches: list[dict[str, list[Node]]] = []
        scope_caps: dict[str, list[Node]] = {}
        typed: list[tuple[int, dict[str, list[Node]]]] = []
        narrows: list[dict[str, list[Node]]] = []
        elements: list[dict[str, list[Node]]] = []
        reads: list[dict[str, list[Node]]] = []  # `x = self.m`: typed by the member
        first_import, first_scope = self.pack.structure_offsets
        for pattern, caps in self.budget.matches(self.pack.structure, self.root):
            if pattern < first_import:
                def_matches.append((pattern, caps))
            elif pattern < first_scope:
                import_matches.append(caps)
            elif "local.narrow" in caps:
                narrows.append(caps)
            elif "local.element" in caps or "local.appended" in caps:
                elements.append(caps)
            elif "local.read" in caps:
                reads.append(caps)
            else:
                if "local.type" in caps:
                    typed.append((pattern, caps))
                for cap, nodes in caps.items():
                    if cap not in ("local.type", "local.member"):
                        scope_caps.setdefault(cap, []).extend(nodes)
        defs, def_nodes, package = self._definitions(def_matches)
        self._defs = defs
        scopes, scope_of_def = self._scopes(def_nodes, scope_caps)
        if typed:
            self._typed_bindings(typed, scopes, defs)
            if self._constraints:
                self._constrained_bases(defs, def_nodes, scopes)
        if reads and self._member_types:
            self._member_reads(reads, scopes, defs)
        if elements and self._elements is not None:
            self._element_bindings(elements, typed, scopes, defs,
                                   scope_caps.get("local.definition", []))
        if self._context is not None:
            self._contextual_params(scope_caps.get("scope", []), scopes, defs, def_nodes)
        if self._flow is not None:
            self._flow_bindings(scope_caps.get("local.definition", []), narrows, scopes)
        imports, import_at = self._imports(scopes, import_matches)
        self._bind_definitions(defs, def_nodes, scopes, scope_of_def)
        refs = self._references(defs, def_nodes, scopes, imports, import_at)
        found = diagnostics(self.pack, self.root, self.data)
        return FileFacts(
            language=self.pack.name,
            definitions=(*defs, *recovered(self.pack, self.data, found, defs)),
            references=tuple(refs),
            imports=tuple(imports),
            diagnostics=tuple(found),
            lines=self.data.count(b"\n") + (0 if self.data.endswith(b"\n") or not self.data else 1),
            package=package,
            build_constraint=build_constraint(self.pack, self.data),
            call_args=tuple(self._call_args),
            tokens=self._tokens,
        )

    # -- definitions -------------------------------------------------------------------
    def _definitions(self, matches: list[tuple[int, dict[str, list[Node]]]]
                     ) -> tuple[list[Definition], list[tuple[int, int]], str]:
        best: dict[int, tuple[int, str, Node, Node, str, tuple[str, ...]]] = {}
        params: dict[int, dict[int, Node]] = {}  # name start → parameter lists by start
        package = ""
        for pattern, caps in matches:
            if "package" in caps:
                package = node_text(caps["package"][0])
            names = caps.get("name")
            if not names:
                continue
            if "parameters" in caps:
                for name_node in names:
                    lists = params.setdefault(name_node.start_byte, {})
                    lists.update((n.start_byte, n) for n in caps["parameters"])
            kind = next((k[11:] for k in caps if k.startswith("definition.")), None)
            if kind is None:
                continue
            node = caps[f"definition.{kind}"][0]
            receiver = node_text(caps["receiver"][0]) if "receiver" in caps else ""
            written = caps.get("base", [])
            literal = [b for b in written if b.parent is not None and b.parent.type == self._array_literal
                       ] if self._containers else []
            if literal:  # an array literal's named elements (composite.LITERAL)
                written = [b for b in written if b not in literal]
            bases = tuple(t for t in (self._base_text(b) for b in written) if t)
            bases += tuple(LITERAL + node_text(b) for b in literal)
            if self._containers and kind in _CONTAINER_KINDS:
                bases += self._container_marks(written)
            if self._context is not None:
                bases += self._parameter_marks(node)
            if "property" in caps:  # an accessor: reading it runs it (heads.PROPERTY_MARKER)
                bases += (H.PROPERTY_MARKER,)
            for name_node in names:
                key = name_node.start_byte
                if name_node.end_byte == key:
                    continue  # a MISSING node inserted by error recovery
                prev = best.get(key)
                if prev is None or pattern < prev[0]:
                    merged = bases if prev is None else prev[5] + bases
                    best[key] = (pattern, kind, node, name_node, receiver, merged)
                elif bases:  # one match per embedded type / implemented interface: merge
                    best[key] = (*prev[:5], prev[5] + bases)
        rows = sorted(best.values(), key=lambda r: (r[2].start_byte, -r[2].end_byte))
        intervals = [(r[2].start_byte, r[2].end_byte) for r in rows]
        parent_of = parents(intervals)
        defs: list[Definition] = []
        const_re = self.pack.manifest.get("const_pattern")
        for i, (_, kind, node, name_node, receiver, bases) in enumerate(rows):
            name = node_text(name_node)
            parent = parent_of[i]
            pkind = defs[parent].kind if parent >= 0 else ""
            if kind == "func" and pkind in MEMBER_PARENTS:
                kind = "method"
            if kind == "var" and const_re and re.match(const_re, name):
                kind = "const"
            if receiver:
                qual = f"{receiver}.{name}"
            elif parent >= 0:
                qual = f"{defs[parent].qualname}.{name}"
            else:
                qual = name
            plists = params.get(name_node.start_byte)
            fewest, most = A.UNKNOWN, A.UNKNOWN
            if plists:
                fewest, most = A.parameter_range(
                    self.data, list(plists.values()), self._arity.get("variadic"),
                    self._arity.get("optional"), self._arity.get("optional_list"),
                    self._arity.get("empty"))
            defs.append(Definition(
                name=name, qualname=qual, kind=kind,
                start_line=node.start_point[0] + 1, end_line=node.end_point[0] + 1,
                name_line=name_node.start_point[0] + 1, name_col=name_node.start_point[1],
                parent=parent, bases=bases, params_min=fewest, params_max=most,
            ))
        return defs, intervals, package

    # -- scopes ------------------------------------------------------------------------
    def _scopes(self, def_nodes: list[tuple[int, int]], caps: dict[str, list[Node]]
                ) -> tuple[list[Scope], dict[int, int]]:
        raw = [(n.start_byte, n.end_byte, "func") for n in caps.get("scope", [])]
        raw += [(n.start_byte, n.end_byte, "class") for n in caps.get("scope.class", [])]
        raw = sorted(set(raw), key=lambda s: (s[0], -s[1]))
        scopes = [Scope(s, e, k) for s, e, k in raw]
        intervals = [(s.start, s.end) for s in scopes]
        for i, parent in enumerate(parents(intervals)):
            scopes[i].parent = parent
        by_range = {(s.start, s.end): i for i, s in enumerate(scopes)}
        scope_of_def: dict[int, int] = {}
        for d, rng in enumerate(def_nodes):
            si = by_range.get(rng)
            if si is not None:
                scopes[si].owner = d
                scope_of_def[d] = si
        scope_segs = segments(intervals)
        # A parameter first: re-assigning it in the body keeps it a parameter.
        for kind in ("local.parameter", "local.definition", "local.self", "local.global",
                     "local.nonlocal"):
            nodes = caps.get(kind, [])
            where = innermost(scope_segs, [n.start_byte for n in nodes])
            for node, si in zip(nodes, where):
                name = node_text(node)
                if si < 0:
                    if kind in ("local.definition", "local.parameter"):
                        self._module_bindings().setdefault(name, H.LOCAL)
                    continue
                if kind == "local.global":
                    scopes[si].globals.add(name)
                elif kind == "local.nonlocal":
                    scopes[si].nonlocals.add(name)
                elif kind == "local.self":
                    scopes[si].bindings[name] = H.SELF
                elif kind == "local.parameter":
                    scopes[si].bindings.setdefault(name, H.PARAM)
                else:
                    scopes[si].bindings.setdefault(name, H.LOCAL)
        self._scope_segments = scope_segs
        # Scopes binding the self name (@scope.self: a function or class, not an arrow).
        self._binders = {(n.start_byte, n.end_byte) for n in caps.get("scope.self", ())}
        return scopes, scope_of_def

    def _base_text(self, node: Node) -> str:
        """A base as written; one written as a generic type (`Omit<Provider, 'k'>`,
        `Builder<T>`) reduced by the pack's ``type_unwrap`` patterns to the type whose
        members it has."""
        if node.type == "generic_type":
            return self.type_text(node) or node_text(node)
        if node.type in self._operators:  # `A | null`, `A & B`: "" for an unknown operand
            return self.type_text(node)
        return node_text(node)

    def type_text(self, node: Node) -> str:
        """A declared or constructed type as a dotted name, unwrapped by the manifest's
        ``type_unwrap`` patterns (optional wrappers, pointers, quotes); "" if not dotted."""
        literal = self._literals.get(node.type)
        if literal is not None:
            return literal
        if node.type in self._operators:
            return composite(node, self._operators, self._skipped, self.type_text)
        if node.type == self._array_literal:  # `[A, B].forEach(k => …)`: each element
            return each_of(node, self.type_text)
        text = SPACE.sub("", node_text(node))
        for token in self._optional:  # `a.b?.c` is the path `a.b.c`
            text = text.replace(token, ".")
        for sep in self._seps:  # `shapes::Circle` is the type `shapes.Circle`
            text = text.removeprefix(sep.decode()).replace(sep.decode(), ".")
        if self._chain_types and "(" in text:  # `URL(u).copy_with` → `URL.copy_with`
            text = call_path(text.encode(), self._chains,
                              assertions=self._assertions).decode("utf-8", "replace")
        return unwrap_type(text, self._unwrap)

    # -- references --------------------------------------------------------------------
    def _references(self, defs: list[Definition], def_nodes: list[tuple[int, int]],
                    scopes: list[Scope], imports: list[Import],
                    import_at: dict[int, int]) -> list[Reference]:
        caps = self.budget.captures(self.pack.references, self.root)
        data = self.data
        ignored = {n.start_byte: n for n in caps.get("ignore", ())}
        skip = set(ignored)
        tags = {n.start_byte for n in caps.get("tag", ())} if self.pack.manifest.get(
            "tag_namespace") else set()  # `struct X` in C's tag name space (not C++'s)
        line_starts = self._lines()
        named = {line_starts[d.name_line - 1] + d.name_col for d in defs}
        skip.update(named)
        # Nested qualified nodes ending at one name (C++ `a::b::c` holds `b::c`): the
        # outermost gives the qualifier.
        qual_start: dict[int, int] = {}
        for n in caps.get("qualified", ()):
            qual_start[n.end_byte] = min(n.start_byte, qual_start.get(n.end_byte, n.start_byte))
        # @receiver: the qualifier runs from the receiver to the name after its separators
        recv_start = {self._after_separators(n.end_byte): n.start_byte
                      for n in caps.get("receiver", ())}
        role_at: dict[int, str] = {}
        end_at: dict[int, int] = {}
        for role in ROLES_ASCENDING:
            nodes = caps.get(f"reference.{role}")
            if not nodes:
                continue
            ends = [n.end_byte for n in nodes]
            starts = [n.start_byte for n in nodes]
            role_at.update(dict.fromkeys(starts, role))
            end_at.update(zip(starts, ends))
        for key in [k for k, e in end_at.items() if e == k]:
            del role_at[key]  # a MISSING node inserted by error recovery
        literal_types = self._literal_keys(caps.get("key", ()), role_at, end_at)
        # `const { a } = recv`: a read (role `ref`) of recv's member a, as `recv.a` is
        taken = destructured_keys(caps.get("destructured", ()), data)
        for start, n in ((n.start_byte, n) for n in caps.get("destructured", ())):
            if start in taken and start not in role_at:
                role_at[start], end_at[start] = "ref", n.end_byte
        doc_keys: set[int] = set()
        if self._doc_link is not None:  # `{@link Name}` in a doc comment reads Name
            opener = self._doc_start
            for node in caps.get("doc", ()):
                if not data.startswith(opener, node.start_byte):
                    continue
                for m in self._doc_link.finditer(data, node.start_byte, node.end_byte):
                    start, end = m.span(1)
                    dot = max(data.rfind(b".", start, end), data.rfind(b"#", start, end))
                    at = dot + 1 if dot >= 0 else start
                    doc_keys.add(at)
                    role_at.setdefault(at, "read")
                    end_at.setdefault(at, end)
                    if dot >= 0:
                        qual_start.setdefault(end, start)
        gaps = self._gaps(ignored, named, caps.get("_token", ()), role_at, end_at)
        keys = sorted(k for k in role_at if k not in skip)
        sources = A.arguments(caps.get("arguments", ()), caps.get("argument", ())) \
            if "arguments" in caps or "argument" in caps else None
        counts: list[int] = []  # with `sources`: one per reference kept
        self._call_args = counts
        scope_idx = innermost(self._scope_segments, keys)
        enclosing_ivs = [(i, rng) for i, rng in enumerate(def_nodes)
                         if defs[i].kind in ENCLOSING_KINDS]
        encl = innermost([rng for _, rng in enclosing_ivs], keys)
        memo: dict[tuple[str, int], str] = {}
        self_heads: dict[int, str] = {}
        modbind = self._module_bindings()
        self_names = self.pack.self_names
        builtins = self._builtins
        module_imports = {H.make(H.IMPORT, i) for i, imp in enumerate(imports) if imp.name is None}
        flow = self._flow if self._flow is not None and self._flow.by_name else None
        flowing = {name for _, name in flow.by_name} if flow is not None else set()
        typed = bool(self._modtypes or self._member_types or flow
                     or any(s.types for s in scopes))
        inst_memo: dict[tuple[str, str, str, int], str] = {}
        refs: list[Reference] = []
        self_bytes = {n.encode() for n in self_names}
        for key, si, ei in zip(keys, scope_idx, encl):
            role = role_at[key]
            end = end_at[key]
            name = data[key:end].decode("utf-8", "replace")
            qualifier = ""
            stored = b""  # the qualifier with `()` marks (manifest `call_chains_marked`)
            qs = qual_start.get(end)
            if qs is None or qs >= key:
                qs = recv_start.get(key)
            given = taken.get(key)
            built = given is not None and given.endswith(CONSTRUCTED)
            if given is not None or (qs is not None and qs < key):
                raw = given.removesuffix(CONSTRUCTED) + b"." if given is not None \
                    else data[qs:key]
                for token in self._optional:  # `a?.b.m()`, `f()!.m()`: the path `a.b`
                    raw = raw.replace(token.encode(), b".")
                raw = raw.rstrip(SEPARATORS)
                if self._subscripts is not None and raw.split(b"[", 1)[0] not in self_bytes:
                    raw = self._subscripts.sub(b"", raw)  # `xs![0].m`: a member of xs's element
                if key in doc_keys:  # `{@link Cls#member}`: an instance member of Cls
                    raw = raw.rstrip(b"#").replace(b"#", b".")
                if self._seps:  # `a::b` is the qualifier `a.b`; a leading or trailing
                    for sep in self._seps:  # separator (PHP's `\A\B\`) is dropped
                        raw = raw.removeprefix(sep).replace(sep, b".")
                    raw = raw.rstrip(b".")
                if not DOTTED.match(raw) and self._chains and raw not in self._supers:
                    if self._constructed is not None:  # `new T(x).m()`: as `T(x).m()`
                        raw = self._constructed.sub(rb"\1", raw, count=1)
                    raw = call_path(raw, self._chains, mark=self._marked,
                                     assertions=self._assertions)
                    if self._marked:  # match with the path, store it with its `()` marks
                        stored, raw = raw, raw.replace(b"()", b"")
                if DOTTED.match(raw):
                    qualifier = SPACE.sub("", raw.decode("utf-8", "replace"))
                else:
                    qualifier = "?"
            if key in literal_types:
                qualifier = literal_types[key]
            if given is not None and qualifier == "?":  # a receiver not read as a path
                gaps.append((key, end, "token:object_pattern"))
                continue
            if role == "import" and key in import_at:
                head = H.make(H.IMPORT, import_at[key])
            elif qualifier == "?" and self._literal_receiver is not None and \
                    self._literal_receiver.match(data[qs:key]):
                head = H.EXTERN  # `",".join(x)`, `"é".encode()`: a member of a builtin literal
            elif qualifier == "?" and self._elements is not None and qs is not None and \
                    (sub := self._subscript_head(data[qs:key], si, scopes, defs, modbind)):
                qualifier, head = sub  # `xs[0].m`: a member of the element's type
                stored = b""
            elif qualifier == "?":
                head = H.EXPR
                if self._supers and data[qs:key].rstrip(SEPARATORS) in self._supers:  # `super().m`
                    owner = self._self_head(si, scopes, defs)
                    if owner.startswith(_SELF):
                        head = H.make(H.SUPER, H.split(owner)[1])
            else:
                first = qualifier.split(".", 1)[0] if qualifier else name
                if qualifier and first in self_names:
                    head = self_heads.get(si, "")
                    if not head:
                        head = self_heads[si] = self._self_head(si, scopes, defs)
                else:
                    head = memo.get((first, si), "")
                    if not head:
                        head = self._lookup(first, si, scopes, modbind)
                        memo[(first, si)] = head
                    if head == H.SELF:  # a receiver bound by @local.self
                        head = self._self_head(si, scopes, defs) if qualifier else H.LOCAL
                known = None
                if flow is not None and qualifier and first in flowing and \
                        not head.startswith(_SELF):
                    bound_in = self._binding_scope(first, si, scopes)
                    text = flow.at(bound_in, first, key) if bound_in is not None else None
                    known = (text, bound_in) if text and bound_in is not None else None
                if built:  # `const { a } = new C(…)`: an instance of C
                    known = (qualifier, si)
                if known is not None:  # the type a binding or a test gives this use
                    head = self._instance_head(first, qualifier, head, si, scopes, modbind,
                                               known=known)
                elif typed and qualifier:  # a receiver of known type: ``inst:`` head
                    member = qualifier.split(".", 2)[1] if "." in qualifier else ""
                    mkey = (head, member, first, si)  # a field of a struct written in place
                    inst = inst_memo.get(mkey)
                    if inst is None:
                        inst = inst_memo[mkey] = self._instance_head(first, qualifier, head, si,
                                                                     scopes, modbind)
                    head = inst
            if key in doc_keys and H.split(head)[0] in (H.FREE, H.EXPR, H.LOCAL):
                continue  # a doc link to a name not in scope: tsc resolves none
            if given is not None and head in H.UNKNOWN_RECEIVERS:
                gaps.append((key, end, "token:object_pattern"))  # a receiver of unknown
                continue  # type: counted as before, not a name-matched candidate
            if not qualifier and (head in H.LOCAL_KINDS or (head == H.FREE and name in builtins)
                                  or (head in module_imports and role == "read")):
                # a local, a builtin or a module object: never a project definition
                gaps.append((key, end, "local" if head in H.LOCAL_KINDS else
                             "builtin" if head == H.FREE else "module"))
                continue
            line = bisect_right(line_starts, key) - 1
            col = key - line_starts[line]
            if stored and qualifier != "?":
                qualifier = SPACE.sub("", stored.decode("utf-8", "replace"))
            if sources is not None:
                counts.append(A.call_count(data, end, sources) if role == "call"
                              else A.UNKNOWN)
            if key in tags:
                head = H.make(H.TAG, head)
            refs.append(Reference(name, line + 1, col, col + (end - key), role,
                                  enclosing_ivs[ei][0] if ei >= 0 else -1, qualifier, head))
        self._tokens = self._token_rows(gaps, line_starts)
        return refs

    def _gaps(self, ignored: dict[int, Node], named: set[int], tokens: Iterable[Node],
              role_at: dict[int, str], end_at: dict[int, int]) -> list[tuple[int, int, str]]:
        """The identifier tokens no reference is made of, as (start, end, why): the
        @ignore captures (why `ignore:` the kind of the token's parent — looked through
        the manifest's `tokens.paths` kinds — or of the ignored node when it is no token) and the tokens of the manifest's kinds no pattern
        captures (`token:` their parent's kind); definitions' names are no gap."""
        kinds = self.pack.token_kinds
        tokens_data = self.pack.manifest.get("tokens", {})
        paths = frozenset(tokens_data.get("paths", ())) if isinstance(tokens_data, dict) \
            else frozenset()
        out: list[tuple[int, int, str]] = []
        for start, n in ignored.items():
            if start in named or n.end_byte == start:
                continue
            if n.type in kinds and n.child_count == 0:
                parent = n.parent
                while parent is not None and parent.type in paths:  # `a.b.C`: what path
                    parent = parent.parent
                out.append((start, n.end_byte, "ignore:" + (parent.type if parent else "")))
            elif start in role_at:
                out.append((start, end_at[start], "ignore:" + n.type))
        for n in tokens:
            start = n.start_byte
            if start in role_at or start in ignored or start in named or \
                    n.end_byte == start or n.child_count:
                continue
            parent = n.parent
            out.append((start, n.end_byte, "token:" + (parent.type if parent else "")))
        return out

    def _token_rows(self, gaps: list[tuple[int, int, str]], line_starts: list[int]
                    ) -> tuple[tuple[str, str, str], ...]:
        data = self.data
        seen: set[int] = set()
        out: dict[tuple[bytes, str], list[str]] = {}
        for start, end, why in gaps:
            if start in seen:
                continue
            seen.add(start)
            line = bisect_right(line_starts, start) - 1
            out.setdefault((data[start:end], why), []).append(
                f"{line + 1}:{start - line_starts[line]}")
        return tuple((name.decode("utf-8", "replace"), why, " ".join(places))
                     for (name, why), places in out.items())

    def _literal_keys(self, nodes: Iterable[Node], role_at: dict[int, str],
                      end_at: dict[int, int]) -> dict[int, str]:
        """Keys of composite literals (@key): role `ref`, qualified by the literal's type
        (the nearest enclosing node with a `type` field, at most four levels up), when
        that type is a dotted name."""
        out: dict[int, str] = {}
        for n in nodes:
            lit = n.parent
            for _ in range(4):
                if lit is None or lit.child_by_field_name("type") is not None:
                    break
                lit = lit.parent
            typ = lit.child_by_field_name("type") if lit is not None else None
            text = self.data[typ.start_byte:typ.end_byte] if typ is not None else b""
            if DOTTED.match(text):
                out[n.start_byte] = text.decode("utf-8", "replace")
                role_at[n.start_byte] = "ref"
                end_at[n.start_byte] = n.end_byte
        return out



UNPARSED = "unparsed"  # FileFacts.tokens' reason of a word of a file given no facts


def words(data: bytes, why: str) -> tuple[tuple[str, str, str], ...]:
    """Every word of a file the extractor gave up on, as FileFacts.tokens rows: its
    identifiers are not told from its comments and strings, but none goes uncounted."""
    return blanked_tokens(data, b"", why)


def extract(pack: LanguagePack, data: bytes) -> FileFacts:
    """Extract definitions, references, imports and diagnostics. Never raises on bad code:
    a file too deeply nested, or whose parse and queries exceed the parse budget
    (syntax/budget.py), gives no facts and one diagnostic saying why."""
    extractor: _Extractor | None = None
    try:
        extractor = _Extractor(pack, data, Budget())
        return extractor.run()
    except RecursionError:
        return FileFacts(pack.name, (), (), (), (Diagnostic(1, 1, 0, "too deeply nested"),), 0,
                         tokens=words(data, UNPARSED))
    except OverBudget as exc:  # the parse finished, its queries did not: keep its errors
        found = [] if extractor is None else \
            diagnostics(pack, extractor.root, data)
        # The pack's recovery patterns still read the file's top-level definitions.
        lines = data.count(b"\n") + 1
        return FileFacts(pack.name, tuple(read_definitions(pack, data, [(1, lines)])), (), (),
                         (*found, not_analysed(exc)), 0, tokens=words(data, UNPARSED))
