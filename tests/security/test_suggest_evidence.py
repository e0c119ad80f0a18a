"""Test suggestions read test files for the data files they name, and the git history for
co-change: a test file turned into a link out of the root or a FIFO is never read (and
never hangs the answer), a hostile data file name is a literal, not a pattern, and history
is read with the restricted git runner (tests/security/test_hostile_git.py runs every
hostile repository through `tests --diff HEAD`, which reads it)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))  # tests/fixture.py
from fixture import commit_all, write_files

from spyglass.query.facade import CodeIntel
from spyglass.query.results import TestFile

NAMING = 'import json\n\n\ndef test_{0}():\n    assert open("data/cases.json")\n'
HOSTILE = "a(b|c)*[x].json"  # regex syntax in a data file's name: matched literally


def _data(result: object) -> dict[str, str]:
    """Test file → evidence, for the files suggested by a named data file."""
    return {f.path: f.evidence for f in result.results  # type: ignore[attr-defined]
            if isinstance(f, TestFile) and f.reason == "data"}


def test_links_and_fifos_are_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(NAMING.format("secret"))
    root = tmp_path / "repo"
    write_files(root, {"pkg/__init__.py": "", "data/cases.json": "[]\n",
                       "tests/test_link.py": NAMING.format("link"),
                       "tests/test_pipe.py": NAMING.format("pipe"),
                       "tests/test_plain.py": NAMING.format("plain")})
    commit_all(root, "first")
    CodeIntel(root).index()
    (root / "tests/test_link.py").unlink()
    (root / "tests/test_link.py").symlink_to(outside / "secret.py")
    (root / "tests/test_pipe.py").unlink()
    os.mkfifo(root / "tests/test_pipe.py")
    (root / "data/cases.json").write_text("[1]\n")
    result = CodeIntel(root).suggest_tests([], "HEAD", 3)
    found = _data(result)
    assert list(found) == ["tests/test_plain.py"], found
    assert "secret" not in repr(result.results)


def test_hostile_data_file_name_is_literal(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_files(root, {"pkg/__init__.py": "", f"data/{HOSTILE}": "[]\n",
                       "tests/test_named.py": f'def test_n():\n    open("data/{HOSTILE}")\n',
                       "tests/test_pattern.py": 'def test_p():\n    open("data/abcx.json")\n'})
    commit_all(root, "first")
    CodeIntel(root).index()
    (root / "data" / HOSTILE).write_text("[1]\n")
    found = _data(CodeIntel(root).suggest_tests([], "HEAD", 3))
    assert list(found) == ["tests/test_named.py"], found
