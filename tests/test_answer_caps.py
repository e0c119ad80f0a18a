"""A budget of 0 means unbounded, every cap that remains is said, and provenance names only
the languages an answer touched (issue 28)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from spyglass.query.facade import CodeIntel
from spyglass.query.results import TestCommand
from spyglass.render import MAX_COMMANDS, render
from spyglass.types import ToolResult
from spyglass.wire import result_json

MakeRepo = Callable[..., Path]
USES = 260  # more than the text's former 200-row cap


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "spyglass", "-C", str(root), *args],
                          capture_output=True, text=True, check=False)


def test_max_chars_0_lists_every_result_in_the_text(make_repo: MakeRepo) -> None:
    calls = "".join(f"def use_{i}():\n    return helper()\n\n\n" for i in range(USES))
    root = make_repo({"pkg/__init__.py": "", "pkg/core.py": "def helper():\n    return 1\n",
                      "pkg/users.py": "from pkg.core import helper\n\n\n" + calls,
                      "web/app.ts": "export const x = 1;\n"})
    assert run(root, "index").returncode == 0
    unbounded = run(root, "refs", "helper", "--max-chars", "0")
    assert unbounded.returncode == 0, unbounded.stderr
    rows = [line for line in unbounded.stdout.splitlines() if line.startswith("pkg/users.py")]
    assert len(rows) == USES + 1  # every call and the import
    assert "truncated" not in unbounded.stdout and "more rows" not in unbounded.stdout
    bounded = run(root, "refs", "helper")  # the default budget says what it left out
    assert "truncated at 8000 characters" in bounded.stdout
    # provenance: the one language the answer touched, not every grammar spyglass has
    data = json.loads(run(root, "refs", "helper", "--json").stdout)
    assert [name for name in data["provenance"]["grammars"]] == ["python"]
    assert list(data["provenance"]["query_packs"]) == ["python"]


def test_status_names_the_languages_of_the_repository(make_repo: MakeRepo) -> None:
    root = make_repo({"a.py": "x = 1\n", "b.go": "package b\n"})
    assert run(root, "index").returncode == 0
    prov = result_json(CodeIntel(root).status())["provenance"]
    assert sorted(prov["grammars"]) == ["go", "python"]


def test_sections_shown_in_part_say_how_many_more(make_repo: MakeRepo) -> None:
    root = make_repo({"a.py": "x = 1\n"})
    base = CodeIntel(root).find_symbol("x")
    notes = tuple(f"note number {i}" for i in range(9))
    commands = tuple(TestCommand("pytest", f"pytest t{i}.py", 1, "") for i in range(11))
    result = ToolResult(base.results, False, base.coverage, base.provenance,
                        (("notes", notes), ("commands", commands)))
    text = render(result, "code_suggest_tests")
    assert "(+4 more notes in the structured result)" in text
    assert f"(+{11 - MAX_COMMANDS} more commands in the structured result)" in text


def test_the_same_bound_hit_by_several_walks_is_said_once() -> None:
    from spyglass.query.answer import merged
    rest = "uses reached only through further re-exports or aliases are not listed"
    notes = [f"alias closure of {label} stopped at 5000 names: {rest}"
             for label in ("A.f, A.g", "B.h", "A.f", "C.i", "D.j")] + ["other", "other"]
    assert merged(notes) == (
        f"alias closure of A.f, A.g, B.h (+2 more) stopped at 5000 names: {rest}", "other")


def test_files_over_the_size_limit_are_said_in_the_text(make_repo: MakeRepo) -> None:
    root = make_repo({"big.py": "x = 1\n" * (3 * 1024 * 1024 // 6), "ok.py": "def ok():\n    pass\n"})
    assert run(root, "index").returncode == 0
    proc = run(root, "find", "ok")
    assert proc.returncode == 0
    assert "skipped: big.py (over max_file_bytes: not analysed)" in proc.stdout
