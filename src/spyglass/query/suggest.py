"""Did-you-mean: definition names of the index close to one that matched nothing."""

from __future__ import annotations

import difflib

from spyglass.query.names import name_index
from spyglass.query.view import View

MAX_SUGGESTIONS = 3


def similar_names(view: View, name: str) -> list[str]:
    """Up to three definition names spelled like `name` (the last part of a qualified
    name): the same name in another case first, then the closest by edit similarity."""
    last = name.replace("#", ".").replace("/", ".").rsplit(".", 1)[-1]
    if not last or "*" in last or "?" in last:
        return []
    index = name_index(view)
    same_case = [index.names[i] for i in index.lowered.get(last.lower(), ())
                 if index.names[i] != last]
    pool = [n for n in index.names if abs(len(n) - len(last)) <= 2 and n != last]
    close = difflib.get_close_matches(last, pool, n=MAX_SUGGESTIONS, cutoff=0.75)
    lowered = {n.lower(): n for n in pool}
    close += [lowered[n] for n in difflib.get_close_matches(
        last.lower(), list(lowered), n=MAX_SUGGESTIONS, cutoff=0.75)]
    return list(dict.fromkeys(same_case + close))[:MAX_SUGGESTIONS]


def kinds(view: View) -> list[str]:
    """The definition kinds present in the index and the workspace."""
    return sorted({str(k) for (k,) in view.each(
        "SELECT DISTINCT d.kind FROM {defs} d JOIN temp.vfiles f ON f.unit = d.unit")})
