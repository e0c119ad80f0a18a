"""`status` with no index answers from the workspace's listing alone, says "no index"
plainly, and after an interrupted first index says what the job did (issue 28)."""

from __future__ import annotations

import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from spyglass import budget, surface
from spyglass.query.facade import CodeIntel
from spyglass.query.results import StatusReport
from spyglass.render import render

MakeRepo = Callable[..., Path]
FILES = 300


def _tree(make_repo: MakeRepo, git: bool) -> Path:
    files: dict[str, str | bytes] = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n"
                                     for i in range(FILES)}
    files["README.md"] = "docs\n"
    return make_repo(files, git=git)


def _status_text(ci: CodeIntel) -> tuple[StatusReport, str]:
    tool = surface.TOOLS["code_status"]
    result = budget.fit(ci.status(), tool, surface.DEFAULT_CHARS, "cli")
    report = result.results[0]
    assert isinstance(report, StatusReport)
    return report, render(result, tool.name, people=True)


def test_status_without_an_index_parses_nothing_and_says_no_index(make_repo: MakeRepo
                                                                   ) -> None:
    for git in (True, False):
        root = _tree(make_repo, git)
        ci = CodeIntel(root)
        cpu = time.process_time()
        report, text = _status_text(ci)
        spent = time.process_time() - cpu
        assert not report.indexed and "no index" in text
        assert "no results" not in text and "truncated" not in text
        assert [(c.language, c.files) for c in report.languages] == [("python", FILES)]
        assert ci._view is None  # no view was built: nothing was parsed
        assert spent < 5.0  # CPU time; parsing 300 files live costs far more
        assert not (root / ".spyglass").exists()  # status never creates a store
        shutil.rmtree(root)


def test_status_after_an_interrupted_first_index(make_repo: MakeRepo) -> None:
    root = _tree(make_repo, True)
    ci = CodeIntel(root)
    ci.index()
    conn = sqlite3.connect(root / ".spyglass" / "graph.db")  # as a killed first build leaves it
    conn.execute("UPDATE snapshots SET state = 'failed'")
    conn.execute("UPDATE jobs SET state = 'failed', persisted = 120")
    conn.commit()
    conn.close()
    report, text = _status_text(CodeIntel(root))
    assert not report.indexed and report.job_state == "failed"
    assert "the last index job failed after persisting 120 files" in text
