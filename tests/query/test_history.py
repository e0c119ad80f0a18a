"""The change prior of vague questions (query/history.py): files by how often recent
commits changed them."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture import commit_all, write_files

from spyglass.errors import GitRefused
from spyglass.query import history
from spyglass.query.facade import CodeIntel
from spyglass.query.history import change_prior


def test_the_file_changed_most_has_the_highest_prior(tmp_path: Path) -> None:
    write_files(tmp_path, {"busy.py": "x = 0\n", "calm.py": "y = 0\n", "still.py": "z = 0\n"})
    commit_all(tmp_path, "start")
    for i in range(1, 5):
        write_files(tmp_path, {"busy.py": f"x = {i}\n"})
        commit_all(tmp_path, f"busy {i}")
    write_files(tmp_path, {"calm.py": "y = 1\n"})
    commit_all(tmp_path, "calm")
    ci = CodeIntel(tmp_path)
    ci.index()
    prior = change_prior(ci.answer().view())
    assert prior["busy.py"] == 1.0
    assert 0.0 < prior["calm.py"] < prior["busy.py"]
    assert prior.get("still.py", 0.0) < prior["calm.py"]  # only in the root commit


def test_no_history_no_prior(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.py": "x = 0\n"})
    ci = CodeIntel(tmp_path)
    ci.index()
    assert change_prior(ci.answer().view()) == {}


def test_a_git_failure_gives_no_prior_and_explore_still_answers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_files(tmp_path, {"a.py": "def parse_config():\n    return 1\n"})
    commit_all(tmp_path)
    ci = CodeIntel(tmp_path)
    ci.index()
    history._CACHE.clear()

    def refuse(*_args: object, **_kw: object) -> object:
        raise GitRefused("refused for the test")
    monkeypatch.setattr(history, "_read", refuse)  # git refusing the history read
    assert change_prior(ci.answer().view()) == {}
    assert ci.explore("where is the config parsed", budget=2000).results
