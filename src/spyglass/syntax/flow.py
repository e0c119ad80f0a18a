"""Position-aware types of locals (manifest `flow_types`): the type a name has at one use,
from the binding that surely ran last before it, or a type test guarding the use.

A local bound several times with different types has no single type for the file
(syntax/extract.py's per-scope table says "unknown"). At a use, the latest binding of the
name before it decides when that binding is a plain assignment whose block encloses the
use (it ran, and nothing re-bound the name since) or a parameter with a declared type
(the type holds until a re-binding), or when the use sits in the block an
`isinstance(name, T)` test guards (the test's T, from the block's start). A plain
assignment in a `try` body whose handlers all leave (`raise`, `return`, …) decides the rest
of the block holding the `try` too, but for its handlers and `finally`: past the `try`,
the assignment surely ran (`try: url = URL(s)` / `except E: raise …` / `url.host`). Anything else
(a binding in a branch, a loop target, a binding later in a loop that holds the use)
leaves the use undecided: a parameter's declared type then holds (a type checker checks
every re-binding against it, so it bounds them all: `resp: Response` re-bound by
`resp = self.send(…)` later in a loop is a Response at the loop's start); any other name
is left to the per-scope table. Flow-insensitive facts are never made worse: a use gets a
type here only where one binding, a test or a declaration decides it.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from tree_sitter import Node


@dataclass(frozen=True, slots=True)
class FlowRules:
    """The grammar's node types: statement blocks, assignments, loops, and bindings that
    keep a name's type (`x += 1`) (manifest `flow_types`)."""

    blocks: frozenset[str]
    assignments: frozenset[str]
    loops: frozenset[str]
    keeps: frozenset[str]
    parameters: frozenset[str] = frozenset()  # typed parameters: the type holds until re-bound
    tries: frozenset[str] = frozenset()  # `try` statements (their `body` field the guarded block)
    handlers: frozenset[str] = frozenset()  # their handler clauses (`except …:`)
    exits: frozenset[str] = frozenset()  # statements leaving a block (`raise`, `return`)
    finals: frozenset[str] = frozenset()  # clauses run whether or not the body finished


@dataclass(frozen=True, slots=True)
class _Binding:
    at: int  # where the binding takes effect (byte)
    lo: int  # the bytes it surely decides: [lo, hi)
    hi: int
    text: str  # the type ("" unknown: the use is left to the per-scope table)
    loops: tuple[tuple[int, int], ...]  # loops holding the binding
    declared: bool = False  # a parameter's declared type: it bounds every re-binding
    holes: tuple[tuple[int, int], ...] = ()  # ranges within [lo, hi) it does not decide


@dataclass
class FlowTypes:
    """The bindings and type tests of each (scope, name), in order; `at` answers a use.
    Only names bound more than once or tested are kept (`done`): for the others the
    per-scope table already says all there is."""

    rules: FlowRules
    by_name: dict[tuple[int, str], list[_Binding]] = field(default_factory=dict)
    _raw: dict[tuple[int, str], list[tuple[Node, str]]] = field(default_factory=dict)
    _tested: set[tuple[int, str]] = field(default_factory=set)
    _ats: dict[tuple[int, str], list[int]] = field(default_factory=dict)

    def bind(self, scope: int, name: str, node: Node, text: str | None) -> None:
        """A binding of `name` at `node` (its identifier); `text` its type, "" unknown,
        None a binding keeping the name's type (`x = x.m()`, `x += 1`): not recorded."""
        parent = node.parent
        if text is None or (parent is not None and parent.type in self.rules.keeps):
            return
        self._raw.setdefault((scope, name), []).append((node, text))

    def narrow(self, scope: int, name: str, block: Node, text: str) -> None:
        """A type test (`isinstance(name, T)`) guarding `block`: there `name` is a T."""
        self._tested.add((scope, name))
        self.by_name.setdefault((scope, name), []).append(
            _Binding(block.start_byte, block.start_byte, block.end_byte, text, ()))

    def done(self) -> None:
        for key, raw in self._raw.items():
            if len(raw) > 1 or key in self._tested:
                self.by_name.setdefault(key, []).extend(self._binding(n, t) for n, t in raw)
        self._raw.clear()
        for key, bindings in self.by_name.items():
            bindings.sort(key=lambda b: b.at)
            self._ats[key] = [b.at for b in bindings]

    def at(self, scope: int, name: str, pos: int) -> str | None:
        """The type of `name` (bound in `scope`) at byte `pos`, when a binding or a test
        surely decides it; None: ask the per-scope table."""
        bindings = self.by_name.get((scope, name))
        if not bindings:
            return None
        i = bisect_right(self._ats[(scope, name)], pos)
        if i == 0:
            return None
        # undecided: a parameter's declared type holds (it bounds every re-binding)
        declared = next((b.text for b in bindings[:i] if b.declared and b.lo <= pos < b.hi),
                        "") or None
        for later in bindings[i:]:  # a binding after the use, in a loop holding it
            if any(lo <= pos < hi for lo, hi in later.loops):
                return declared
        last = bindings[i - 1]
        decided = last.text and last.lo <= pos < last.hi and not any(
            lo <= pos < hi for lo, hi in last.holes)
        return last.text if decided else declared

    def _binding(self, node: Node, text: str) -> _Binding:
        """A plain assignment decides the rest of its block from its statement's end;
        any other binding (a loop target, `with … as`, unpacking) decides nothing."""
        parent = node.parent
        if parent is not None and parent.type in self.rules.parameters:
            func = parent.parent.parent if parent.parent is not None else None
            if func is not None:  # its declared type, over the function, until re-bound
                return _Binding(node.start_byte, node.end_byte, func.end_byte, text, (),
                                declared=True)
        if parent is None or parent.type not in self.rules.assignments or \
                parent.child_by_field_name("left") != node:
            return _Binding(node.start_byte, 0, 0, "", self._loops(node))
        stmt = parent
        while stmt.parent is not None and stmt.parent.type not in self.rules.blocks:
            stmt = stmt.parent
        if stmt.parent is None:
            return _Binding(node.start_byte, 0, 0, "", self._loops(node))
        guarded = self._past_try(stmt.parent)
        if guarded is not None:
            hi, holes = guarded
            return _Binding(stmt.end_byte, stmt.end_byte, hi, text, self._loops(node),
                            holes=holes)
        return _Binding(stmt.end_byte, stmt.end_byte, stmt.parent.end_byte, text,
                        self._loops(node))

    def _past_try(self, block: Node) -> tuple[int, tuple[tuple[int, int], ...]] | None:
        """For the body of a `try` whose handlers all leave (their last statement exits),
        the end of the block holding the `try`, and the clauses within it that the body's
        bindings do not decide (handlers, `finally`); None for any other block."""
        rules = self.rules
        stmt = block.parent
        if stmt is None or stmt.type not in rules.tries or \
                stmt.child_by_field_name("body") != block:
            return None
        outer = stmt.parent
        if outer is None or outer.type not in rules.blocks:
            return None
        holes = []
        for clause in stmt.named_children:
            if clause.type in rules.handlers:
                body = clause.named_children[-1] if clause.named_children else None
                last = body.named_children[-1] if body is not None and body.named_children \
                    else None
                if last is None or last.type not in rules.exits:
                    return None
                holes.append((clause.start_byte, clause.end_byte))
            elif clause.type in rules.finals:
                holes.append((clause.start_byte, clause.end_byte))
        return outer.end_byte, tuple(holes)

    def _loops(self, node: Node) -> tuple[tuple[int, int], ...]:
        out = []
        up = node.parent
        while up is not None:
            if up.type in self.rules.loops:
                out.append((up.start_byte, up.end_byte))
            up = up.parent
        return tuple(out)
