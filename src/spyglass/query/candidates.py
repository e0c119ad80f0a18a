"""Name-matched candidates of one answer: ranked most likely first, capped per answer.

A site whose receiver type is unknown (or whose name is unbound) is offered as an
uncertain candidate only because it shares the target's name. A common name (`append`,
`get`, `run`) can match hundreds of such sites; the answer keeps the most likely
``MAX_NAME_MATCHES`` and says in ``coverage.limitations`` how many it left out
(docs/accuracy.md, "Name-matched candidates").

Ranking, most likely first (ties in path and line order):

1. a receiver whose name is the target's class name (``cache.clear()`` for
   ``Cache.clear``, ``self._cache.clear()`` too), or a bare call in the target's own file;
2. a site in the target's file, then in its folder, then under its top folder;
3. every other site.
"""

from __future__ import annotations

from collections.abc import Callable

from spyglass.query.results import DefRow, RefRow

MAX_NAME_MATCHES = 100


def _norm(text: str) -> str:
    return text.replace("_", "").replace("#", "").lower()


def rank_key(d: DefRow, owner: str) -> Callable[[RefRow], tuple[int, int, str, int]]:
    """The sort key of a candidate site for target `d` (owner: its class name or "")."""
    folder = d.path.rsplit("/", 1)[0] if "/" in d.path else ""
    top = d.path.split("/", 1)[0] if "/" in d.path else ""
    cls = _norm(owner)

    def key(r: RefRow) -> tuple[int, int, str, int]:
        receiver = _norm(r.qualifier.replace("()", "").rsplit(".", 1)[-1]) \
            if r.qualifier else ""
        named = bool(cls) and bool(receiver) and (receiver == cls or receiver.endswith(cls))
        if r.path == d.path:
            place = 0
        elif folder and r.path.startswith(folder + "/"):
            place = 1
        elif top and r.path.startswith(top + "/"):
            place = 2
        else:
            place = 3
        first = 0 if named or (not r.qualifier and r.path == d.path) else 1
        return (first, place, r.path, r.line)
    return key


def rank_and_cap(d: DefRow, owner: str, rows: list[RefRow], cap: int = MAX_NAME_MATCHES
                 ) -> tuple[list[RefRow], str | None]:
    """The candidates kept (most likely first) and the limitation note for the rest."""
    if len(rows) <= cap:
        return rows, None
    ordered = sorted(rows, key=rank_key(d, owner))
    kept, left = ordered[:cap], ordered[cap:]
    shown = ", ".join(f"{r.path}:{r.line}" for r in left[:3])
    note = (f"{len(left)} name-matched candidate(s) for `{d.name}` left out: at most {cap} "
            f"per answer, most likely first (receiver named like the class, then nearest "
            f"to the definition); left out e.g. {shown}")
    return kept, note
