"""Callees, type hierarchy and symbols asked for by qualified name, through the facade, the CLI
and HTTP: every qualified form means the definition its position means; an ambiguous name
is answered for every candidate, flagged, never guessed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fixture import write_files
from pgstore import store_backend  # noqa: F401 - the fixture, run on both stores

from spyglass.errors import BadInput
from spyglass.query.facade import CodeIntel
from spyglass.types import CodeLocation

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite, then PostgreSQL

GO = {
    "go.mod": "module example.com/zoo\n",
    "zoo/zoo.go": (
        "package zoo\n"
        "\n"
        "type Animal interface {\n"
        "\tSpeak() string\n"
        "}\n"
        "\n"
        "type Dog struct{}\n"
        "\n"
        "func (d *Dog) Speak() string { return helper() }\n"
        "\n"
        "func helper() string { return \"woof\" }\n"
        "\n"
        "func Chorus(a Animal) string { return a.Speak() }\n"),
    "cat/cat.go": (
        "package cat\n"
        "\n"
        "type Cat struct{}\n"
        "\n"
        "func (c *Cat) Speak() string { return \"meow\" }\n"),
}
TS = {
    "src/shapes.ts": (
        "export interface Shape {\n"
        "  area(): number;\n"
        "}\n"
        "\n"
        "export class Square implements Shape {\n"
        "  area(): number {\n"
        "    return 4;\n"
        "  }\n"
        "}\n"),
}
PY = {
    "pkg/__init__.py": "",
    "pkg/store.py": (
        "class Store:\n"
        "    def save(self, item):\n"
        "        return check(item)\n"
        "\n"
        "\n"
        "def check(item):\n"
        "    return item\n"),
}


def _repo(tmp_path: Path, files: dict[str, str]) -> CodeIntel:
    from fixture import commit_all
    write_files(tmp_path, files)
    commit_all(tmp_path)
    ci = CodeIntel(tmp_path)
    ci.index()
    return ci


def _where(result: object) -> set[tuple[str, int]]:
    return {(r.path, r.start_line) for r in result.results  # type: ignore[attr-defined]
            if isinstance(r, CodeLocation)}


@pytest.mark.parametrize("files, forms, position", [
    (GO, ["zoo.Dog.Speak", "Dog.Speak", "example.com/zoo/zoo.Dog.Speak",
          "example.com/zoo/zoo#Dog.Speak", "zoo/zoo.go:Dog.Speak"], ("zoo/zoo.go", 9)),
    (TS, ["shapes.Square.area", "Square.area", "src/shapes.Square.area",
          "src/shapes.ts:Square.area"], ("src/shapes.ts", 6)),
    (PY, ["pkg.store.Store.save", "Store.save", "store.Store.save", "pkg/store.py:Store.save"],
     ("pkg/store.py", 2)),
], ids=["go", "typescript", "python"])
def test_every_qualified_form_means_the_definition_at_its_position(
        tmp_path: Path, files: dict[str, str], forms: list[str],
        position: tuple[str, int]) -> None:
    ci = _repo(tmp_path, files)
    path, line = position
    for form in forms:
        assert _where(ci.find_symbol(form)) == {position}, form
        for tool in ("references", "callers", "callees", "type_hierarchy"):
            by_name = getattr(ci, tool)(name=form)
            by_position = getattr(ci, tool)(path=path, line=line)
            assert by_name.results == by_position.results, (form, tool)
            assert not [n for n in by_name.coverage.limitations if "ambiguous" in n]


def test_a_file_qualified_name_outside_the_file_is_not_found(tmp_path: Path) -> None:
    ci = _repo(tmp_path, GO)
    assert ci.find_symbol("cat/cat.go:Dog.Speak").results == ()
    with pytest.raises(BadInput, match="no definition named"):
        ci.callees(name="cat/cat.go:Dog.Speak")


def test_an_ambiguous_name_is_answered_for_every_candidate_and_says_so(tmp_path: Path) -> None:
    ci = _repo(tmp_path, GO)
    for tool in ("references", "callers", "callees", "type_hierarchy"):
        result = getattr(ci, tool)(name="Speak")
        notes = [n for n in result.coverage.limitations if n.startswith("ambiguous")]
        assert len(notes) == 1, (tool, result.coverage.limitations)
        # Each candidate named with its qualified name and position, to ask again with.
        for shown in ("zoo.Animal.Speak (zoo/zoo.go:4)", "zoo.Dog.Speak (zoo/zoo.go:9)",
                      "cat.Cat.Speak (cat/cat.go:5)"):
            assert shown in notes[0], (tool, notes[0])
        assert all(r.uncertain for r in result.results), (tool, result.results)
    # The qualified name picks one: callees of Dog.Speak, certain.
    one = ci.callees(name="zoo.Dog.Speak")
    assert [(r.symbol, r.uncertain) for r in one.results] == [("zoo.helper", False)]  # type: ignore[attr-defined]


def test_callees_name_calls_through_an_interface_and_their_implementations(
        tmp_path: Path) -> None:
    ci = _repo(tmp_path, GO)
    rows = {r.symbol: r for r in ci.callees(name="Chorus").results
            if isinstance(r, CodeLocation)}
    assert set(rows) == {"zoo.Animal.Speak", "zoo.Dog.Speak", "cat.Cat.Speak"}
    assert "called at line 13" in rows["zoo.Animal.Speak"].evidence
    for impl in ("zoo.Dog.Speak", "cat.Cat.Speak"):
        assert rows[impl].uncertain and "interface dispatch" in rows[impl].evidence


def test_type_hierarchy_of_a_function_is_a_clear_error(tmp_path: Path) -> None:
    ci = _repo(tmp_path, PY)
    with pytest.raises(BadInput, match="is a func: the type hierarchy is for types"):
        ci.type_hierarchy(name="pkg.store.check")


def test_a_type_without_relations_says_what_was_looked_for(tmp_path: Path) -> None:
    ci = _repo(tmp_path, {"pkg/__init__.py": "", "pkg/lone.py": "class Lone:\n    x = 1\n"})
    result = ci.type_hierarchy(name="pkg.lone.Lone")
    assert result.results == ()
    assert any("pkg.lone.Lone: no supertypes, subtypes" in n
               for n in result.coverage.limitations)


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "spyglass", "-C", str(root), *args],
                          capture_output=True, text=True, check=False)


def test_cli_callees_and_hierarchy(tmp_path: Path) -> None:
    _repo(tmp_path, PY)
    proc = _cli(tmp_path, "callees", "pkg/store.py:Store.save", "--json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)["results"]
    assert [(r["symbol"], r["start_line"]) for r in got] == [("pkg.store.check", 6)]
    at = _cli(tmp_path, "callees", "--at", "pkg/store.py:2")
    assert at.returncode == 0 and "pkg/store.py:6  func  pkg.store.check" in at.stdout, at
    bad = _cli(tmp_path, "hierarchy", "check")
    assert bad.returncode == 2 and "type hierarchy is for types" in bad.stderr
    assert "Traceback" not in bad.stderr
    missing = _cli(tmp_path, "callees")
    assert missing.returncode == 2 and "--at PATH:LINE" in missing.stderr
