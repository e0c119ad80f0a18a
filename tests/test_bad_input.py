"""Bad input gets a clear error and loses nothing: paths outside the root, huge, binary,
undecodable and pathologically nested files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from fixture import commit_all

from spyglass.errors import OutsideRoot
from spyglass.query.facade import CodeIntel

MakeRepo = Callable[..., Path]


@pytest.fixture
def repo(make_repo: MakeRepo, tmp_path: Path) -> Path:
    secret = tmp_path / "secret.py"
    secret.write_text("def secret():\n    pass\n")
    root = make_repo({"ok.py": "def ok():\n    pass\n"}, git=False)
    os.symlink(secret, root / "link.py")
    os.symlink(tmp_path, root / "linkdir")
    commit_all(root)
    return root


@pytest.mark.parametrize("path", ["../secret.py", "{tmp}/secret.py", "link.py",
                                  "linkdir/secret.py", "ok.py/../../secret.py"])
def test_paths_outside_the_root_are_refused(repo: Path, tmp_path: Path, path: str) -> None:
    ci = CodeIntel(repo)
    ci.index()
    path = path.format(tmp=tmp_path)
    for call in (lambda: ci.structure(path), lambda: ci.context([(path, 1, 2)]),
                 lambda: ci.references(path=path, line=1), lambda: ci.diagnostics([path]),
                 lambda: ci.find_symbol("secret", path=path)):
        with pytest.raises(OutsideRoot, match="outside the repository root"):
            call()


def test_symlinks_are_never_followed_when_indexing(repo: Path) -> None:
    ci = CodeIntel(repo)
    ci.index()
    assert ci.find_symbol("secret").results == ()
    skipped = {s.path: s.reason for s in ci.find_symbol("ok").coverage.skipped}
    assert skipped["link.py"].startswith("symlink")


def test_huge_binary_and_undecodable_files_are_skipped(make_repo: MakeRepo) -> None:
    files: dict[str, str | bytes] = {
        "big.py": b"x = 1\n" * (50 * 1024 * 1024 // 6),
        "binary.py": b"\x00\x01\x02def f(): pass\n",
        "latin1.py": "def caf\xe9():\n    pass\n".encode("latin-1"),
        "good.py": "def good():\n    pass\n",
    }
    for git in (True, False):  # from git objects, and from a plain folder
        root = make_repo(files, git=git)
        ci = CodeIntel(root)
        ci.index()
        result = ci.find_symbol("good")
        assert [r.path for r in result.results] == ["good.py"]  # type: ignore[attr-defined]
        status = ci.status().results[0]
        reasons = dict(status.skipped_by_reason)  # type: ignore[attr-defined]
        assert reasons == {"oversized": 1, "binary file": 1, "not valid UTF-8 (byte 7)": 1}
        assert ci.find_symbol("f").results == ()
        shutil.rmtree(root)


def test_deep_nesting_is_parsed_without_crash_or_hang(tmp_path: Path) -> None:
    root = tmp_path / "deep"
    root.mkdir()
    depth = 10_000
    (root / "deep.py").write_text("x = " + "(" * depth + "1" + ")" * depth + "\n"
                                  "def after():\n    pass\n")
    (root / "deep_list.py").write_text("y = " + "[" * depth + "]" * depth + "\n")
    (root / "deep_call.py").write_text("z = " + "f(" * depth + ")" * depth + "\n")
    code = ("import sys; from spyglass.query.facade import CodeIntel\n"
            f"ci = CodeIntel({str(root)!r}); ci.index()\n"
            "print(len(ci.find_symbol('after').results), len(ci.diagnostics([]).results))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    found, _ = proc.stdout.split()
    assert found == "1"


def test_bad_ref_is_a_clear_error(make_repo: MakeRepo) -> None:
    from spyglass.errors import IndexUnavailable
    ci = CodeIntel(make_repo({"a.py": "x = 1\n"}))
    with pytest.raises(IndexUnavailable, match="does not name a commit"):
        ci.index("no-such-branch")
    ci.index()
    assert ci.find_symbol("x").results
