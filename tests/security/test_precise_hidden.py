"""Hiding the file a precise tool crashed on (docs/precise.md, "When a tool fails on a
file"): the name comes from the tool's output about a hostile repository, so the
launcher binds its empty file only over a regular file of the workspace reached without
a link — a link (to a file outside, or to another workspace file), `..`, an absolute
path, a folder, or a cover that is not spyglass's empty file is refused, and the pass
keeps the facts written before the crash instead of re-running."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "precise"))
from fake_tools import fake_python_indexer, need_sandbox
from test_precise_crash import FILES, walker

from spyglass.bridge.launcher import LaunchError, LaunchSpec, launch
from spyglass.config import Config, PreciseConfig
from spyglass.query.facade import CodeIntel


@pytest.fixture
def workspace(tmp_path: Path) -> tuple[Path, Path]:
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "pkg" / "real.py").write_text("x = 1\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    os.symlink(outside, ws / "pkg" / "link.py")
    os.symlink(ws / "pkg", ws / "alias")
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    return ws, empty


@pytest.mark.parametrize("rel", ["pkg/link.py", "alias/real.py", "../outside.txt",
                                 "/etc/hostname", "pkg", "pkg/./real.py", "", "pkg/none.py"])
def test_only_a_regular_workspace_file_is_hidden(workspace: tuple[Path, Path],
                                                 rel: str) -> None:
    ws, empty = workspace
    need_sandbox()
    with pytest.raises(LaunchError, match="cannot hide"):
        launch(LaunchSpec(("true",), ws, hidden=(rel,), empty=str(empty)))


def test_the_cover_must_be_an_empty_file_outside_the_workspace(
        workspace: tuple[Path, Path], tmp_path: Path) -> None:
    ws, empty = workspace
    need_sandbox()
    full = tmp_path / "full"
    full.write_text("import os\n")
    for cover in (str(full), str(ws / "pkg" / "empty"), "relative", str(tmp_path)):
        (ws / "pkg" / "empty").write_bytes(b"")
        with pytest.raises(LaunchError, match="not an empty file"):
            launch(LaunchSpec(("true",), ws, hidden=("pkg/real.py",), empty=cover))
    with pytest.raises(LaunchError, match="bubblewrap"):
        launch(LaunchSpec(("true",), ws, execution="host", hidden=("pkg/real.py",),
                          empty=str(empty)))


def test_a_hidden_file_reads_empty_and_the_workspace_is_untouched(
        workspace: tuple[Path, Path]) -> None:
    ws, empty = workspace
    need_sandbox()
    child = launch(LaunchSpec(("cat", str(ws / "pkg" / "real.py")), ws,
                              hidden=("pkg/real.py",), empty=str(empty)))
    child.stdin.close()
    assert child.stdout.read() == b""
    assert child.wait(30) and child.exit_code() == 0
    assert (ws / "pkg" / "real.py").read_text() == "x = 1\n"
    assert empty.read_bytes() == b""


def test_a_crash_naming_a_link_is_not_rerun(make_repo: Callable[..., Path],
                                            tmp_path: Path) -> None:
    """The crashing file is a link (to another file of the workspace; the bind would land
    on its target): no re-run; the documents written before the crash stay the facts."""
    need_sandbox()
    repo = make_repo({**{k: v for k, v in FILES.items() if k != "pkg/b_broken.py"},
                      "data/crash.txt": FILES["pkg/b_broken.py"]})
    outside = repo / "data" / "crash.txt"
    os.symlink(outside, repo / "pkg" / "b_broken.py")
    tools = fake_python_indexer(tmp_path / "tools", walker("{cwd}/{path}"))
    ci = CodeIntel(repo, config=Config(precise=PreciseConfig(enabled="true", timeout_s=60,
                                                             tools=str(tools))))
    ci.index(precise="off")
    runs = ci.precise_pass(None, "wait")
    assert [(r.state, r.files) for r in runs] == [("partial", 1)], runs
    assert "is a link" in runs[0].error
    assert outside.read_text() == FILES["pkg/b_broken.py"]
