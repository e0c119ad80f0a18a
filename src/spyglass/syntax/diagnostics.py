"""Parse diagnostics: tree-sitter ERROR and MISSING nodes as located messages."""

from __future__ import annotations

from tree_sitter import Node

from spyglass.syntax.langpack import LanguagePack
from spyglass.types import Diagnostic

MAX_DIAGNOSTICS = 50  # per file
# The parser inserted a missing statement terminator and read on: every token of the text
# is in a complete tree, nothing nests differently (a statement macro's invocation without
# its `;`, `STEP(F, a, b)` on its own line). Reported, but no region around it is broken.
MISSING_TERMINATOR = "missing ;"
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
    stopped = ""
    while True:
        node = cursor.node
        assert node is not None
        walked += 1
        if node.is_missing or node.is_error:
            if len(out) >= MAX_DIAGNOSTICS:
                stopped = f"more than {MAX_DIAGNOSTICS} syntax errors; the rest not reported"
                break
            out.append(_located(node, data))
        if walked >= MAX_WALK:
            stopped = f"syntax errors after the first {MAX_WALK} nodes examined not reported"
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
    if stopped:
        last = out[-1]
        out.append(Diagnostic(last.line, last.end_line, last.col, stopped, "warning"))
    return out


def _located(node: Node, data: bytes | None) -> Diagnostic:
    if node.is_missing:
        msg = f"missing {node.type}"  # MISSING_TERMINATOR for `;`
    else:
        raw = data[node.start_byte:node.start_byte + 30] if data is not None \
            else (node.text or b"")[:30]
        snippet = raw.decode("utf-8", "replace").split("\n")[0]
        msg = f"syntax error near {snippet!r}"
    return Diagnostic(node.start_point[0] + 1, node.end_point[0] + 1, node.start_point[1], msg)
