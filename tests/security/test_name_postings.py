"""Explore's name postings are written by a question (query/namestore.py), not by `index`: that
write goes only to the validated store file. A store file swapped for a link while a
question runs is never written through (the names are computed and answered all the same);
the control shows a plain SQLite write would go through the link."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

from fixture import commit_all, write_files

from spyglass.query import namestore
from spyglass.query.facade import CodeIntel

FILES = {"util/durations.py": "def parse_duration(text):\n    return int(text[:-1])\n\n\n"
                              "def wait(text):\n    return parse_duration(text)\n"}


def _count(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM name_units").fetchone()[0])
    finally:
        conn.close()


def test_a_store_swapped_for_a_link_is_not_written_through(tmp_path: Path) -> None:
    root, outside = tmp_path / "repo", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    write_files(root, FILES)
    commit_all(root)
    CodeIntel(root).index()
    ci = CodeIntel(root)
    view = ci.view()  # the store validated and open
    db = root / ".spyglass" / "graph.db"
    shutil.copy(db, outside / "victim.db")
    os.replace(db, root / ".spyglass" / "moved.db")
    os.symlink(outside / "victim.db", db)
    ns = namestore.name_store(view)
    assert [n for _, n in ns.defs(["parse", "duration"], 5)] == ["parse_duration"]
    assert [n for _, n, _ in ns.used(["duration"], 5)] == ["parse_duration"]
    assert _count(outside / "victim.db") == 0  # nothing written through the link
    # the control: a plain SQLite write follows the link
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("INSERT INTO name_units(unit) VALUES(1)")
    conn.close()
    assert _count(outside / "victim.db") == 1
