"""Helpers of the MCP end-to-end tests: the fixture repository, clients over stdio and HTTP."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from fixture import commit_all, write_files
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

FILES = {
    "pkg/__init__.py": "",
    "pkg/util.py": (
        "def helper(x):\n"
        "    return x + 1\n"
        "\n"
        "\n"
        "class Greeter:\n"
        "    def greet(self, name):\n"
        "        return 'hi ' + name\n"),
    "pkg/main.py": (
        "from pkg.util import helper, Greeter\n"
        "\n"
        "\n"
        "def run():\n"
        "    return helper(1)\n"
        "\n"
        "\n"
        "def welcome():\n"
        "    return Greeter().greet('you')\n"),
    "tests/test_util.py": (
        "from pkg.util import helper\n"
        "\n"
        "\n"
        "def test_helper():\n"
        "    assert helper(1) == 2\n"),
    "go.mod": "module example.com/demo\n\ngo 1.22\n",
    "calc/calc.go": (
        "package calc\n"
        "\n"
        "// Add adds.\n"
        "func Add(a, b int) int {\n"
        "\treturn a + b\n"
        "}\n"),
    "calc/calc_test.go": (
        "package calc\n"
        "\n"
        "import \"testing\"\n"
        "\n"
        "func TestAdd(t *testing.T) {\n"
        "\tif Add(1, 2) != 3 {\n"
        "\t\tt.Fatal(\"bad\")\n"
        "\t}\n"
        "}\n"),
    "cmd/main.go": (
        "package main\n"
        "\n"
        "import \"example.com/demo/calc\"\n"
        "\n"
        "func main() {\n"
        "\tprintln(calc.Add(1, 2))\n"
        "}\n"),
    "web/app.ts": "export function greet(name: string): string {\n  return `hi ${name}`;\n}\n",
    "broken.py": "def oops(:\n    pass\n",
}


URL_LINE = re.compile(r"MCP over streamable HTTP at (http://\S+/mcp)")


def write_repo(root: Path, files: dict[str, str] | None = None) -> Path:
    write_files(root, files or FILES)
    commit_all(root)
    return root


def server_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a spawned server: an empty host config, plus `extra`."""
    env = {"XDG_CONFIG_HOME": str(home / "xdg"), "HOME": str(home)}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    env.update(extra or {})
    return env


def run_cli(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(repo.parent / "xdg")}
    return subprocess.run([sys.executable, "-m", "spyglass", *args], cwd=repo, env=env,
                          capture_output=True, text=True, check=True)


@asynccontextmanager
async def stdio(repo: Path, *args: str, env: dict[str, str] | None = None,
                mode: str = "legacy", stderr: Path | None = None,
                cwd: Path | None = None, pre: tuple[str, ...] = ()) -> AsyncIterator[Client]:
    """An SDK client talking to `python -m spyglass PRE serve ARGS` started in `repo`."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "spyglass", *pre, "serve", *args],
                                   cwd=str(cwd or repo), env=server_env(repo.parent, env))
    err_path = stderr or repo.parent / "serve-stderr.txt"
    with open(err_path, "w", encoding="utf-8") as err:  # noqa: ASYNC230 - the child's stderr
        async with Client(stdio_client(params, errlog=err), mode=mode,  # type: ignore[arg-type]
                          read_timeout_seconds=60) as client:
            yield client


@contextmanager
def http_serving(repo: Path, home: Path, *args: str) -> Iterator[tuple[str, Path]]:
    """`spyglass serve --http 127.0.0.1:0 ARGS` in `repo` (host config under `home`):
    yields (url, stderr file) once the server printed its URL."""
    err_path = home / "http-stderr.txt"
    env = {**os.environ, **server_env(home)}
    with open(err_path, "w", encoding="utf-8") as err:
        proc = subprocess.Popen([sys.executable, "-m", "spyglass", "serve", "--http",
                                 "127.0.0.1:0", *args], cwd=repo, env=env,
                                stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 60
        url = None
        while url is None and time.monotonic() < deadline:
            found = URL_LINE.search(err_path.read_text(encoding="utf-8"))
            if found:
                url = found.group(1)
            elif proc.poll() is not None:
                break
            else:
                time.sleep(0.05)
        assert url, f"server did not start: {err_path.read_text(encoding='utf-8')}"
        yield url, err_path
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def copy_repo(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, symlinks=True)
    return dest


def payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def error_text(result: Any) -> str:
    assert result.is_error, result
    return " ".join(c.text for c in result.content)
