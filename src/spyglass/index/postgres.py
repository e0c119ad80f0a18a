"""The PostgreSQL store: a connection speaking the subset of sqlite3 the store's SQL uses.

The store's statements are written once, for SQLite; this module translates each one
(cached by its text) into PostgreSQL: `?` placeholders, `INSERT OR IGNORE/REPLACE`, GLOB,
`instr`, the `temp.` schema, and `lastrowid` through `RETURNING id`. Many repositories
share one database: their snapshots, jobs and events are kept apart by the repository id,
through session-private views named like the tables (PostgreSQL searches `pg_temp` first),
so the queries need not name a repository. Units are content-addressed and shared.
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from spyglass.index.schema import FACT_INDEXES, SCHEMA

SCHEMES = ("postgresql://", "postgres://")

# Tables whose integer primary key `id` the store numbers itself (SQLite's rowid alias).
IDENTITY_TABLES = ("units", "snapshots", "jobs", "events", "queue")
# Tables kept per repository: a session sees only its repository's rows through a view.
PER_REPO = {
    "snapshots": "repo = {repo}",
    "jobs": "repo = {repo}",
    "events": "job IN (SELECT id FROM {schema}.jobs WHERE repo = {repo}) OR snapshot IN "
              "(SELECT id FROM {schema}.snapshots WHERE repo = {repo})",
}
SCHEMA_NAME = "spyglass"  # the schema of the shared tables (the SQL's `main.`)

# Conflict targets of `INSERT OR REPLACE` / the primary keys of the store's tables.
_KEY = re.compile(r"PRIMARY KEY\s*\(([^)]*)\)", re.IGNORECASE)
_TEMP_WRITE = re.compile(r"\s*(?:INSERT INTO|DELETE FROM) pg_temp\.(\w+)", re.IGNORECASE)
# Fact tables: rows never change once written (units are content-addressed; only garbage
# collection deletes units no snapshot refers to). A view query over them and the session's
# own temp tables answers the same until the session writes again (Connection._memo).
FACTS = frozenset(("units", "defs", "bases", "refs", "imports", "aliases", "diags",
                   "tokens"))
MEMO_ROWS = 400_000  # rows memoised per session before the memo starts over
MEMO_ENTRY_ROWS = 20_000  # larger answers are never memoised
# Indexes the PostgreSQL store adds to the shared schema's: SQLite reads a name's refs by
# walking the view's units in the primary key; PostgreSQL would scan every repository's.
PG_INDEXES = ("CREATE INDEX IF NOT EXISTS refs_name ON refs(name)",)


def is_url(value: str | None) -> bool:
    """Whether a store location is a PostgreSQL URL (else a folder holding `.spyglass/`)."""
    return bool(value) and str(value).startswith(SCHEMES)


def redact(url: str) -> str:
    """`url` without its password (the one form a store URL is ever shown in)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "postgresql://…"
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    user = f"{parts.username}:***@" if parts.username else "***@"
    return urlunsplit((parts.scheme, user + host, parts.path, parts.query, parts.fragment))


def redact_text(text: str, url: str | None) -> str:
    """`text` with every occurrence of the store URL's password replaced."""
    if not url:
        return text
    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    if password:
        text = text.replace(password, "***")
    return text


@dataclass(frozen=True, slots=True)
class Translated:
    """One statement in PostgreSQL's dialect; `returning`: it yields the new row's id."""

    sql: str
    returning: bool
    # IN lists of placeholders sent as one array: (first parameter, count) in statement order
    arrays: tuple[tuple[int, int], ...] = ()

    def bind(self, params: Sequence[object]) -> tuple[object, ...]:
        """The parameters for `sql`: each IN list's values as one list (an array)."""
        if not self.arrays:
            return tuple(params)
        out: list[object] = []
        at = 0
        for first, count in self.arrays:
            out.extend(params[at:first])
            out.append(list(params[first:first + count]))
            at = first + count
        out.extend(params[at:])
        return tuple(out)


@functools.lru_cache(maxsize=4096)
def memoisable(sql: str) -> bool:
    """Whether a translated statement only reads the view (the session's temp tables) and
    fact tables: its answer stands until the session writes (the memo of Connection)."""
    if not sql.lstrip()[:6].upper().startswith(("SELECT", "WITH")) or "pg_temp." not in sql:
        return False
    words = {w.lower() for plain, text in _outside_strings(sql) if plain
             for w in re.findall(r"\w+", text)}
    return not words & _mutable_tables()


@functools.cache
def _mutable_tables() -> frozenset[str]:
    """Every table of the store but the fact tables (snapshots, jobs, the queue, …)."""
    return frozenset(t.lower() for t in _tables(SCHEMA + QUEUE_SCHEMA)) - FACTS


def _outside_strings(sql: str) -> Iterator[tuple[bool, str]]:
    """The statement cut into (outside a string literal?, text) pieces."""
    for i, piece in enumerate(re.split(r"('(?:[^']|'')*')", sql)):
        yield i % 2 == 0, piece


def _tables(schema: str) -> list[str]:
    """The tables a schema script creates."""
    return re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", schema)


def _keys(schema: str) -> dict[str, str]:
    keys: dict[str, str] = {}
    for stmt in schema.split(";"):
        m = re.search(r"CREATE (?:TEMP )?TABLE IF NOT EXISTS (?:temp\.)?(\w+)\s*\(", stmt)
        if not m:
            continue
        k = _KEY.search(stmt)
        if k:
            keys[m.group(1)] = k.group(1)
        elif re.search(r"\bid INTEGER PRIMARY KEY", stmt):
            keys[m.group(1)] = "id"
        elif re.search(r"\bpath TEXT PRIMARY KEY", stmt):
            keys[m.group(1)] = "path"
    return keys


@functools.cache
def _table_keys() -> dict[str, str]:
    keys = _keys(SCHEMA)
    keys["meta"] = "key"
    return keys


def _piece(text: str) -> str:
    text = text.replace("%", "%%").replace("?", "%s")
    text = re.sub(r"\bfull\b", '"full"', text)  # a column here, a keyword there
    text = re.sub(r"\btemp\.(\w+)", r"pg_temp.\1", text)
    text = re.sub(r"\bmain\.(\w+)", r"\1", text)
    text = re.sub(r"\binstr\(", "strpos(", text)
    text = re.sub(r"\bgroup_concat\((DISTINCT )?([\w.]+)\)", r"string_agg(\1\2::text, ',')",
                  text)
    # a negative start counts from the end in SQLite (PostgreSQL clips it to the start)
    text = re.sub(r"\bsubstr\(([\w.]+), -%s\)", r"right(\1, %s)", text)
    text = re.sub(r"\bGLOB\s+(%s)", r"~ spyglass_glob(\1)", text)
    text = re.sub(r"\bLIKE\b", "ILIKE", text)
    # SQLite's CROSS JOIN is an inner join in a fixed order (a planner hint)
    text = re.sub(r"\bCROSS JOIN\b(?=[^,]*?\bON\b)", "JOIN", text)
    return text


@functools.lru_cache(maxsize=4096)
def translate(sql: str) -> Translated:
    """The PostgreSQL form of one of the store's SQLite statements."""
    if re.match(r"\s*BEGIN\s+(IMMEDIATE|EXCLUSIVE|DEFERRED)\s*$", sql, re.IGNORECASE):
        return Translated("BEGIN", False)
    # the catalogue: whether one of the store's indexes exists
    sql = re.sub(r"\bsqlite_master WHERE\s+type = 'index' AND name\b",
                 "pg_indexes WHERE schemaname = current_schema() AND indexname", sql)
    sql = re.sub(r"\bsqlite_master WHERE name = \?",
                 "pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE "
                 "n.nspname = current_schema() AND c.relname = ?", sql)
    out = "".join(_piece(t) if plain else t.replace("%", "%%")
                  for plain, t in _outside_strings(sql))
    head = out.lstrip()[:40].upper()
    returning = False
    m = re.match(r"\s*INSERT OR (IGNORE|REPLACE) INTO (?:pg_temp\.)?(\w+)", out, re.IGNORECASE)
    if m:
        mode, table = m.group(1).upper(), m.group(2)
        out = re.sub(r"INSERT OR (?:IGNORE|REPLACE) INTO", "INSERT INTO", out, count=1,
                     flags=re.IGNORECASE)
        if mode == "IGNORE":
            out += " ON CONFLICT DO NOTHING"
        else:
            key = _table_keys().get(table.removeprefix("o"))
            cols = re.search(rf"INTO (?:pg_temp\.)?{table}\s*\(([^)]*)\)", out)
            names = [c.strip() for c in cols.group(1).split(",")] if cols else []
            keyset = [k.strip() for k in (key or "").split(",")]
            sets = [f"{c} = EXCLUDED.{c}" for c in names if c not in keyset]
            if key and sets:
                out += f" ON CONFLICT ({key}) DO UPDATE SET {', '.join(sets)}"
            else:
                out += " ON CONFLICT DO NOTHING"
    elif head.startswith("INSERT INTO"):
        t = re.match(r"\s*INSERT INTO (\w+)\s*\(([^)]*)\)", out, re.IGNORECASE)
        if t and t.group(1) in IDENTITY_TABLES and "RETURNING" not in out.upper() \
                and "id" not in [c.strip() for c in t.group(2).split(",")]:
            out += " RETURNING id"
            returning = True
    out, arrays = _arrays(out)
    return Translated(out, returning, arrays)


_PLACEHOLDER = re.compile(r"\b(NOT\s+)?IN\s*\(\s*(%s(?:\s*,\s*%s)*)\s*\)|(?<!%)%s",
                          re.IGNORECASE)


def _arrays(sql: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """`x IN (%s, …)` as `x = ANY(%s)` (`NOT IN`: `<> ALL`), one array parameter: the same
    rows, one statement text whatever the list's length (prepared once), and a list PostgreSQL
    reads through an index rather than comparing every row with each value."""
    groups: list[tuple[int, int]] = []
    seen = 0

    def one(m: re.Match[str]) -> str:
        nonlocal seen
        if m.group(2) is None:
            seen += 1
            return m.group(0)
        count = m.group(2).count("%s")
        groups.append((seen, count))
        seen += count
        return "<> ALL(%s)" if m.group(1) else "= ANY(%s)"

    pieces = []
    for plain, text in _outside_strings(sql):
        pieces.append(_PLACEHOLDER.sub(one, text) if plain else text)
    return "".join(pieces), tuple(groups)


def ddl(script: str) -> list[str]:
    """SQLite DDL (the store's schema, its indexes, the overlay's temp tables) as
    PostgreSQL statements."""
    out: list[str] = []
    script = re.sub(r"--[^\n]*", "", script)
    for raw in script.split(";"):
        stmt = raw.strip()
        if not stmt:
            continue
        stmt = stmt.replace("WITHOUT ROWID", "")
        stmt = re.sub(r"\bfull\b", '"full"', stmt)
        table = re.search(r"CREATE (?:TEMP )?TABLE IF NOT EXISTS (\w+)", stmt)
        if table and table.group(1) in IDENTITY_TABLES:
            stmt = stmt.replace("id INTEGER PRIMARY KEY",
                                "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
        stmt = re.sub(r"\bINTEGER\b", "BIGINT", stmt)
        # Units are content-addressed: two builds may store the same one concurrently,
        # each keeping its own id (a duplicate is harmless; a conflict would tear a build).
        stmt = re.sub(r",\s*UNIQUE\(path, blob, pack, ctx\)", "", stmt)
        m = re.match(r"CREATE INDEX IF NOT EXISTS temp\.(\w+) ON (\w+)", stmt)
        if m:
            stmt = stmt.replace(f"temp.{m.group(1)} ON {m.group(2)}",
                                f"{m.group(1)} ON pg_temp.{m.group(2)}")
        out.append(stmt)
    return out


GLOB_FUNCTION = r"""
CREATE OR REPLACE FUNCTION spyglass_glob(pattern text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT '^' || replace(replace(
    regexp_replace(pattern, '([.+(){}|\\$^])', '\\\1', 'g'), '*', '.*'), '?', '.') || '$'
$$
"""


class Cursor:
    """The rows of one statement, as sqlite3's cursor offers them."""

    def __init__(self, rows: list[tuple[Any, ...]], rowcount: int,
                 lastrowid: int | None) -> None:
        self._rows = rows
        self._at = 0
        self.rowcount = rowcount
        self.lastrowid = lastrowid

    def fetchone(self) -> tuple[Any, ...] | None:
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]

    def fetchall(self) -> list[tuple[Any, ...]]:
        rows = self._rows[self._at:]
        self._at = len(self._rows)
        return rows

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        while (row := self.fetchone()) is not None:
            yield row


class Connection:
    """A PostgreSQL connection with the sqlite3 methods the store uses, scoped to one
    repository (its snapshots, jobs and events; the shared content-addressed facts)."""

    # Many workers share the store: a commit indexed before is served as it is (never
    # copied for another clone's path or ref, which would duplicate its snapshot).
    shared = True

    def __init__(self, url: str, repo: str, *, create: bool = False) -> None:
        import psycopg
        from psycopg.types.numeric import NumericLoader

        class _Numeric(NumericLoader):
            """sum()/avg() of integers are NUMERIC in PostgreSQL; integers in SQLite."""

            def load(self, data: Any) -> Any:
                value = super().load(data)
                if isinstance(value, Decimal):
                    return int(value) if value == value.to_integral_value() else float(value)
                return value

        self.url = url
        self.repo = repo
        self.lock = threading.RLock()
        self._stale_stats: set[str] = set()
        # (statement, parameters) → (rows, rowcount) of view queries, until the next write
        self._memo: dict[tuple[str, tuple[object, ...]], tuple[list[tuple[Any, ...]], int]] = {}
        self._memo_rows = 0
        self._memo_on = not create  # readers only: a build's lookups always ask the store
        try:
            self._pg = psycopg.connect(url, autocommit=True, connect_timeout=10,
                                       application_name="spyglass")
        except psycopg.Error as exc:
            from spyglass.errors import IndexUnavailable
            raise IndexUnavailable(
                f"cannot reach the store {redact(url)}: "
                f"{redact_text(str(exc).strip().splitlines()[0] if str(exc) else 'error', url)}"
            ) from None
        self._pg.adapters.register_loader("numeric", _Numeric)
        self._pg.execute(f"SET search_path TO {SCHEMA_NAME}, public")
        with self._errors():
            if create:
                self._create_schema()
            self._scope()

    # -- set-up ----------------------------------------------------------------------------
    def _create_schema(self) -> None:
        """Create the tables once. Never re-run on an existing store: `CREATE INDEX IF NOT
        EXISTS` locks its table even when the index exists, and would deadlock with a
        build inserting rows in another order."""
        wanted = [*_tables(SCHEMA + QUEUE_SCHEMA), "snapshot_files_snap",
                  *(i.split()[5] for i in PG_INDEXES)]
        row = self._pg.execute(
            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relname = ANY(%s)", (SCHEMA_NAME, wanted)).fetchone()
        if row is not None and row[0] == len(wanted):
            return  # every table (a newer spyglass's new ones included) and the last index
        with self._pg.transaction():
            self._pg.execute("SELECT pg_advisory_xact_lock(7281901)")
            self._pg.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA_NAME}")
            for stmt in ddl(SCHEMA) + ddl(FACT_INDEXES) + ddl(QUEUE_SCHEMA):
                self._pg.execute(stmt.encode())
            self._pg.execute(GLOB_FUNCTION.encode())
            self._pg.execute("CREATE INDEX IF NOT EXISTS units_key ON units(path, blob, pack, ctx)")
            self._pg.execute("CREATE INDEX IF NOT EXISTS snapshot_files_snap "
                             "ON snapshot_files(snapshot)")
            for stmt in PG_INDEXES:
                self._pg.execute(stmt.encode())

    def _scope(self) -> None:
        """Session views naming the repository's rows like the shared tables."""
        lit = "'" + self.repo.replace("'", "''") + "'"
        for table, where in PER_REPO.items():
            self._pg.execute(
                f"CREATE OR REPLACE TEMP VIEW {table} AS SELECT * FROM {SCHEMA_NAME}.{table} "
                f"WHERE {where.format(repo=lit, schema=SCHEMA_NAME)}".encode())

    # -- the sqlite3 subset ------------------------------------------------------------------
    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus
        return bool(self._pg.info.transaction_status != TransactionStatus.IDLE)

    def execute(self, sql: str, params: Sequence[object] = ()) -> Cursor:
        stripped = sql.strip()
        upper = stripped[:16].upper()
        if upper.startswith("PRAGMA"):
            return self._pragma(stripped)
        t = translate(sql)
        key = (t.sql, tuple(params))
        values = t.bind(params)
        memo = self._memo_on and memoisable(t.sql)
        with self.lock, self._errors():
            if memo and (hit := self._memo.get(key)) is not None:
                return Cursor(hit[0], hit[1], None)
            if not self._note_temp_writes(t.sql) and self._stale_stats \
                    and not self.in_transaction_of_writes(t.sql):
                for table in sorted(self._stale_stats):
                    self._pg.execute(f"ANALYZE pg_temp.{table}".encode())
                self._stale_stats.clear()
            if not memo and self.in_transaction_of_writes(t.sql) \
                    and not t.sql.lstrip().upper().startswith(("BEGIN", "COMMIT")):
                self._forget()
            cur = self._pg.execute(t.sql, values)
            rows = cur.fetchall() if cur.description is not None else []
            if memo and len(rows) <= MEMO_ENTRY_ROWS:
                if self._memo_rows + len(rows) > MEMO_ROWS:
                    self._forget()
                self._memo[key] = (rows, cur.rowcount)
                self._memo_rows += len(rows) + 1
        lastrowid = int(rows[0][0]) if t.returning and rows else None
        return Cursor([] if t.returning else rows, cur.rowcount, lastrowid)

    def _forget(self) -> None:
        """Drop the memo of view queries (the session wrote: its view may have changed)."""
        self._memo.clear()
        self._memo_rows = 0

    def executemany(self, sql: str, seq: Iterable[Sequence[object]]) -> Cursor:
        t = translate(sql)
        rows = [t.bind(r) for r in seq]
        if not rows:
            return Cursor([], 0, None)
        with self.lock, self._errors(), self._pg.cursor() as cur:
            self._note_temp_writes(t.sql)
            self._forget()
            cur.executemany(t.sql.removesuffix(" RETURNING id") if t.returning else t.sql, rows)
            return Cursor([], cur.rowcount, None)

    def executescript(self, script: str) -> None:
        with self.lock, self._errors():
            self._forget()
            for stmt in ddl(script):
                self._pg.execute(stmt.encode())

    def close(self) -> None:
        self._pg.close()

    def errors(self) -> contextlib.AbstractContextManager[None]:
        """Database errors of the team store's own SQL (through `raw`) as the store's
        one-line errors, without the URL's password."""
        return self._errors()

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """A database error as the store's one-line error, without the URL's password."""
        import psycopg

        from spyglass.errors import IndexUnavailable
        try:
            yield
        except psycopg.errors.InsufficientPrivilege:
            raise IndexUnavailable(
                f"the team store {redact(self.url)} is read-only for this role: answers "
                "read it; indexing needs a writer role (`spyglass worker`, docs/team.md)"
            ) from None
        except psycopg.OperationalError as exc:
            first = (str(exc).strip().splitlines() or ["error"])[0]
            raise IndexUnavailable(f"the team store {redact(self.url)} failed: "
                                   f"{redact_text(first, self.url)}") from None

    # -- the team store's own ------------------------------------------------------------
    @property
    def raw(self) -> Any:
        """The psycopg connection (autocommit), for the team store's own SQL (the queue)."""
        return self._pg

    def reserve_ids(self, table: str, count: int) -> int:
        """Reserve `count` consecutive ids of `table` for a build's new rows: the id after
        which they start (every allocator takes the same transaction lock)."""
        seq = f"{SCHEMA_NAME}.{table}_id_seq"
        with self.lock, self._pg.transaction():
            self._pg.execute("SELECT pg_advisory_xact_lock(7281902)")
            row = self._pg.execute(
                "SELECT GREATEST((SELECT last_value FROM " + seq + "), "
                "(SELECT COALESCE(MAX(id), 0) FROM " + f"{SCHEMA_NAME}.{table}" + "))"
            ).fetchone()
            start = int(row[0]) if row else 0
            self._pg.execute("SELECT setval(%s, %s)", (seq, max(start + max(count, 0), 1)))
        return start

    def advisory_lock(self, name: str, *, shared: bool = False, wait: bool = True) -> bool:
        """Take a session lock named `name` (released on unlock or when the session ends:
        a killed process holds nothing). False: not taken (wait=False and it is held)."""
        fn = ("pg_advisory_lock" if wait else "pg_try_advisory_lock") + \
            ("_shared" if shared else "")
        with self.lock:
            row = self._pg.execute(f"SELECT {fn}(hashtextextended(%s, 0))",
                                   (name,)).fetchone()
        return wait or bool(row and row[0])

    def advisory_unlock(self, name: str, *, shared: bool = False) -> None:
        fn = "pg_advisory_unlock" + ("_shared" if shared else "")
        with self.lock:
            self._pg.execute(f"SELECT {fn}(hashtextextended(%s, 0))", (name,))

    def _note_temp_writes(self, sql: str) -> bool:
        """PostgreSQL never analyses temporary tables by itself: the overlay's tables are
        analysed before the next query once they were written (a plan made for an empty
        table would scan the baseline's facts in the wrong order). True: `sql` writes one."""
        m = _TEMP_WRITE.match(sql)
        if m:
            self._stale_stats.add(m.group(1))
        return m is not None

    @staticmethod
    def in_transaction_of_writes(sql: str) -> bool:
        """Statements that are not queries (transaction control, other writes)."""
        return not sql.lstrip()[:6].upper().startswith(("SELECT", "WITH"))

    def _pragma(self, stmt: str) -> Cursor:
        if "database_list" in stmt:  # the facade's check that the store is still there
            return Cursor([(0, "main", redact(self.url))], 1, None)
        return Cursor([], 0, None)


# The job queue of `spyglass worker` (docs/team.md): one row per (repository, ref) job.
QUEUE_SCHEMA = """
CREATE TABLE IF NOT EXISTS queue(
  id INTEGER PRIMARY KEY, repo TEXT NOT NULL, ref TEXT NOT NULL, state TEXT NOT NULL,
  enqueued_at TEXT NOT NULL, lease_until DOUBLE PRECISION NOT NULL DEFAULT 0,
  worker TEXT NOT NULL DEFAULT '', attempts INTEGER NOT NULL DEFAULT 0,
  snapshot INTEGER, error TEXT);
"""
