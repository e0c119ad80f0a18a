"""Explore ranks free text with its files' relevance (query/relevance.py, docs/explore.md): a
file found by its words alone is represented by the definition holding them, files
interleave instead of one file's many weak matches filling the answer, path words count."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest
from fixture import commit_all, write_files

from spyglass.query import relevance, terms
from spyglass.query.facade import CodeIntel
from spyglass.types import CodeLocation, ToolResult

FILES = {
    "store/__init__.py": "",
    "store/lru.py": (
        "def size(table):\n"
        "    return len(table)\n"
        "\n"
        "\n"
        "def trim(table, limit):\n"
        "    while len(table) > limit:\n"
        "        table.pop()\n"
        "    raise ValueError('expired entries are evicted oldest first')\n"),
    "store/disk.py": (
        "def write(path, data):\n"
        "    return open(path, 'w').write(data)\n"),
    "paint/__init__.py": "",
    "paint/many.py": "".join(f"def render_{c}(x):\n    return x\n\n\n" for c in "abcdef"),
    "paint/frame.py": (
        "def draw(canvas):\n"
        "    \"\"\"Render the frame onto the canvas, border and all.\"\"\"\n"
        "    return canvas\n"),
    "net/__init__.py": "",
    "net/router.py": (
        "def lookup(table, path):\n"
        "    return table.get(path)\n"),
    "net/client.py": (
        "def send(path):\n"
        "    return path\n"),
}


def _intel(tmp_path: Path) -> CodeIntel:
    write_files(tmp_path, FILES)
    commit_all(tmp_path)
    ci = CodeIntel(tmp_path)
    ci.index()
    return ci


def _locs(result: ToolResult) -> list[CodeLocation]:
    return [cast(CodeLocation, r) for r in result.results]


def _ranked(ci: CodeIntel, query: str) -> list[str]:
    return [r.symbol for r in _locs(ci.explore(query, budget=4000))]


def test_a_file_found_by_its_words_alone_is_represented_by_the_definition_holding_them(
        tmp_path: Path) -> None:
    ci = _intel(tmp_path)
    ranked = _ranked(ci, "why are expired entries evicted")
    assert "store.lru.trim" in ranked[:2], ranked
    assert "store.lru.size" not in ranked, ranked
    result = ci.explore("why are expired entries evicted", budget=4000)
    files = dict(result.extra)["files"]
    assert isinstance(files, tuple) and files[0] == "store/lru.py", files
    why = next(r.evidence for r in _locs(result) if r.symbol == "store.lru.trim")
    assert "words of its file" in why, why


def test_files_interleave_rather_than_one_file_filling_the_answer(tmp_path: Path) -> None:
    ci = _intel(tmp_path)
    ranked = _ranked(ci, "render")
    # six name matches in one file, one docstring match in another: the other file's
    # definition comes before the first file's last ones, not after all six
    assert "paint.frame.draw" in ranked[:5], ranked
    assert sum(1 for s in ranked if s.startswith("paint.many.")) == 6, ranked


def test_a_word_of_the_path_finds_the_file(tmp_path: Path) -> None:
    ci = _intel(tmp_path)
    ranked = _ranked(ci, "which router is used")
    assert ranked[0] == "net.router.lookup", ranked


def test_the_answer_stays_within_its_budget(tmp_path: Path) -> None:
    ci = _intel(tmp_path)
    whole = ci.explore("render the frame and evict expired entries", budget=4000)
    small = ci.explore("render the frame and evict expired entries", budget=300)
    info = dict(small.extra)["query"]
    assert info.tokens <= 300, info  # type: ignore[attr-defined]
    assert small.truncated and len(small.results) < len(whole.results), small.results
    # what fits comes in the same order as in the whole answer
    assert [r.symbol for r in _locs(small)] == \
        [r.symbol for r in _locs(whole)][:len(small.results)]


def test_a_vague_question_leans_on_the_file_the_history_changes_most(tmp_path: Path) -> None:
    report = "def report_{i}(event):\n    return event.method + ' new ' + str({i})\n\n\n"
    files = {"report/__init__.py": "", "report/default.py": report.format(i=0),
             "tools/__init__.py": "",
             "tools/helpers.py": "def new_method():\n    return 'need'\n"}
    files.update({f"tools/{w}.py": f"def {w}(method, need):\n    return method.new(need)\n"
                  for w in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")})
    write_files(tmp_path, files)
    commit_all(tmp_path, "start")
    body = report.format(i=0)
    for i in range(1, 6):  # the repository keeps changing its reporter
        body += report.format(i=i)
        write_files(tmp_path, {"report/default.py": body})
        commit_all(tmp_path, f"report {i}")
    ci = CodeIntel(tmp_path)
    ci.index()
    vague = [r.path for r in _locs(ci.explore("No need for a new method.", budget=4000))]
    assert vague[0] == "report/default.py", vague
    # a specific question is answered by its words, whatever the history
    assert _ranked(ci, "charlie")[0] == "tools.charlie.charlie"
    specific = [r.path for r in _locs(ci.explore("the foxtrot helper", budget=4000))]
    assert specific[0] == "tools/foxtrot.py", specific


def test_a_question_is_answered_by_the_file_whose_commit_messages_say_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    body = "def {w}(lines, width):\n    return [line[:width] for line in lines]  # wide\n"
    names = ("alpha", "bravo", "charlie", "delta", "printer")
    write_files(tmp_path, {"tools/__init__.py": "", "view/__init__.py": "",
                           **{f"tools/{w}.py": body.format(w=w) for w in names[:-1]},
                           "view/printer.py": body.format(w="printer")})
    commit_all(tmp_path, "start")
    for w in names:  # every file changed as often: only the messages tell them apart
        path = "view/printer.py" if w == "printer" else f"tools/{w}.py"
        write_files(tmp_path, {path: body.format(w=w) + "\n# " + w + "\n"})
        commit_all(tmp_path, "Cut wide lines so the output never wraps" if w == "printer"
                   else f"Rename {w}'s helpers")
    ci = CodeIntel(tmp_path)
    ci.index()
    question = "Wide lines wrap the output"
    assert _locs(ci.explore(question, budget=4000))[0].path == "view/printer.py"
    monkeypatch.setattr(relevance, "HISTORY_WEIGHT", 0.0)  # without the messages: by words
    assert _locs(ci.explore(question, budget=4000))[0].path != "view/printer.py"


def test_a_common_word_finds_the_file_named_after_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `reporter` is everywhere (an interface, its users, every method's receiver); the file
    # named after it is the one the question is about, not the file defining `Reporter`
    emit = ("func Emit{i}(r Reporter, s string) {{\n\tif s == \"\" {{\n\t\tpanic(s)\n\t}}\n"
            "\tr.Emit(s)\n}}\n\n")
    central = "".join(emit.format(i=i) for i in range(6))
    steps = "".join(f"func (r *DefaultReporter) Step{i}(s string) {{ r.lines = append("
                    f"r.lines[:{i}], s) }}\n\n" for i in range(10))
    write_files(tmp_path, {
        "go.mod": "module example.com/app\n",
        "types/types.go": "package types\n\ntype Reporter interface{ Emit(string) }\n\n"
                          + central,
        "core.go": "package app\n\nimport \"example.com/app/types\"\n\n"
                   + central.replace("r Reporter", "r types.Reporter"),
        "reporters/default_reporter.go": (
            "package reporters\n\ntype DefaultReporter struct{ lines []string }\n\n" + steps
            + "func (r *DefaultReporter) Last() string {\n\tif len(r.lines) == 0 {\n"
              "\t\tpanic(\"empty\")\n\t}\n\treturn r.lines[0]\n}\n"),
        **{f"cmd/{w}.go": f"package cmd\n\nfunc {w.title()}() string {{ return \"{w}\" }}\n"
           for w in ("delta", "echo", "foxtrot", "golf")}})
    commit_all(tmp_path)
    ci = CodeIntel(tmp_path)
    ci.index()
    question = "Fix the reporter panic"
    assert _locs(ci.explore(question, budget=4000))[0].path == "reporters/default_reporter.go"
    monkeypatch.setattr(terms, "NAME_WEIGHT", 0.0)  # the name as a path word only
    assert _locs(ci.explore(question, budget=4000))[0].path == "types/types.go"
