"""Explore's names kept in the store (query/namestore.py, docs/explore.md): the names of a unit
are computed from its facts once and kept; a later process reads only the keys of its
question's words and answers exactly as the names computed over the whole view
(query/names.py); overlay units are never kept, a damaged row is refused and computed again,
and the rows go with their unit."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fixture import commit_all, write_files

from spyglass.index.gc import collect
from spyglass.query import names, namestore
from spyglass.query.facade import CodeIntel
from spyglass.query.names import name_index, used_names
from spyglass.query.namestore import NameStore, name_store

FILES = {
    "util/durations.py": (
        "def parse_duration(text):\n    return int(text[:-1])\n\n\n"
        "def ParseDurationString(text):\n    return parse_duration(text)\n\n\n"
        "class DurationParser:\n    def parse(self, text):\n        return parse_duration(text)\n"),
    "net/headers.py": (
        "class HTTPHeaderReader:\n    def read_header(self, raw):\n"
        "        return parse_header_line(raw)\n\n\n"
        "def parse_header_line(raw):\n    return raw.split(':', 1)\n\n\n"
        "def reader(raw):\n    return HTTPHeaderReader().read_header(raw)\n"),
    "mail/sender.py": (
        "from net.headers import parse_header_line\n\n\n"
        "def send_message(message, smtp):\n    parse_header_line(message)\n"
        "    return smtp.deliver(message)\n\n\n"
        "def sendmail(message, smtp):\n    return send_message(message, smtp)\n"),
    "jobs/retry.py": (
        "from util.durations import parse_duration\n\n\n"
        "def retry_with_backoff(job, delay):\n    wait = parse_duration(delay)\n"
        "    return job(wait)\n\n\n"
        "def backoff(n):\n    return retry_with_backoff(lambda w: w, str(n) + 's')\n"),
}
# Query words as explore splits them: words, prefixes either way, a whole name, a substring.
QUERIES = [["parse", "duration"], ["pars"], ["parser"], ["http", "header"],
           ["http", "header", "reader"], ["eaderrea"], ["retry", "backoff"], ["send", "mail"],
           ["deliver"], ["nothing", "matches"], ["re"], ["header", "line", "parse"]]
EXPLORE = ("where is a duration parsed", "read the http header", "retry with backoff",
           "send a mail message")


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


Answers = list[tuple[list[tuple[float, str]], list[tuple[float, str, list[tuple[int, int]]]]]]


def _computed(ci: CodeIntel) -> Answers:
    """Every query's answers from the names computed over the whole view."""
    view = ci.view()
    used = used_names(view)
    return [(name_index(view).search(q, 5),
             [(s, n, used.users[n]) for s, n in used.index.search(q, 5)]) for q in QUERIES]


def _stored(ci: CodeIntel) -> Answers:
    ns = name_store(ci.view())
    return [(ns.defs(q, 5), ns.used(q, 5)) for q in QUERIES]


def _explore(root: Path) -> list[list[str]]:
    ci = CodeIntel(root)
    return [[loc.symbol for loc in ci.explore(q, budget=4000).results]  # type: ignore[union-attr]
            for q in EXPLORE]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_files(tmp_path, FILES)
    commit_all(tmp_path)
    CodeIntel(tmp_path).index()
    return tmp_path


def test_names_are_kept_once_and_answer_as_computed(repo: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert _rows(repo, "SELECT COUNT(*) FROM name_units") == [(0,)]  # not by `index`
    first = CodeIntel(repo)
    computed = _computed(first)
    assert _stored(first) == computed  # computed here (nothing kept yet), then kept
    units = _rows(repo, "SELECT COUNT(*) FROM units")[0][0]
    assert _rows(repo, "SELECT COUNT(*) FROM name_units") == [(units,)]
    again = CodeIntel(repo)
    ns = name_store(again.view())
    assert ns.kept and not ns.local.defs.names and not ns.local.users  # all from the store
    assert _stored(again) == _computed(again) == computed
    assert computed[0][0][0] == (0.95, "parse_duration")
    assert computed[4][0][0] == (1.0, "HTTPHeaderReader")
    assert computed[5][0] == [(0.3, "HTTPHeaderReader")]
    assert computed[9] == ([], [])
    explored = _explore(repo)
    monkeypatch.setattr(namestore, "usable", lambda conn: False)
    assert _explore(repo) == explored  # the names computed per view rank the same
    assert explored[0][0] == "durations.parse_duration"


def test_users_past_the_cap_are_the_first_by_unit_and_scope(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (names, namestore):
        monkeypatch.setattr(module, "MAX_USERS_PER_NAME", 1)
    first = CodeIntel(repo)
    computed = _computed(first)
    assert _stored(first) == computed
    assert _stored(CodeIntel(repo)) == computed
    assert all(len(u) <= 1 for _, used in computed for _, _, u in used)


def test_overlay_names_are_seen_and_never_kept(repo: Path) -> None:
    _stored(CodeIntel(repo))
    (repo / "mail" / "sender.py").write_text(
        "def send_by_pigeon(message, pigeon):\n    return pigeon.fly_home(message)\n")
    ci = CodeIntel(repo)
    assert _stored(ci) == _computed(ci)
    ns = name_store(ci.view())
    assert ns.defs(["pigeon"], 5) == [(0.8333, "send_by_pigeon")]
    assert [n for _, n, _ in ns.used(["fly"], 5)] == ["fly_home"]
    # the committed version's names are not the view's
    assert [n for _, n in ns.defs(["sendmail"], 5)] == ["send_by_pigeon"]
    assert _rows(repo, "SELECT COUNT(*) FROM name_units WHERE unit < 0") == [(0,)]
    assert _rows(repo, "SELECT COUNT(*) FROM name_keys WHERE name LIKE '%pigeon%'") == [(0,)]


@pytest.mark.parametrize("damage", [
    "UPDATE used_names SET scope = -1000 - scope WHERE name = 'parse_duration'",
    "UPDATE used_names SET scope = 'x' WHERE name = 'parse_header_line'",
    "UPDATE name_keys SET name = x'00ff' WHERE key = 'retry'",
])
def test_a_damaged_row_is_refused_and_computed_again(repo: Path, damage: str) -> None:
    computed = _computed(CodeIntel(repo))
    _stored(CodeIntel(repo))
    explored = _explore(repo)
    _write(repo, damage)
    _stored(CodeIntel(repo))  # refused: left out, the unit's rows dropped ...
    _stored(CodeIntel(repo))  # ... and computed and kept again
    if "name_keys" not in damage:
        assert _stored(CodeIntel(repo)) == computed and _explore(repo) == explored
    assert _rows(repo, "SELECT COUNT(*) FROM used_names WHERE typeof(scope) != 'integer' "
                       "OR scope < 0") == [(0,)]


def test_names_go_with_their_unit(repo: Path) -> None:
    _stored(CodeIntel(repo))
    (repo / "jobs" / "retry.py").unlink()
    commit_all(repo, "drop retry")
    CodeIntel(repo).index()
    ci = CodeIntel(repo)
    assert _stored(ci) == _computed(ci)
    assert name_store(ci.view()).defs(["retry"], 5) == []  # its key rows stay, not its names
    conn = sqlite3.connect(repo / ".spyglass" / "graph.db", isolation_level=None)
    try:
        collect(conn, 1)
        stale = [conn.execute(f"SELECT COUNT(*) FROM {t} n WHERE NOT EXISTS (SELECT 1 FROM "
                              "units u WHERE u.id = n.unit)").fetchone()[0]
                 for t in ("name_units", "used_names")]
    finally:
        conn.close()
    assert stale == [0, 0]


def test_a_store_without_the_tables_computes_every_name(repo: Path) -> None:
    _write(repo, "DROP TABLE name_keys")
    ci = CodeIntel(repo)
    ns = NameStore(ci.view())
    assert not ns.stored and not ns.kept
    assert _stored(ci) == _computed(ci)
