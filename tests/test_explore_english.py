"""Explore for plain English (docs/explore.md): stop words ignored, identifiers split, names
and comment words both count, neighbours named in the text."""

from __future__ import annotations

import re
from pathlib import Path

from fixture import commit_all, write_files

from spyglass.query.facade import CodeIntel
from spyglass.render import render

FILES = {
    "term/__init__.py": "",
    "term/table.py": (
        "class Table:\n"
        "    def render_rows(self, rows):\n"
        "        return [self.render_cell(c) for c in rows]\n"
        "\n"
        "    def render_cell(self, cell):\n"
        "        return str(cell)\n"
        "\n"
        "\n"
        "def print_table(table):\n"
        "    return Table().render_rows(table)\n"),
    "term/live.py": (
        "class _RefreshThread:\n"
        "    def done(self):\n"
        "        return True\n"
        "\n"
        "    def how(self):\n"
        "        return None\n"),
    "web/router.go": (
        "package web\n"
        "\n"
        "// lookup finds the handler whose route pattern matches the request path.\n"
        "func lookup(path string) string {\n"
        "\treturn path\n"
        "}\n"
        "\n"
        "func parseConfigFile(name string) string { return name }\n"
        "\n"
        "func other() {}\n"),
    "go.mod": "module example.com/app\n",
    "cfg/__init__.py": "",
    "cfg/loader.py": (
        "def parse_config_file(path):\n"
        "    \"\"\"Read the settings.\"\"\"\n"
        "    return path\n"),
}


def _intel(tmp_path: Path) -> CodeIntel:
    write_files(tmp_path, FILES)
    commit_all(tmp_path)
    ci = CodeIntel(tmp_path)
    ci.index()
    return ci


def _ranked(ci: CodeIntel, query: str) -> list[str]:
    return [r.symbol for r in ci.explore(query, budget=4000).results]  # type: ignore[attr-defined]


def test_stop_words_do_not_match_names(tmp_path: Path) -> None:
    ci = _intel(tmp_path)
    ranked = _ranked(ci, "how is rendering of tables done")
    assert ranked[0].startswith("table.Table") or ranked[0].startswith("term.table"), ranked
    assert "term.live._RefreshThread.done" not in ranked[:3], ranked
    assert "term.live._RefreshThread.how" not in ranked, ranked


def test_identifiers_split_in_every_style(tmp_path: Path) -> None:
    ci = _intel(tmp_path)
    top = _ranked(ci, "where is the config file parsed")[:2]
    assert set(top) == {"web.parseConfigFile", "cfg.loader.parse_config_file"}, top


def test_comment_words_find_a_definition_its_name_does_not(tmp_path: Path) -> None:
    ci = _intel(tmp_path)
    ranked = _ranked(ci, "how are routes matched to handlers")
    assert ranked[0] == "web.lookup", ranked


def test_text_names_callers_and_callees(tmp_path: Path) -> None:
    ci = _intel(tmp_path)
    text = render(ci.explore("render rows", budget=4000), "code_explore")
    line = next(x for x in text.splitlines() if x.startswith("term.table.Table.render_rows:"))
    assert "callers term.table.print_table (term/table.py:" in line, line
    assert "callees term.table.Table.render_cell (term/table.py:5)" in line, line


def _files(ci: CodeIntel, query: str) -> tuple[str, ...]:
    files = dict(ci.explore(query, budget=4000).extra)["files"]
    assert isinstance(files, tuple)
    return files


def test_files_section_ranks_files_by_their_matches_and_text(tmp_path: Path) -> None:
    ci = _intel(tmp_path)
    files = _files(ci, "render table rows")
    assert files[0] == "term/table.py", files
    # A file whose text alone has the words (a log message, no matching name) is listed.
    write_files(tmp_path, {"serve/stop.py": "def stop():\n    log('graceful shutdown')\n"})
    files = _files(ci, "graceful shutdown")
    assert files[0] == "serve/stop.py", files
    text = render(ci.explore("graceful shutdown", budget=4000), "code_explore")
    assert "files: serve/stop.py" in text, text


def test_the_evidence_counts_exact_inferred_and_name_matched_uses_apart(tmp_path: Path) -> None:
    ci = _intel(tmp_path)
    write_files(tmp_path, {"term/use.py": (
        "from term.table import print_table\n"
        "\n"
        "\n"
        "def show(t, thing):\n"
        "    print_table(t)\n"
        "    thing.render_rows(t)\n")})
    result = ci.explore("print table", budget=4000)
    why = next(r.evidence for r in result.results  # type: ignore[attr-defined]
               if r.symbol == "term.table.print_table")  # type: ignore[attr-defined]
    # one import and one call, both resolved to the definition: exact, in one file
    assert "2 reference(s): 2 exact and 0 inferred in 1 file(s), 0 name-matched" in why, why
    result = ci.explore("render rows", budget=4000)
    why = next(r.evidence for r in result.results  # type: ignore[attr-defined]
               if r.symbol == "term.table.Table.render_rows")  # type: ignore[attr-defined]
    assert "uncertain" not in why and "name-matched" in why, why
    assert "0 name-matched" not in why, why  # `thing.render_rows`: matched by its name only


def test_the_evidence_counts_add_up_to_the_total(tmp_path: Path) -> None:
    ci = _intel(tmp_path)
    counts = re.compile(r"(\d+) reference\(s\): (\d+) exact and (\d+) inferred"
                        r"(?: in (\d+) file\(s\))?, (\d+) name-matched")
    seen = 0
    for question in ("render table rows", "parse config file", "how are routes matched"):
        for r in ci.explore(question, budget=4000).results:
            m = counts.search(r.evidence)  # type: ignore[attr-defined]
            assert m, r.evidence  # type: ignore[attr-defined]
            total, exact, inferred, files, loose = (int(g or 0) for g in m.groups())
            assert exact + inferred + loose == total, r.evidence  # type: ignore[attr-defined]
            assert (files > 0) == (exact + inferred > 0), r.evidence  # type: ignore[attr-defined]
            seen += 1
    assert seen >= 3
