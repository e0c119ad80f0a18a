"""The PostgreSQL store's read path: IN lists sent as one array with the same rows, view
queries memoised until the session writes, and the index a name's references are read by."""

from __future__ import annotations

import psycopg
import pytest

from spyglass.index import postgres


def test_in_lists_become_one_array_parameter() -> None:
    t = postgres.translate("SELECT a FROM main.aliases a JOIN temp.vfiles f ON f.unit = a.unit "
                           "WHERE a.alias IN (?,?,?) AND a.unit = ? AND a.target NOT IN (?) "
                           "AND a.alias LIKE '%IN (?)%' AND a.target IN (?, 'x')")
    assert "a.alias = ANY(%s)" in t.sql and "a.target <> ALL(%s)" in t.sql
    assert "a.target IN (%s, 'x')" in t.sql  # a list with a literal stays as written
    assert "'%%IN (?)%%'" in t.sql  # nothing inside a string literal is touched
    assert t.bind(["p", "q", "r", 7, "s", "t"]) == (["p", "q", "r"], 7, ["s"], "t")
    # one statement text for every length: prepared once, planned once
    assert postgres.translate("SELECT 1 FROM temp.vfiles WHERE unit IN (?)").sql == \
        postgres.translate("SELECT 1 FROM temp.vfiles WHERE unit IN (?,?,?,?)").sql


def test_only_view_queries_over_facts_are_memoisable() -> None:
    def memo(sql: str) -> bool:
        return postgres.memoisable(postgres.translate(sql).sql)
    assert memo("SELECT r.line FROM main.refs r JOIN temp.vfiles f ON f.unit = r.unit "
                "WHERE r.name = ?")
    assert not memo("SELECT MAX(id) FROM snapshots WHERE state='completed'")
    assert not memo("SELECT f.path FROM main.snapshot_files f JOIN temp.vfiles v "
                    "ON v.path = f.path")  # membership changes with every snapshot
    assert not memo("SELECT 1 FROM main.bases b WHERE b.unit = ?")  # not scoped to the view
    assert not memo("SELECT 1 FROM temp.vfiles f, jobs j")
    assert not memo("DELETE FROM temp.vfiles WHERE path = ?")


def test_the_memo_ends_when_the_session_writes(pg_url: str, repo_id: str) -> None:
    conn = postgres.Connection(pg_url, repo_id)
    try:
        conn.executescript("CREATE TEMP TABLE IF NOT EXISTS vfiles(path TEXT PRIMARY KEY, "
                           "unit INTEGER, language TEXT, source TEXT NOT NULL, "
                           "stale INTEGER NOT NULL DEFAULT 0)")
        ask = "SELECT path FROM temp.vfiles WHERE unit IN (?, ?) ORDER BY path"
        conn.execute("INSERT INTO temp.vfiles(path, unit, source) VALUES(?, ?, ?)",
                     ("a.py", 1, "s"))
        assert conn.execute(ask, (1, 2)).fetchall() == [("a.py",)]
        assert conn.execute(ask, (1, 2)).fetchall() == [("a.py",)]  # memoised
        assert len(conn._memo) == 1
        conn.executemany("INSERT INTO temp.vfiles(path, unit, source) VALUES(?, ?, ?)",
                         [("b.py", 2, "s")])
        assert conn.execute(ask, (1, 2)).fetchall() == [("a.py",), ("b.py",)]
        conn.execute("DELETE FROM temp.vfiles WHERE path = ?", ("a.py",))
        assert conn.execute(ask, (1, 2)).fetchall() == [("b.py",)]
    finally:
        conn.close()


def test_the_store_reads_a_names_references_through_an_index(pg_url: str) -> None:
    postgres.Connection(pg_url, "", create=True).close()
    with psycopg.connect(pg_url, autocommit=True) as db:
        found = db.execute("SELECT indexdef FROM pg_indexes WHERE schemaname = %s AND "
                           "indexname = 'refs_name'", (postgres.SCHEMA_NAME,)).fetchone()
    assert found is not None and "(name)" in found[0]


@pytest.mark.parametrize("create", [True, False])
def test_a_writer_session_never_memoises(pg_url: str, repo_id: str, create: bool) -> None:
    conn = postgres.Connection(pg_url, repo_id, create=create)
    try:
        conn.executescript("CREATE TEMP TABLE IF NOT EXISTS vfiles(path TEXT PRIMARY KEY, "
                           "unit INTEGER, language TEXT, source TEXT NOT NULL, "
                           "stale INTEGER NOT NULL DEFAULT 0)")
        conn.execute("SELECT path FROM temp.vfiles WHERE unit = ?", (1,)).fetchall()
        assert bool(conn._memo) is not create
    finally:
        conn.close()
