"""Human CLI output escapes control characters from the repository: escape sequences and
newlines in file names never reach the terminal raw (docs/security.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from serve_harness import make_repo

from spyglass.cli.main import main
from spyglass.render import escape_text

EVIL = "evil\x1b]0;pwned\x07\x1b[31m.py"
SPLIT = "two\nlines.py"


def test_escape_text_escapes_controls_and_keeps_text() -> None:
    assert escape_text("pkg/mod.py é 🙂", lines=False) == "pkg/mod.py é 🙂"
    assert escape_text("a\x1b[31mb", lines=False) == "a\\x1b[31mb"
    assert escape_text("a\nb\tc\rd", lines=False) == "a\\nb\\tc\\rd"
    assert escape_text("x\u202ey", lines=False) == "x\\u202ey"  # right-to-left override
    assert escape_text("bad\udcff.py", lines=False) == "bad\\xff.py"  # an undecodable byte
    assert escape_text("line 1\n\tline 2\x1b", lines=True) == "line 1\n\tline 2\\x1b"


@pytest.mark.parametrize("argv", [["find", "f*"], ["structure", "."], ["status"],
                                  ["diagnostics"], ["explore", "f"]])
def test_file_names_with_controls_are_escaped(tmp_path: Path, argv: list[str],
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    repo = make_repo(tmp_path / "repo", {EVIL: "def fa():\n    return 1\n",
                                         SPLIT: "def fb(:\n    return 2\n",
                                         "ok.py": "def fc():\n    return fa()\n"})
    (repo / ("new\x1b[2J.py")).write_text("def fd():\n    pass\n")  # in the overlay
    monkeypatch.chdir(repo)
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "\x1b" not in out.out + out.err and "\x07" not in out.out + out.err
    assert "two\nlines" not in out.out
    if argv[0] in ("find", "structure"):
        assert "evil\\x1b]0;pwned\\x07\\x1b[31m.py" in out.out
        assert "two\\nlines.py" in out.out
