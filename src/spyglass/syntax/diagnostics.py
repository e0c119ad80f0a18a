"""Parse diagnostics: tree-sitter ERROR and MISSING nodes as located messages."""

from __future__ import annotations

from tree_sitter import Node, Query, QueryCursor

from spyglass.syntax.langpack import LanguagePack
from spyglass.types import Diagnostic

MAX_DIAGNOSTICS = 50
_queries: dict[str, Query] = {}


def diagnostics(pack: LanguagePack, root: Node) -> list[Diagnostic]:
    """Up to MAX_DIAGNOSTICS located syntax errors of a parsed tree, in file order."""
    if not root.has_error:
        return []
    query = _queries.get(pack.name)
    if query is None:
        query = _queries[pack.name] = Query(pack.language, "(ERROR) @error (MISSING) @missing")
    cursor = QueryCursor(query, match_limit=256)
    out: list[Diagnostic] = []
    for name, nodes in cursor.captures(root).items():
        for node in nodes:
            if len(out) >= MAX_DIAGNOSTICS:
                break
            if name == "missing":
                msg = f"missing {node.type}"
            else:
                snippet = (node.text or b"")[:30].decode("utf-8", "replace").split("\n")[0]
                msg = f"syntax error near {snippet!r}"
            out.append(Diagnostic(node.start_point[0] + 1, node.end_point[0] + 1,
                                  node.start_point[1], msg))
    if not out:
        out.append(Diagnostic(1, 1, 0, "syntax error"))
    out.sort(key=lambda d: (d.line, d.col))
    return out
