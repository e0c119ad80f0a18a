"""A hostile repository beside a secret, and one call through each surface (CLI, MCP, HTTP)
that reports what came back: the text, and whether it was a traceback, a 5xx or output
that could not be written as UTF-8."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
from mcp import Client
from starlette.testclient import TestClient

from spyglass.cli.main import main
from spyglass.mcp.server import build_server
from spyglass.query.facade import CodeIntel
from spyglass.web.app import create_app

CANARY = "CANARY-5f1d9c-outside-the-root"
SECRET_DEF = "sekrit_canary_5f1d9c"
SECRET = f'def {SECRET_DEF}():\n    return "{CANARY}"\n'
SAFE = "def safe_race():\n    return 0\n"
FILES = {
    "a.py": "def helper(x):\n    return x + 1\n",
    "pkg/__init__.py": "",
    "pkg/util.py": "from a import helper\n\n\ndef run():\n    return helper(2)\n",
    "tests/test_a.py": "from a import helper\n\n\ndef test_helper():\n    assert helper(1)\n",
    "race.py": SAFE,
    "raced/secret.py": SAFE,
}
ORIGIN = "http://127.0.0.1"
SURFACES = ("cli", "mcp", "http")


def commit_all(root: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "init"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def hostile_repo(base: Path, index: bool = True, git: bool = True) -> Path:
    """`base/repo`, with links out of the root (file, folder, absolute), a link inside, a
    link loop and a FIFO; `base/outside/secret.py` holds the canary."""
    outside = base / "outside"
    outside.mkdir(parents=True)
    (outside / "secret.py").write_text(SECRET)
    root = base / "repo"
    for path, text in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    os.symlink("../outside/secret.py", root / "link_out.py")
    os.symlink("../outside", root / "dir_out")
    os.symlink(str(outside / "secret.py"), root / "abs_out.py")
    os.symlink("a.py", root / "link_in.py")
    os.symlink("loop.py", root / "loop.py")
    if git:
        commit_all(root)
    os.mkfifo(root / "pipe.py")  # untracked: git does not track FIFOs
    if index:
        assert cli(root, ["index"]).code == 0
    return root


@dataclass
class Outcome:
    """What one call produced."""

    text: str
    code: int | str  # exit status, HTTP status or "error"/"ok" for MCP
    traceback: bool = False  # an uncaught exception (or a reasonless MCP error)
    server_error: bool = False  # HTTP 5xx
    unwritable: bool = False  # output that is not valid UTF-8 (lone surrogates)
    raw_control: bool = False  # a terminal control character (ESC, BEL, …) in CLI output

    @property
    def leaked(self) -> bool:
        return CANARY in self.text or SECRET_DEF in self.text


def _raw_control(text: str) -> bool:
    return any(ord(c) < 32 and c not in "\n\t" or c == "\x7f" for c in text)


def _utf8_ok(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# -- CLI: in-process main() -----------------------------------------------------------------
def cli(root: Path, args: list[str]) -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    crashed = False
    code: int | str
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["-C", str(root), *args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except BaseException:  # noqa: BLE001 - counted, not hidden
            crashed = True
            code = "exception"
            err.write(traceback.format_exc())
    text = out.getvalue() + err.getvalue()
    return Outcome(text, code, crashed or "Traceback" in text or code not in (0, 1, 2),
                   unwritable=not _utf8_ok(text), raw_control=_raw_control(text))


def cli_args(path: str, i: int) -> list[str]:
    """The i-th CLI shape for a client path (every command that takes one)."""
    shapes = [
        ["context", "--", f"{path}:1-5"],
        ["structure", "--", path],
        ["diagnostics", "--", path],
        ["find", "helper", f"--path={path}"],
        ["refs", f"--at={path}:1"],
        ["blast-radius", "--", path],
        ["tests", "--", path],
        ["explore", "--", path],
    ]
    return shapes[i % len(shapes)]


# -- MCP: in-process client -----------------------------------------------------------------
def mcp_call(path: str, i: int) -> tuple[str, dict[str, Any]]:
    shapes: list[tuple[str, dict[str, Any]]] = [
        ("code_context", {"spans": [{"path": path, "start_line": 1, "end_line": 5}]}),
        ("code_structure", {"path": path}),
        ("code_diagnostics", {"paths": [path]}),
        ("code_ast_query", {"query": "(module) @m", "paths": [path]}),
        ("code_find_symbol", {"name": "*", "path": path}),
        ("code_references", {"path": path, "line": 1}),
        ("code_blast_radius", {"targets": [path]}),
        ("code_suggest_tests", {"targets": [path]}),
        ("code_explore", {"query": path[:500] or "x", "path": path}),
    ]
    return shapes[i % len(shapes)]


def _mcp_outcome(result: Any) -> Outcome:
    texts = [getattr(c, "text", "") for c in result.content]
    structured = result.structured_content
    body = json.dumps(structured, ensure_ascii=False) if structured is not None else ""
    text = "\n".join(texts) + body
    reasonless = result.is_error and (not "".join(texts).strip() or any(
        t.startswith("Error executing tool") and t.rstrip().endswith(":") for t in texts))
    return Outcome(text, "error" if result.is_error else "ok",
                   "Traceback" in text or reasonless, unwritable=not _utf8_ok(text))


@contextlib.asynccontextmanager
async def mcp_client(root: Path) -> Any:
    built = build_server(root, environ={})
    async with Client(built.server, mode="legacy") as client:
        yield client


async def mcp_one(client: Any, name: str, args: dict[str, Any]) -> Outcome:
    try:
        result = await client.call_tool(name, args)
    except Exception:  # noqa: BLE001 - a protocol-level failure is counted
        return Outcome(traceback.format_exc(), "exception", True)
    return _mcp_outcome(result)


def mcp_many(root: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Outcome]:
    async def run() -> list[Outcome]:
        async with mcp_client(root) as client:
            return [await mcp_one(client, n, a) for n, a in calls]
    return anyio.run(run)


# -- HTTP: Starlette TestClient -------------------------------------------------------------
@contextlib.contextmanager
def http_client(root: Path) -> Iterator[tuple[TestClient, str]]:
    client = TestClient(create_app(CodeIntel(root)), base_url=ORIGIN,
                        raise_server_exceptions=False)
    try:
        repo_id = client.get("/api/v1/code/repos").json()["repos"][0]["repo_id"]
        yield client, f"/api/v1/code/repos/{repo_id}"
    finally:
        client.close()


def _q(text: str) -> str:
    """Percent-encoded as a hostile client would send it (undecodable bytes as they are)."""
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def http_one(client: TestClient, base: str, path: str, i: int) -> Outcome:
    p = _q(path)
    shapes = [
        ("GET", f"/context?path={p}&start=1&end=5"),
        ("GET", f"/structure?path={p}"),
        ("GET", f"/diagnostics?path={p}"),
        ("POST", "/ast-query"),
        ("GET", f"/symbols?q=helper&path={p}"),
        ("GET", f"/references?path={p}&line=1"),
        ("GET", f"/blast-radius?target={p}"),
        ("GET", f"/tests?target={p}"),
        ("GET", f"/explore?q={_q(path[:500] or 'x')}&path={p}"),
        ("GET", f"/api/v1/runs/workspace/code/graph?path={p}&line=1"),
    ]
    method, tail = shapes[i % len(shapes)]
    if tail.startswith("/api/"):
        base = ""
    try:
        if method == "POST":
            body = json.dumps({"query": "(module) @m", "paths": [path]})  # \\u escapes
            r = client.post(base + tail, content=body.encode(),
                            headers={"Origin": ORIGIN, "Content-Type": "application/json"})
        else:
            r = client.get(base + tail)
    except Exception as exc:  # noqa: BLE001 - a client-side crash is a finding too
        if type(exc).__name__ == "InvalidURL":  # the client's own URL limit (64 KiB)
            return Outcome(str(exc), "client-refused")
        return Outcome(traceback.format_exc(), "exception", True)
    raw = r.content
    try:
        text = raw.decode("utf-8")
        unwritable = False
    except UnicodeDecodeError:
        text, unwritable = raw.decode("utf-8", "replace"), True
    try:
        unwritable = unwritable or not _utf8_ok(json.dumps(json.loads(text),
                                                           ensure_ascii=False))
    except ValueError:
        unwritable = True  # every endpoint here answers JSON
    return Outcome(text, r.status_code, "Traceback" in text, r.status_code >= 500, unwritable)
