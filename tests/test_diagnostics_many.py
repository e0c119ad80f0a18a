"""`diagnostics` over more files than max_files_per_request answers the first of them and
counts the rest, instead of refusing (issue 28)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from spyglass import budget, surface
from spyglass.query.facade import CodeIntel
from spyglass.render import render

MakeRepo = Callable[..., Path]
FILES, LIMIT = 12, 5


def test_diagnostics_answers_the_first_files_and_counts_the_rest(make_repo: MakeRepo) -> None:
    files: dict[str, str | bytes] = {f"src/m{i:02d}.py": "def f(:\n" for i in range(FILES)}
    root = make_repo(files)
    ci = CodeIntel(root)
    ci.config = replace(ci.config, limits=replace(ci.config.limits,
                                                  max_files_per_request=LIMIT))
    for paths in ([], ["src"]):  # no path (the whole repository), and a folder
        result = ci.diagnostics(paths)
        checked = sorted({d.path for d in result.results})  # type: ignore[attr-defined]
        assert checked == [f"src/m{i:02d}.py" for i in range(LIMIT)]
        assert result.truncated
        note = f"{FILES} files asked for: the first {LIMIT} (in path order) were checked, " \
               f"{FILES - LIMIT} were not"
        text = render(budget.fit(result, surface.TOOLS["code_diagnostics"], 0, "cli"),
                      "code_diagnostics", people=True)
        assert note in text and text.count(note) == 1
