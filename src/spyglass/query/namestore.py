"""Explore's names in the store: the words of every definition name and used name, and the
names each unit's definitions use, kept by unit so a question reads only the names of its
own words (docs/explore.md, "The name postings")."""

from __future__ import annotations

import heapq
import sqlite3
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from spyglass.index.store import Conn, chunks, location, marks, side_write
from spyglass.query.names import MAX_USERS_PER_NAME, NameIndex, ordered, rank_key, words
from spyglass.query.view import View

MAX_NAME = 1 << 16  # a stored name or key longer than this is refused
WALK = 200  # ranked candidates checked against the view per round
TABLES = ("name_units", "name_keys", "used_names")
User = tuple[int, int]  # (unit, scope) of a definition using a name


def keys(name: str) -> set[str]:
    """A name's keys: its words, and '=' + the whole name in lower case."""
    return {*words(name), "=" + name.lower()}


def usable(conn: Conn) -> bool:
    """Whether the store holds the name tables (a store made before them gets them at its
    next `spyglass index`; the team store keeps none: names are computed per view)."""
    if not isinstance(conn, sqlite3.Connection) or not location(conn):
        return False
    found = conn.execute("SELECT COUNT(*) FROM main.sqlite_master WHERE type='table' AND "
                         f"name IN ({marks(TABLES)})", TABLES).fetchone()[0]
    return bool(found == len(TABLES))


def _text(value: object) -> bool:
    return type(value) is str and 0 < len(value) <= MAX_NAME


@dataclass
class Local:
    """The names of the view's units the store does not hold (overlay units, units not kept
    yet, or every unit where the store keeps no names), computed from their facts."""

    defs: NameIndex
    used: NameIndex
    users: dict[str, list[User]] = field(default_factory=dict)


def _local(view: View, units: list[int]) -> Local:
    names: set[str] = set()
    users: dict[str, set[User]] = {}
    for chunk in chunks(units):
        names.update(str(n) for (n,) in view.each(
            "SELECT DISTINCT d.name FROM {defs} d JOIN temp.vfiles f ON f.unit = d.unit "
            f"WHERE d.unit IN ({marks(chunk)})", tuple(chunk)))
        for name, unit, scope in view.each(
                "SELECT DISTINCT r.name, r.unit, r.scope FROM {refs} r JOIN temp.vfiles f ON "
                f"f.unit = r.unit WHERE r.scope >= 0 AND r.unit IN ({marks(chunk)})",
                tuple(chunk)):
            users.setdefault(str(name), set()).add((int(str(unit)), int(str(scope))))
    return Local(NameIndex.build(sorted(names)), NameIndex.build(sorted(users)),
                 {n: sorted(u)[:MAX_USERS_PER_NAME] for n, u in users.items()})


class NameStore:
    """The view's definition names and used names, searched by word: the store's postings
    for the units it keeps (read per question, only the keys of the question's words) and
    names computed from the facts for the rest (kept in the store for the next process)."""

    def __init__(self, view: View) -> None:
        self.conn = view.conn
        units = sorted({int(str(u)) for (u,) in view.each(
            "SELECT DISTINCT unit FROM temp.vfiles WHERE unit IS NOT NULL")})
        self.stored = usable(view.conn)
        self.kept: set[int] = set()
        if self.stored:
            for chunk in chunks(u for u in units if u > 0):
                self.kept.update(u for (u,) in view.conn.execute(
                    f"SELECT unit FROM main.name_units WHERE unit IN ({marks(chunk)})", chunk)
                    if type(u) is int)
        missing = [u for u in units if u not in self.kept]
        self.local = _local(view, missing)
        self.refused: set[int] = set()
        self._orders: dict[tuple[tuple[str, ...], bool], list[tuple[float, str]]] = {}
        if self.stored:
            save(view.conn, [u for u in missing if u > 0])

    # -- the store's candidates ------------------------------------------------------------
    def _vocabulary(self, query: list[str], whole: bool) -> set[str]:
        """Names of the store's keys matching the query's words (or, `whole`, the names
        holding the whole query as a substring)."""
        if not self.stored or not self.kept:
            return set()
        compact = "".join(query)
        rows: list[tuple[object, ...]] = []
        if whole:
            rows += self.conn.execute(
                "SELECT key, name FROM main.name_keys WHERE key >= '=' AND key < '>' AND "
                "instr(key, ?) > 1", (compact,)).fetchall()
        else:
            exact = {"=" + compact, *query}
            for q in query:
                if len(q) >= 3:
                    exact.update(q[:k] for k in range(3, len(q)))
                    rows += self.conn.execute(
                        "SELECT key, name FROM main.name_keys WHERE key > ? AND key < ?",
                        (q, q + "\U0010ffff")).fetchall()
            for chunk in chunks(sorted(exact)):
                rows += self.conn.execute(
                    f"SELECT key, name FROM main.name_keys WHERE key IN ({marks(chunk)})",
                    chunk).fetchall()
        return {name for k, name in rows if _text(k) and _text(name)}  # type: ignore[misc]

    def _present_defs(self, names: list[str]) -> set[str]:
        found: set[str] = set()
        for chunk in chunks(names):
            found.update(str(n) for (n,) in self.conn.execute(
                "SELECT DISTINCT d.name FROM main.defs d JOIN temp.vfiles f ON f.unit = d.unit "
                f"WHERE d.name IN ({marks(chunk)})", chunk))
        return found

    def users(self, name: str) -> list[User]:
        """The definitions of the view using `name` (the first MAX_USERS_PER_NAME by unit
        and scope)."""
        out = list(self.local.users.get(name, ()))
        if self.stored and self.kept:
            bad: set[int] = set()
            for unit, scope in self.conn.execute(
                    "SELECT u.unit, u.scope FROM main.used_names u JOIN temp.vfiles f ON "
                    "f.unit = u.unit WHERE u.name = ? ORDER BY u.unit, u.scope LIMIT ?",
                    (name, MAX_USERS_PER_NAME)):
                if type(unit) is not int or unit not in self.kept or unit in self.refused:
                    continue
                if type(scope) is int and 0 <= scope <= 1 << 31:
                    out.append((unit, scope))
                else:
                    bad.add(unit)
            if bad:
                self._refuse(bad)
                out = [u for u in out if u[0] not in bad]
        return sorted(set(out))[:MAX_USERS_PER_NAME]

    def _refuse(self, units: set[int]) -> None:
        """Leave these units' stored names out from now on, and drop them from the store so
        the next question computes them again."""
        new = units - self.refused
        if new:
            self.refused |= new
            save(self.conn, [], new)

    # -- searches --------------------------------------------------------------------------
    def _search(self, query: list[str], limit: int, local: NameIndex,
                present: Callable[[list[str]], set[str]]) -> list[tuple[float, str]]:
        if not query:
            return []
        compact = "".join(query)
        for whole in (False, True):
            if whole and len(compact) < 4:
                break
            mine = local.containing(compact) if whole else local.matching(query)
            order = self._order(query, whole, mine)
            found: set[str] = set()
            for i in range(0, len(order), WALK):
                batch = [n for _, n in order[i:i + WALK]]
                found |= {n for n in batch if n in mine} | present(
                    [n for n in batch if n not in mine])
                if len(found) >= limit:
                    break
            if found:
                return [(round(s, 4), n) for s, n in order if n in found][:limit]
        return []

    def _order(self, query: list[str], whole: bool, mine: set[str]) -> list[tuple[float, str]]:
        """The store's candidates and `mine` together, best first; the store's part scored
        once per query (the definition and the used-name searches share it)."""
        key = (tuple(query), whole)
        if key not in self._orders:
            self._orders[key] = ordered(query, self._vocabulary(query, whole))
        stored = self._orders[key]
        if not mine:
            return stored
        extra = ordered(query, mine - {n for _, n in stored})
        return list(heapq.merge(stored, extra, key=rank_key))

    def defs(self, query: list[str], limit: int) -> list[tuple[float, str]]:
        """The best `limit` definition names of the view for the query words, as
        names.NameIndex.search over every name of the view answers."""
        return self._search(query, limit, self.local.defs,
                            lambda names: self._present_defs(names) if self.kept else set())

    def used(self, query: list[str], limit: int) -> list[tuple[float, str, list[User]]]:
        """The best `limit` used names for the query words, each with its users."""
        seen: dict[str, list[User]] = {}

        def present(names: list[str]) -> set[str]:
            for n in names:
                seen[n] = self.users(n) if self.kept else []
            return {n for n in names if seen[n]}
        best = self._search(query, limit, self.local.used, present)
        return [(s, n, seen[n] if n in seen else self.users(n)) for s, n in best]


_CACHE: weakref.WeakKeyDictionary[View, tuple[object, NameStore]] = weakref.WeakKeyDictionary()


def name_store(view: View) -> NameStore:
    """The view's names, opened on first use and kept while the view is unchanged."""
    state = (view.snapshot.id if view.snapshot else None, view.changes.digest())
    cached = _CACHE.get(view)
    if cached is not None and cached[0] == state:
        return cached[1]
    found = NameStore(view)
    _CACHE[view] = (state, found)
    return found


def save(conn: Conn, units: Iterable[int], refused: Iterable[int] = ()) -> int:
    """Keep the names of these store units — the words of their definitions' and used
    names, and their used names by enclosing definition — taken from the units' own facts
    inside the write transaction, through a connection of its own (index/store.py's
    `open_file`: the validated store file, never a link); overlay units (negative ids) never.
    The rows of `refused` units are dropped (computed again next time). Waits SIDE_WAIT_MS (index/store.py) at
    most for another writer, then skips. Returns the units saved."""
    todo = sorted(u for u in set(units) if u > 0)
    dropped = sorted(u for u in set(refused) if u > 0)
    if not (todo or dropped):
        return 0
    return side_write(conn, lambda out: _write(out, todo, dropped), "names")


def _write(out: sqlite3.Connection, todo: list[int], dropped: list[int]) -> int:
    live: list[int] = []
    for chunk in chunks(todo):
        live += [int(u) for (u,) in out.execute(
            f"SELECT id FROM units WHERE id IN ({marks(chunk)})", chunk)]
    for chunk in chunks([*dropped, *live]):
        for table in ("name_units", "used_names"):
            out.execute(f"DELETE FROM {table} WHERE unit IN ({marks(chunk)})", chunk)
    for chunk in chunks(live):
        out.execute("INSERT OR IGNORE INTO used_names(name, unit, scope) SELECT DISTINCT "
                    f"name, unit, scope FROM refs WHERE scope >= 0 AND unit IN ({marks(chunk)})",
                    chunk)
        names = {str(n) for (n,) in out.execute(
            f"SELECT name FROM defs WHERE unit IN ({marks(chunk)}) UNION SELECT name FROM "
            f"used_names WHERE unit IN ({marks(chunk)})", chunk + chunk)}
        out.executemany("INSERT OR IGNORE INTO name_keys(key, name) VALUES(?, ?)",
                        sorted((k, n) for n in names if len(n) <= MAX_NAME for k in keys(n)))
        out.executemany("INSERT INTO name_units(unit) VALUES(?)", [(u,) for u in chunk])
    return len(live)
