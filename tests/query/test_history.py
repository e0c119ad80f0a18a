"""The change prior of vague questions (query/history.py): files by how often recent
commits changed them."""

from __future__ import annotations

from pathlib import Path

from fixture import commit_all, write_files

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
