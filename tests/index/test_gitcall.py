"""The git gateway: the only module that starts git, and what it refuses to run."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from gitutil import git, init

from spyglass.errors import IndexUnavailable
from spyglass.index import gitcall, gitguard
from spyglass.index import source as src

SRC = Path(__file__).resolve().parents[2] / "src" / "spyglass"
SPAWNS = re.compile(r"\bsubprocess\b|\bos\.(system|exec\w*|spawn\w*|popen|posix_spawn\w*)\b|"
                    r"\bpty\b|create_subprocess_\w+|[\"']git[\"']|shutil\.which")


# The two gateways: git's, and the restricted launcher (+ its guard) for every other child.
GATEWAYS = (SRC / "index" / "gitcall.py", SRC / "bridge" / "launcher.py",
            SRC / "bridge" / "guard.py")


def test_no_module_but_the_gateway_spawns_a_process() -> None:
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        if path in GATEWAYS:
            continue
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if SPAWNS.search(line):
                offenders.append(f"{path.relative_to(SRC)}:{n}: {line.strip()}")
    assert offenders == []
    assert SPAWNS.search((SRC / "index" / "gitcall.py").read_text("utf-8"))  # the probe works


@pytest.mark.parametrize("args", [("diff", "HEAD"), ("status",), ("log",), ("fetch",),
                                  ("diff-index", "HEAD"), ("ls-files", "-m"),
                                  ("cat-file", "--filters", "HEAD:a.py"),
                                  ("cat-file", "--textconv", "HEAD:a.py"),
                                  ("diff-tree", "--ext-diff", "HEAD"), ("-c", "x=y", "log"),
                                  ("cat-file", "--filt", "HEAD:a.py"),
                                  ("diff-tree", "--output=/tmp/x", "HEAD"),
                                  ("config", "core.pager", "evil"), ("config", "--unset", "x")])
def test_porcelain_and_work_tree_reads_are_refused(args: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        gitcall.argv(*args)


def test_names_with_odd_characters_are_neutralised(tmp_path: Path) -> None:
    """A driver name holding '=' or spaces would split a `-c key=value` wrongly; the
    gateway passes each key and value separately (GIT_CONFIG_KEY_n / _VALUE_n)."""
    root = tmp_path / "repo"
    init(root, {"a.py": "x = 1\n"})
    canary = tmp_path / "canary"
    for name in ("a=b", "with space", "Up.Case"):
        git(root, "config", f"filter.{name}.clean", f"touch {canary}; cat")
        git(root, "config", f"protocol.{name}.allow", "always")
    pairs = dict(gitcall.repo_config(root).pairs)
    for name in ("a=b", "with space", "Up.Case"):
        assert pairs[f"filter.{name}.clean"] == ""
        assert pairs[f"protocol.{name}.allow"] == "never"
    env = gitcall.environment(gitcall.repo_config(root).pairs)
    keys = [env[f"GIT_CONFIG_KEY_{i}"] for i in range(int(env["GIT_CONFIG_COUNT"]))]
    assert "filter.a=b.clean" in keys


def test_config_scan_follows_includes_and_notices_their_change(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, {"a.py": "x = 1\n"})
    inc = tmp_path / "inc.cfg"
    git(root, "config", "include.path", str(inc))
    assert not any(k.startswith("filter.late") for k, _ in gitcall.repo_config(root).pairs)
    inc.write_text('[filter "late"]\n\tclean = touch /nonexistent/x\n')
    assert ("filter.late.clean", "") in gitcall.repo_config(root).pairs


def test_git_never_reads_spyglass_stdin(tmp_path: Path) -> None:
    """An include of /dev/stdin must not consume the MCP channel: git's stdin is empty."""
    root = tmp_path / "repo"
    init(root, {"a.py": "x = 1\n"})
    git(root, "config", "include.path", "/dev/stdin")
    r, w = os.pipe()
    saved = os.dup(0)
    try:
        os.dup2(r, 0)
        os.write(w, b'[filter "stolen"]\n\tclean = x\n')
        os.close(w)
        assert src.is_git_repo(root)
        assert not any("stolen" in k for k, _ in gitcall.repo_config(root).pairs)
        assert os.read(0, 100) == b'[filter "stolen"]\n\tclean = x\n'
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(r)


def test_a_plain_folder_is_not_a_repository(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    assert not src.is_git_repo(tmp_path)


def test_a_fifo_in_the_config_cannot_hang_spyglass(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    init(root, {"a.py": "x = 1\n"})
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    git(root, "config", "core.excludesFile", str(fifo))  # read by ls-files --others
    assert ("core.excludesFile", "") in gitcall.repo_config(root).pairs
    assert b"a.py" in gitcall.run(root, "ls-files", "-z", "--others", "--cached",
                                  "--exclude-standard")
    git(root, "config", "include.path", str(fifo))  # read by every git command
    monkeypatch.setattr(gitcall, "CONFIG_TIMEOUT", 1.0)
    with pytest.raises(IndexUnavailable, match="includes .*fifo, a FIFO"):  # checked first
        gitcall.repo_config(root)


@pytest.mark.parametrize("ref", ["--output={tmp}/out", "--exec=touch {tmp}/out", "-c",
                                 "--upload-pack=touch {tmp}/out", "--git-dir={tmp}"])
def test_revisions_that_look_like_options_are_data(tmp_path: Path, ref: str) -> None:
    root = tmp_path / "repo"
    init(root, {"a.py": "x = 1\n"})
    with pytest.raises(IndexUnavailable, match="does not name a commit"):
        src.resolve_commit(root, ref.format(tmp=tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repo"]


def test_a_fifo_gitignore_is_refused_on_every_check_not_only_the_first(tmp_path: Path) -> None:
    """A refusal leaves the scan knowing what it has not read: a second check (the next
    question, or the MCP warm-up racing it) refuses again instead of letting git block."""
    root = tmp_path / "repo"
    init(root, {"a.py": "x = 1\n"})
    scan = gitguard.IgnoreScan(root)
    scan.check()  # nothing to refuse yet
    (root / "newdir" / "deeper").mkdir(parents=True)
    (root / "other" / "inner").mkdir(parents=True)
    os.mkfifo(root / "newdir" / ".gitignore")
    for _ in range(3):
        with pytest.raises(gitguard.GitRefused, match="newdir/.gitignore is a FIFO"):
            scan.check()
    os.unlink(root / "newdir" / ".gitignore")
    os.mkfifo(root / "other" / "inner" / ".gitignore")  # in a folder the refusal left unread
    with pytest.raises(gitguard.GitRefused, match="other/inner/.gitignore is a FIFO"):
        scan.check()
    os.unlink(root / "other" / "inner" / ".gitignore")
    scan.check()
