"""What an external MCP bridge costs by itself: per-question latency through the launcher to
the fake code-intelligence MCP server of the tests (tests/bridge/fake_mcp.py, official `mcp`
SDK, answers at once), host and sandboxed, against the index alone; and its cold start
(launch, handshake, tools/list). Not part of the test suite.

    python bench/bridge_mcp.py --questions 40"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from spyglass.bridge import manager
from spyglass.config import BRIDGE_TOOLS, Config, LspServer
from spyglass.query.facade import CodeIntel

FAKE = Path(__file__).resolve().parent.parent / "tests" / "bridge" / "fake_mcp.py"


def repo(n: int) -> Path:
    """A git repository with `n` functions, each called once from use.py."""
    root = Path(tempfile.mkdtemp(prefix="spyglass-bridge-mcp-"))
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "core.py").write_text("".join(f"def f{i}():\n    return {i}\n\n\n"
                                                  for i in range(n)))
    (root / "pkg" / "use.py").write_text("from pkg import core\n\n\n" + "".join(
        f"def g{i}():\n    return core.f{i}()\n\n\n" for i in range(n)))
    (root / ".fake_answers.json").write_text(json.dumps({"refs": [["pkg/use.py", 5]]}))
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com",
           "PATH": "/usr/bin:/bin", "HOME": str(root)}
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "b"]):
        subprocess.run(cmd, cwd=root, env=env, check=True, capture_output=True)
    return root


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1)


def run(execution: str, questions: int) -> dict[str, object]:
    root = repo(questions)
    server = LspServer("python", (sys.executable, str(FAKE), "ok"), (), execution,
                       execution == "host", "fake-mcp", (str(FAKE.parent),), "{}", "mcp",
                       BRIDGE_TOOLS)
    try:
        ci = CodeIntel(root, config=Config(lsp=(server,)))
        ci.index()
        start = time.perf_counter()
        ci.escalator.bridges()[0].client(60.0)
        cold = time.perf_counter() - start
        times: dict[str, list[float]] = {"index": [], "bridge": []}
        decided = 0  # bridged answers the server decided (a live-lsp site)
        for budget, key in ((0, "index"), (10000, "bridge")):
            for i in range(questions):
                start = time.perf_counter()
                out = ci.references(f"f{i}", lsp_budget_ms=budget)
                times[key].append((time.perf_counter() - start) * 1000)
                decided += any(r.source == "live-lsp" for r in out.results
                               if hasattr(r, "source"))
    finally:
        manager.stop_all()
        shutil.rmtree(root, ignore_errors=True)
    return {"execution": execution, "questions": questions, "decided": decided,
            "asked": ci.escalator.asked, "cold_start_ms":
            round(cold * 1000, 1), **{k: {"p50": pct(v, 0.5), "p95": pct(v, 0.95)}
                                      for k, v in times.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=40)
    args = parser.parse_args()
    print(json.dumps([run(e, args.questions) for e in ("host", "sandbox")], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
