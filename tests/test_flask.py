"""The real flask 3.1.3 sdist: references of get_debug_flag match a language server's."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from corpora import marks

pytestmark = marks("flask")

# What basedpyright reports for get_debug_flag (src/flask/helpers.py:28), imports included.
EXPECTED = {
    ("src/flask/cli.py", 24), ("src/flask/cli.py", 369), ("src/flask/cli.py", 981),
    ("src/flask/sansio/app.py", 25), ("src/flask/sansio/app.py", 495),
    ("src/flask/app.py", 40), ("src/flask/app.py", 628),
    ("tests/test_helpers.py", 8), ("tests/test_helpers.py", 346),
}


def spyglass(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "spyglass", "-C", str(root), *args],
                          capture_output=True, text=True, check=False)


def test_get_debug_flag_references(corpus: Callable[[str], Path],
                                   git_copy: Callable[[Path], Path]) -> None:
    root = git_copy(corpus("flask"))
    built = spyglass(root, "index", "--json")
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["state"] == "completed"
    proc = spyglass(root, "refs", "--at", "src/flask/helpers.py:28:5", "--json")
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    sites = {(r["path"], r["start_line"]) for r in answer["results"]}
    assert sites == EXPECTED
    assert ("tests/test_helpers.py", 344) not in sites
    assert all(r["source"] == "cached-index" and r["indexed_at"] for r in answer["results"])
    assert not any(r["uncertain"] for r in answer["results"])
    assert set(answer) == {"results", "truncated", "coverage", "provenance"}
