"""Did-you-mean: definition names of the index close to one that matched nothing."""

from __future__ import annotations

import difflib

from spyglass.query.view import View

MAX_SUGGESTIONS = 3


MAX_POOL = 20_000  # names compared by edit similarity at most (a kernel has 800k)


def similar_names(view: View, name: str) -> list[str]:
    """Up to three definition names spelled like `name` (the last part of a qualified
    name): the same name in another case first, then the closest by edit similarity.
    Bounded whatever the index's size: only names within two characters of its length
    are read (in SQL), past MAX_POOL of them only those sharing its first letter, and at
    most MAX_POOL are compared."""
    last = name.replace("#", ".").replace("/", ".").rsplit(".", 1)[-1]
    if not last or "*" in last or "?" in last or " " in last:
        return []
    pool = sorted({str(n) for (n,) in view.each(
        "SELECT DISTINCT d.name FROM {defs} d JOIN temp.vfiles f ON f.unit = d.unit "
        "WHERE length(d.name) BETWEEN ? AND ?", (len(last) - 2, len(last) + 2))} - {last})
    if len(pool) > MAX_POOL:
        first = last[0].lower()
        pool = [n for n in pool if n[:1].lower() == first][:MAX_POOL]
    same_case = [n for n in pool if n.lower() == last.lower()]
    close = difflib.get_close_matches(last, pool, n=MAX_SUGGESTIONS, cutoff=0.75)
    lowered = {n.lower(): n for n in pool}
    close += [lowered[n] for n in difflib.get_close_matches(
        last.lower(), list(lowered), n=MAX_SUGGESTIONS, cutoff=0.75)]
    return list(dict.fromkeys(same_case + close))[:MAX_SUGGESTIONS]


def kinds(view: View) -> list[str]:
    """The definition kinds present in the index and the workspace."""
    return sorted({str(k) for (k,) in view.each(
        "SELECT DISTINCT d.kind FROM {defs} d JOIN temp.vfiles f ON f.unit = d.unit")})
