"""Parse diagnostics: tree-sitter ERROR and MISSING nodes as located messages."""

from __future__ import annotations

from tree_sitter import Node

from spyglass.syntax.langpack import LanguagePack
from spyglass.types import Diagnostic

MAX_DIAGNOSTICS = 200  # per file (past it, the rest of the file counts as broken)
# The parser inserted a missing statement terminator and read on: every token of the text
# is in a complete tree, nothing nests differently (a statement macro's invocation without
# its `;`, `STEP(F, a, b)` on its own line). Where the pack says so (manifest
# `statement_macros`), reported as a warning: no region around it is broken.
MISSING_TERMINATOR = "missing ;"
# How the warning ends that stands for the errors past the bounds (its lines run on to the
# file's end: query/accounting.py reads them as broken).
UNREPORTED = "not reported"
MAX_WALK = 100_000  # nodes examined per file, whatever its depth


def diagnostics(pack: LanguagePack, root: Node, data: bytes | None = None) -> list[Diagnostic]:
    """Up to MAX_DIAGNOSTICS located syntax errors of a parsed tree, in file order.

    An iterative walk that descends only into nodes containing an error and examines at
    most MAX_WALK nodes (a query over a deeply nested broken tree is quadratic in its
    depth); when it stops early, a last warning says so. `data` is the parsed text, used
    for the snippets (else each node's own text is copied)."""
    if not root.has_error:
        return []
    out: list[Diagnostic] = []
    cursor = root.walk()
    walked = 0
    counted = 0.0
    pieces = pack.manifest.get("error_pieces") is True
    terminators = pack.manifest.get("statement_macros") is True
    stopped = ""
    while True:
        node = cursor.node
        assert node is not None
        walked += 1
        if node.is_missing or node.is_error:
            # an error node counts once, however many pieces it is reported as (`_pieces`),
            # an inserted `;` (MISSING_TERMINATOR: it breaks nothing) for half
            if counted >= MAX_DIAGNOSTICS:
                stopped = f"more than {MAX_DIAGNOSTICS} syntax errors; the rest {UNREPORTED}"
                break
            if node.is_error and pieces:
                out.extend(_pieces(node, data))
            else:
                out.append(_located(node, data, terminators))
            counted += 0.5 if node.is_missing and node.type == ";" and terminators else 1
        if walked >= MAX_WALK:
            stopped = f"syntax errors after the first {MAX_WALK} nodes examined {UNREPORTED}"
            break
        if node.has_error and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                break
        else:
            continue
        break
    if not out:
        out.append(Diagnostic(1, 1, 0, "syntax error"))
    out.sort(key=lambda d: (d.line, d.col))
    if stopped:  # the rest of the file, from the last error reported, is not known good
        last = out[-1]
        out.append(Diagnostic(last.line, max(last.end_line, root.end_point[0] + 1), last.col,
                              stopped, "warning"))
    return out


def _located(node: Node, data: bytes | None, terminators: bool = False) -> Diagnostic:
    """A node's message; an inserted `;` is a warning where the pack says statement macros
    are written without theirs (manifest `statement_macros`: it breaks no region)."""
    if node.is_missing:
        msg = f"missing {node.type}"  # MISSING_TERMINATOR for `;`
        if terminators and msg == MISSING_TERMINATOR:
            return Diagnostic(node.start_point[0] + 1, node.end_point[0] + 1,
                              node.start_point[1], msg, "warning")
    else:
        raw = data[node.start_byte:node.start_byte + 30] if data is not None \
            else (node.text or b"")[:30]
        snippet = raw.decode("utf-8", "replace").split("\n")[0]
        msg = f"syntax error near {snippet!r}"
    return Diagnostic(node.start_point[0] + 1, node.end_point[0] + 1, node.start_point[1], msg)


def _intact(node: Node) -> bool:
    """A construct read whole inside an error: named, over several lines, without an error
    but inserted `;`s (a function the parser closed although the `#if` around it did
    not)."""
    if not node.is_named or node.is_extra or node.is_error \
            or node.end_point[0] == node.start_point[0]:
        return False
    return not node.has_error or _only_terminators(node)


def _only_terminators(node: Node) -> bool:
    """Whether every error under `node` is a missing `;` (MISSING_TERMINATOR; at most
    MAX_WALK nodes examined, else no)."""
    stack = [node]
    walked = 0
    while stack:
        n = stack.pop()
        walked += 1
        if walked > MAX_WALK or n.is_error or (n.is_missing and n.type != ";"):
            return False
        stack.extend(c for c in n.children if c.has_error or c.is_missing or c.is_error)
    return True


def _pieces(node: Node, data: bytes | None) -> list[Diagnostic]:
    """An ERROR node as located messages (manifest `error_pieces`): the whole node, or —
    when the parser still read
    whole constructs inside it — one per run of lines its other children hold (the
    constructs' lines are no error's: an unbalanced `#if` around a file's functions
    breaks the directive's line, not every function's)."""
    children = node.children
    if not any(_intact(c) for c in children):
        return [_located(node, data)]
    runs: list[tuple[int, int, Node]] = []
    for c in children:
        if _intact(c) or c.is_extra or (c.is_named and not c.is_error and c.has_error):
            continue  # a construct with errors inside: the walk reports those
        start, end = c.start_point[0], c.end_point[0]
        if runs and start <= runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], max(end, runs[-1][1]), runs[-1][2])
        else:
            runs.append((start, end, c))
    if not runs:
        return [_located(node, data)]
    out: list[Diagnostic] = []
    for start, end, first in runs:
        raw = data[first.start_byte:first.start_byte + 30] if data is not None \
            else (first.text or b"")[:30]
        snippet = raw.decode("utf-8", "replace").split("\n")[0]
        out.append(Diagnostic(start + 1, end + 1, first.start_point[1],
                              f"syntax error near {snippet!r}"))
    return out
