"""The page in a real browser: headless Chromium (Debian `chromium`) driven by npm
`playwright-core` runs tests/web/e2e/scenario.mjs (the page's life: index, search, live
updates), graph.mjs (120 callers) and browse.mjs (the code browser: deep links, paging, call
tree, narrow screens) against `spyglass web` on generated repositories; axe-core (npm,
installed by scripts/bootstrap.sh) checks every page state."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


def serve(root: Path) -> Iterator[tuple[str, Path]]:
    """`spyglass web` on `root` until the test ends."""
    proc = subprocess.Popen([sys.executable, "-m", "spyglass", "-C", str(root), "web",
                             "--port", "0"], stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        found = re.search(r"at (http://127\.0\.0\.1:\d+)/", line)
        assert found, line
        yield found.group(1), root
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture
def served(demo_repo: Path) -> Iterator[tuple[str, Path]]:
    """The demo repository (committed, not indexed), served."""
    yield from serve(demo_repo)


def node_script(name: str, *args: str, timeout: float = 55) -> dict[str, Any]:
    """Run tests/web/e2e/NAME with ARGS; its JSON report."""
    assert NODE is not None
    run = subprocess.run([NODE, str(E2E / name), *args], check=False, capture_output=True,
                         text=True, timeout=timeout, cwd=E2E, env={**os.environ, "CHROMIUM": CHROMIUM})
    lines = [x for x in run.stdout.splitlines() if x.startswith("{")]
    assert lines, run.stdout + run.stderr
    report: dict[str, Any] = json.loads(lines[-1])
    assert report["ok"], f"{report.get('failure')} after {report.get('steps')}"
    assert run.returncode == 0
    return report


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


def test_graph_of_120_callers_stays_readable(make_repo: Callable[..., Path]) -> None:
    """120 callers in 12 files: one group node per file, a group opened by keyboard."""
    files = {"lib/__init__.py": "", "lib/core.py": "def target():\n    return 1\n"}
    for f in range(12):
        body = "".join(f"def use_{f}_{i}():\n    return target()\n\n\n" for i in range(10))
        files[f"callers/mod_{f:02d}.py"] = "from lib.core import target\n\n\n" + body
    root = make_repo(files)
    subprocess.run([sys.executable, "-m", "spyglass", "-C", str(root), "index"], check=True,
                   capture_output=True, timeout=50)
    for base, _ in serve(root):
        r = node_script("graph.mjs", base, "/repos/repo?symbol=lib/core.py:1&panel=graph", str(ARTIFACTS))
        print(r)
        assert "121 node(s)" in r["status"]
        assert r["groups"] == 12 and r["drawn"] == 13  # the center and one node per file
        assert "10 symbols" in r["focusedGroup"]
        assert r["drawnAfterOpen"] == 13 - 1 + 10  # that file's 10 callers, one by one
        assert "use_" in r["focusedAfterOpen"]  # focus moved into the opened group
        assert r["crossing"] == []  # one column per layer: edges join neighbours only
        assert r["axe"] == [] and r["errors"] == []


def browse_files() -> dict[str, str]:
    """A repository to browse: a long file with a definition far down (line 719) and its
    call further down, a class with 360 references in 30 files, a call chain
    (entry_point → top → mid → leaf, and top → leaf), long names with long (uncertain)
    evidence."""
    big = ['"""A long module."""', ""]
    for i in range(170):
        big += [f"def filler_{i}():", f"    return {i}", "", ""]
    big += [f"# padding {i}" for i in range(718 - len(big))]
    big += ["def deep_target(value):", "    return value * 2"]
    big += [f"# more padding {i}" for i in range(60)]
    big += ["def deep_caller():", "    return deep_target(3)", ""]
    files = {
        "pkg/__init__.py": "",
        "pkg/model.py": "class Model:\n    def save(self):\n        return 1\n",
        "pkg/big.py": "\n".join(big),
        "pkg/chain.py": ("def leaf():\n    return 1\n\n\ndef mid():\n    x = 1\n    return leaf()\n\n\n"
                         "def top():\n    y = leaf()\n    z = 3\n    return mid()\n\n\n"
                         "def entry_point():\n    return top()\n"),
        "uses/__init__.py": "",
        "wire_formats/__init__.py": "",
        "wire_formats/request_handlers_for_every_supported_wire_format.py": (
            "class JsonRequestHandlerWithValidation:\n"
            "    def process_incoming_request_payload_with_validation(self, payload):\n"
            "        return payload\n\n\n"
            "class XmlRequestHandlerWithValidation:\n"
            "    def process_incoming_request_payload_with_validation(self, payload):\n"
            "        return payload\n"),
        "wire_formats/choose_the_handler_for_the_configured_wire_format.py": (
            "from wire_formats.request_handlers_for_every_supported_wire_format import (\n"
            "    JsonRequestHandlerWithValidation, XmlRequestHandlerWithValidation)\n\n\n"
            "def choose_a_handler_for_the_configured_wire_format_and_process_the_payload(f, p):\n"
            "    handler = JsonRequestHandlerWithValidation() if f else "
            "XmlRequestHandlerWithValidation()\n"
            "    return handler.process_incoming_request_payload_with_validation(p)\n"),
    }
    for f in range(30):
        body = "".join(f"def use_{f:02d}_{i}():\n    return Model()\n\n\n" for i in range(11))
        files[f"uses/use_{f:02d}.py"] = "from pkg.model import Model\n\n\n" + body
    return files


def test_code_browser_in_chromium(make_repo: Callable[..., Path]) -> None:
    """Deep links and followed references land on screen, every reference pages in, the
    call tree opens by keyboard, callee edges carry the call line, no sideways scroll at
    1280 and 390 px, did-you-mean; axe-core clean in every state."""
    root = make_repo(browse_files())
    subprocess.run([sys.executable, "-m", "spyglass", "-C", str(root), "index"], check=True,
                   capture_output=True, timeout=50)
    for base, _ in serve(root):
        r = node_script("browse.mjs", base, str(root), str(ARTIFACTS), timeout=110)
        print("\n".join(r["steps"]))
        assert r["errors"] == [] and r["external"] == []
        assert r["refs"]["total"] == 360  # 30 files × (1 import + 11 calls)
        assert r["callers"]["total"] == 330  # the calls
        assert all(s <= v for s, v in r["widths"].values())
        assert {w for _, w in r["widths"].values()} == {1280, 390}
        bad = {name: v for name, v in r["axe"].items() if v}
        assert bad == {}, json.dumps(bad, indent=1)
        assert len(r["states"]) >= 10
