"""The page in a real browser: headless Chromium (Debian `chromium`) driven by npm
`playwright-core` runs tests/web/e2e/scenario.mjs against `spyglass web` on a small generated
repository; axe-core (npm, installed by scripts/bootstrap.sh) checks every page state."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

E2E = Path(__file__).resolve().parent / "e2e"
ARTIFACTS = Path(os.environ.get("SPYGLASS_E2E_ARTIFACTS", E2E / "artifacts"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
NODE = shutil.which("node")
READY = (NODE is not None and Path(CHROMIUM).exists()
         and (E2E / "node_modules" / "playwright-core").is_dir()
         and (E2E / "node_modules" / "axe-core" / "axe.min.js").is_file())
pytestmark = pytest.mark.skipif(
    not READY, reason="needs node, Debian chromium and tests/web/e2e/node_modules "
    "(scripts/bootstrap.sh installs them)")


@pytest.fixture
def served(demo_repo: Path) -> Iterator[tuple[str, Path]]:
    """`spyglass web` on the demo repository (committed, not indexed)."""
    proc = subprocess.Popen([sys.executable, "-m", "spyglass", "-C", str(demo_repo), "web",
                             "--port", "0"], stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        found = re.search(r"at (http://127\.0\.0\.1:\d+)/", line)
        assert found, line
        yield found.group(1), demo_repo
    finally:
        proc.terminate()
        proc.wait(10)


def test_page_end_to_end_in_chromium(served: tuple[str, Path]) -> None:
    base, root = served
    assert NODE is not None
    run = subprocess.run([NODE, str(E2E / "scenario.mjs"), base, str(root), str(ARTIFACTS)],
                         check=False, capture_output=True, text=True, timeout=55, cwd=E2E,
                         env={**os.environ, "CHROMIUM": CHROMIUM})
    lines = [x for x in run.stdout.splitlines() if x.startswith("{")]
    assert lines, run.stdout + run.stderr
    report = json.loads(lines[-1])
    print("\n".join(report["steps"]))
    assert report["ok"], f"{report.get('failure')} after {report['steps']}"
    assert run.returncode == 0
    assert report["errors"] == []  # no JavaScript exception, no console error
    assert report["external"] == []  # no request leaves the server
    states = {"repo-list", "empty", "indexed", "symbol", "file-view", "graph-expanded",
              "live-update", "diff", "dark", "small", "small-dark", "not-found"}
    assert set(report["states"]) == states
    bad = {name: v for name, v in report["axe"].items() if v}
    assert bad == {}, json.dumps(bad, indent=1)  # 0 critical/serious axe-core violations
    assert (ARTIFACTS / "graph-expanded.png").stat().st_size > 0
