"""Explore's word index kept in the store (query/wordstore.py, docs/explore.md): the words of a
file version are read once, reused by later processes and snapshots, never kept for a file
that changed, and a damaged row is refused; the ranking is the one of the words read from
the files."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fixture import commit_all, write_files

from spyglass.index import confined
from spyglass.index.gc import collect
from spyglass.query import comments, wordstore
from spyglass.query.facade import CodeIntel
from spyglass.types import ToolResult

FILES = {
    "billing/invoice.py": (
        "# Invoices: totals with tax, rounded to cents.\n"
        "def total(lines):\n"
        "    \"\"\"Sum the invoice lines and add the tax.\"\"\"\n"
        "    return round(sum(lines) * 1.2, 2)\n"),
    "billing/refund.py": (
        "def refund(payment):\n"
        "    # a refund reverses the payment, never more than was paid\n"
        "    return -payment\n"),
    "mail/sender.py": (
        "def send(message, smtp):\n"
        "    \"\"\"Deliver the message through the smtp relay.\"\"\"\n"
        "    return smtp.deliver(message)\n"),
    "mail/template.py": (
        "def render(template, values):\n"
        "    return template.format(**values)\n"),
}
QUESTIONS = ("where is the tax added to an invoice", "how does a refund reverse a payment",
             "deliver a message through the relay", "render the mail template")


def _files(result: ToolResult) -> list[str]:
    return list(dict(result.extra)["files"])  # type: ignore[call-overload]


def _answers(root: Path) -> list[tuple[list[str], list[str]]]:
    ci = CodeIntel(root)
    out = []
    for q in QUESTIONS:
        r = ci.explore(q, budget=4000)
        out.append(([loc.symbol for loc in r.results], _files(r)))  # type: ignore[union-attr]
    return out


def _rows(root: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(root / ".spyglass" / "graph.db")
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def _write(root: Path, sql: str) -> None:
    conn = sqlite3.connect(root / ".spyglass" / "graph.db", isolation_level=None)
    try:
        conn.execute(sql)
    finally:
        conn.close()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_files(tmp_path, FILES)
    commit_all(tmp_path)
    CodeIntel(tmp_path).index()
    return tmp_path


class Reads:
    """Counts the files explore reads for its words."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[str] = []
        real = confined.read_or_none

        def read(root: Path, rel: str, limit: int) -> bytes | None:
            self.paths.append(rel)
            return real(root, rel, limit)

        monkeypatch.setattr(comments, "read_or_none", read)


def test_words_are_read_once_and_the_ranking_is_the_files_own(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads = Reads(monkeypatch)
    first = _answers(repo)
    assert sorted(set(reads.paths)) == sorted(FILES)  # the first question read every file
    assert len(_rows(repo, "SELECT unit FROM word_units")) == len(FILES)
    assert _rows(repo, "SELECT COUNT(*) FROM file_words WHERE stem = 'invoic'") == [(1,)]
    reads.paths.clear()
    again = _answers(repo)  # a new process: the store's words, no file read
    assert reads.paths == []
    assert again == first
    monkeypatch.setattr(wordstore.WordStore, "usable", staticmethod(lambda conn: False))
    assert _answers(repo) == first  # the words read from the files rank the same
    assert reads.paths  # (the control: without the store every file is read)
    assert first[0][1][0] == "billing/invoice.py" and first[1][1][0] == "billing/refund.py"


def test_a_changed_file_is_read_again_and_a_deleted_one_is_gone(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _answers(repo)
    (repo / "billing" / "refund.py").write_text(
        "def refund(payment):\n    # a chargeback cancels the card payment\n"
        "    return -payment\n")
    (repo / "mail" / "template.py").unlink()
    commit_all(repo, "change refund, drop the template")
    CodeIntel(repo).index()
    reads = Reads(monkeypatch)
    ci = CodeIntel(repo)
    assert "billing/refund.py" in _files(ci.explore("chargeback cancels the card", 4000))
    assert reads.paths == ["billing/refund.py"]  # only the changed file is read
    assert "mail/template.py" not in _files(ci.explore("render the mail template", 4000))
    assert "billing/refund.py" not in _files(ci.explore("reverses never more than was paid",
                                                        4000))  # its old words are gone
    before = _rows(repo, "SELECT COUNT(*) FROM word_units")[0][0]
    conn = sqlite3.connect(repo / ".spyglass" / "graph.db", isolation_level=None)
    try:
        collect(conn, 1)
        stale = conn.execute("SELECT COUNT(*) FROM word_units w WHERE NOT EXISTS (SELECT 1 "
                             "FROM units u WHERE u.id = w.unit)").fetchone()[0]
        left = conn.execute("SELECT COUNT(*) FROM file_words w WHERE NOT EXISTS (SELECT 1 "
                            "FROM units u WHERE u.id = w.unit)").fetchone()[0]
        after = conn.execute("SELECT COUNT(*) FROM word_units").fetchone()[0]
    finally:
        conn.close()
    assert (stale, left) == (0, 0) and after < before  # collected with their units


def test_overlay_edits_are_seen_and_never_kept(repo: Path) -> None:
    _answers(repo)
    (repo / "mail" / "sender.py").write_text(
        "def send(message, pigeon):\n    \"\"\"Carry the message by homing pigeon.\"\"\"\n"
        "    return pigeon.fly(message)\n")
    (repo / "mail" / "outbox.py").write_text(
        "def queue(message):\n    # the outbox holds a message until the pigeon returns\n"
        "    return [message]\n")
    ci = CodeIntel(repo)
    files = _files(ci.explore("homing pigeon carries the message", 4000))
    assert set(files[:2]) == {"mail/outbox.py", "mail/sender.py"}
    assert "mail/sender.py" not in _files(ci.explore("smtp relay", 4000))
    # the store keeps the committed version's words only (overlay units are never kept)
    assert _rows(repo, "SELECT COUNT(*) FROM word_units WHERE unit < 0") == [(0,)]
    assert _rows(repo, "SELECT COUNT(*) FROM file_words WHERE stem = 'pigeon'") == [(0,)]
    assert _rows(repo, "SELECT COUNT(*) FROM file_words WHERE stem = 'smtp'") == [(1,)]


@pytest.mark.parametrize("damage", [
    "UPDATE file_words SET n = -7 WHERE stem = 'invoic'",
    "UPDATE file_words SET n = 'many' WHERE stem = 'invoic'",
    ("UPDATE word_units SET length = x'00ff' WHERE unit = (SELECT unit FROM file_words WHERE "
     "stem = 'invoic')"),
    "UPDATE comment_words SET idx = -1 WHERE stem = 'tax'",
])
def test_a_damaged_row_is_refused_and_read_again(repo: Path, damage: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    first = _answers(repo)
    _write(repo, damage)
    _answers(repo)  # the damaged rows are refused (left out, the unit's rows dropped) ...
    _answers(repo)  # ... and the file read again and its words kept again
    reads = Reads(monkeypatch)
    assert _answers(repo) == first
    assert reads.paths == []
    assert _rows(repo, "SELECT MIN(n) FROM file_words") >= [(1,)]
    assert _rows(repo, "SELECT COUNT(*) FROM comment_words WHERE idx < 0") == [(0,)]


def test_words_of_a_file_changed_after_the_view_are_not_kept(repo: Path) -> None:
    """The bytes read are checked against the unit's content id before they are kept."""
    unit = _rows(repo, "SELECT id FROM units WHERE path = 'mail/sender.py'")[0][0]
    kept = wordstore.save(sqlite3.connect(repo / ".spyglass" / "graph.db"),
                          [(unit, "mail/sender.py", "0" * 40, wordstore.UnitWords(3, {"x": 1}))])
    assert kept == 0
    assert not wordstore.matches("0" * 40, b"def send(): pass\n")
