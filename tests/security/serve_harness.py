"""Helpers of the server-hardening tests: a small repository and real server processes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from fixture import commit_all, write_files

FILES = {
    "a.py": "def f():\n    return 1\n\n\nclass K:\n    def m(self):\n        return f()\n",
    "pkg/__init__.py": "",
    "pkg/util.py": "def helper(x):\n    return x + 1\n",
    "tests/test_util.py": "from pkg.util import helper\n\n\ndef test_helper():\n"
                          "    assert helper(1) == 2\n",
    "calc/calc.go": "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
    "web/app.ts": "export function greet(name: string): string {\n  return name;\n}\n",
}
REGEX_BOMB = {"query": '((module) @m (#match? @m "^((.|\\n)+)+X$"))', "paths": ["a.py"]}
TOKEN = "t0ken-for-tests"


def make_repo(root: Path, files: dict[str, str] | None = None) -> Path:
    write_files(root, files or FILES)
    commit_all(root)
    return root


def write_config(home: Path, token: str | None = None, extra: str = "") -> Path:
    """The host config under `home` (XDG_CONFIG_HOME): optionally an admin token."""
    path = home / "xdg" / "spyglass" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["[codeintel]"] + ([f'admin_token = "{token}"'] if token else []) + [extra]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def env_for(home: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CONFIG_HOME": str(home / "xdg"), "HOME": str(home)}


def run_cli(repo: Path, home: Path, *args: str, timeout: float = 60
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "spyglass", *args], cwd=repo, check=False,
                          env=env_for(home), capture_output=True, text=True, timeout=timeout)


@dataclass
class Served:
    """A running server process: its base URL (…/mcp for MCP), pid and stderr file."""

    url: str
    proc: subprocess.Popen[bytes]
    stderr: Path

    @property
    def pid(self) -> int:
        return self.proc.pid


@contextmanager
def serving(repo: Path, home: Path, *args: str) -> Iterator[Served]:
    """`spyglass ARGS` (web or serve --http) in `repo`, once it printed the URL it serves."""
    err_path = home / f"server-{time.monotonic_ns()}.txt"
    with open(err_path, "w", encoding="utf-8") as err:
        proc = subprocess.Popen([sys.executable, "-m", "spyglass", *args], cwd=repo,
                                env=env_for(home), stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 60
        url = None
        while url is None and time.monotonic() < deadline:
            text = err_path.read_text(encoding="utf-8")
            found = re.search(r" at (http://\S+)", text)
            if found:
                url = found.group(1).rstrip("/")
            elif proc.poll() is not None:
                break
            else:
                time.sleep(0.05)
        assert url, f"server did not start: {err_path.read_text(encoding='utf-8')}"
        yield Served(url, proc, err_path)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def memory_kb(pid: int, field: str = "VmRSS") -> int:
    """A process's resident memory (VmRSS) or its peak (VmHWM) from /proc, in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")
