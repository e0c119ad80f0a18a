"""The change prior of vague questions (query/history.py): files by how often recent
commits changed them."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture import commit_all, write_files
from pgstore import store_backend  # noqa: F401 - the fixture, run on both stores

from spyglass.errors import GitRefused
from spyglass.query import history
from spyglass.query.facade import CodeIntel
from spyglass.query.history import change_prior, message_scores

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite, then PostgreSQL


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


def _files_with_messages(root: Path, messages: dict[str, str]) -> None:
    write_files(root, {p: "x = 0\n" for p in messages})
    commit_all(root, "start")
    for path, message in messages.items():
        write_files(root, {path: "x = 1\n"})
        commit_all(root, message)


def test_a_file_scores_by_the_messages_of_the_commits_that_changed_it(tmp_path: Path) -> None:
    _files_with_messages(tmp_path, {"wrap.py": "Wrap long lines at the terminal width",
                                    "color.py": "Support true color terminals",
                                    "plain.py": "Tidy imports"})
    ci = CodeIntel(tmp_path)
    ci.index()
    scores = message_scores(ci.answer().view(), ["long", "lines", "terminal"])
    assert scores["wrap.py"] == 1.0
    assert 0.0 < scores["color.py"] < scores["wrap.py"]  # `terminal` only, a common word
    assert "plain.py" not in scores
    assert message_scores(ci.answer().view(), ["nowhere"]) == {}


def test_the_messages_are_read_at_the_snapshot_commit_not_later_ones(tmp_path: Path) -> None:
    _files_with_messages(tmp_path, {"a.py": "Parse the config", "b.py": "Tidy"})
    ci = CodeIntel(tmp_path)
    ci.index()
    write_files(tmp_path, {"b.py": "x = 2\n"})
    commit_all(tmp_path, "Zebra stripes for b")  # after the snapshot: not visible yet
    view = ci.answer().view()
    assert message_scores(view, ["zebra"]) == {}
    assert message_scores(view, ["config"]) == {"a.py": 1.0}
    ci.index()
    assert message_scores(ci.answer().view(), ["zebra"]) == {"b.py": 1.0}


def test_a_sweeping_commit_says_nothing_about_each_file(tmp_path: Path) -> None:
    paths = [f"m{i}.py" for i in range(history.MAX_FILES + 1)]
    write_files(tmp_path, {p: "x = 0\n" for p in paths})
    commit_all(tmp_path, "Reformat everything")
    ci = CodeIntel(tmp_path)
    ci.index()
    assert message_scores(ci.answer().view(), ["reformat"]) == {}


def test_a_path_git_would_quote_is_read_as_it_is(tmp_path: Path) -> None:
    _files_with_messages(tmp_path, {"café.py": "Brew the coffee", "plain.py": "Tidy"})
    ci = CodeIntel(tmp_path)
    ci.index()
    view = ci.answer().view()
    assert message_scores(view, ["coffee"]) == {"café.py": 1.0}
    assert change_prior(view)["café.py"] == 1.0
