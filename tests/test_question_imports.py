"""A question's process imports what answering needs, not the indexer, the team store's
queue or the language-server bridge (issue #28: explore's latency is mostly a fresh CLI
process's start; docs/explore.md "Latency")."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

MakeRepo = Callable[..., Path]
SOURCE = ('"""Tables of results."""\n\n\nclass Table:\n    """Render rows as a table."""\n\n'
          "    def render(self):\n        return 1\n\n\n"
          "def make_table():\n    return Table().render()\n")
# Imported only to index, to queue jobs on the team store, or to ask a language server.
NOT_FOR_A_QUESTION = ("spyglass.index.builder", "spyglass.index.jobs", "spyglass.index.queue",
                      "spyglass.index.postgres", "spyglass.index.worker",
                      "spyglass.bridge.manager", "spyglass.query.escalate",
                      "spyglass.query.repos")
PROBE = ("import json, sys\nfrom spyglass.cli.main import main\ncode = main(sys.argv[1:])\n"
         "print('\\n' + json.dumps([code, sorted(sys.modules)]))\n")


def modules_of(*args: str) -> tuple[int, str, set[str]]:
    """Exit code, output and the modules loaded by one CLI call in a fresh process."""
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True,
                          text=True, check=False)
    out, _, last = proc.stdout.rstrip("\n").rpartition("\n")
    code, mods = json.loads(last)
    return int(code), out, set(mods)


@pytest.fixture
def repo(make_repo: MakeRepo) -> Path:
    root = make_repo({"pkg/__init__.py": "", "pkg/tables.py": SOURCE})
    code, _, mods = modules_of("-C", str(root), "index")
    assert code == 0 and "spyglass.index.builder" in mods  # the probe sees what it imports
    return root


@pytest.mark.parametrize("question", [("explore", "render the rows as a table"),
                                      ("find", "Table")])
def test_a_question_imports_no_indexer_queue_or_bridge(repo: Path,
                                                       question: tuple[str, str]) -> None:
    code, out, mods = modules_of("-C", str(repo), *question)
    assert code == 0 and "tables.py" in out
    assert sorted(m for m in NOT_FOR_A_QUESTION if m in mods) == []


def test_version_still_reads_the_installed_metadata(repo: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "spyglass", "--version"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stdout.startswith("spyglass ")
