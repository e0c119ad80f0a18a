"""Shared pytest fixtures: small repositories and real corpora fetched before the run."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
ROOT = Path(__file__).resolve().parent.parent

from corpora import fetch_module, offline
from fixture import commit_all, write_files
from security.report import pytest_runtest_logreport, pytest_terminal_summary  # noqa: F401

offline()  # tests read corpora fetched before pytest started; they never download
# The precise pass (docs/precise.md) is on by default where scip-python is installed: off
# for the suite (an index of every fixture would start it); tests/precise/ turn it on.
os.environ["SPYGLASS_PRECISE"] = "off"


@pytest.fixture(scope="session")
def corpus() -> Callable[[str], Path]:
    """A pinned corpus's directory, from the cache `scripts/bootstrap.sh --corpora` fills
    (tests using it are marked `network`, and `system` for Debian-packaged ones)."""
    module = fetch_module()

    def get(name: str) -> Path:
        return Path(module.fetch(name))
    return get


@pytest.fixture
def git_copy(tmp_path: Path) -> Callable[[Path], Path]:
    """Copy a tree into tmp_path as a fresh git repository with one commit."""
    def make(src: Path) -> Path:
        dest = tmp_path / src.name
        shutil.copytree(src, dest, ignore=shutil.ignore_patterns(".git", ".spyglass"))
        commit_all(dest)
        return dest
    return make


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., Path]:
    """Write {path: text|bytes} into a new repository (git by default)."""
    def make(files: dict[str, str | bytes], git: bool = True) -> Path:
        root = tmp_path / "repo"
        write_files(root, files)
        if git:
            commit_all(root)
        return root
    return make
