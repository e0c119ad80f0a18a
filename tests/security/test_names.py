"""File names that are not UTF-8 (tracked, untracked, in a plain folder): every MCP tool,
the CLI commands and the HTTP endpoints answer, and the names are reported in coverage as
'undecodable file name' — written with \\xNN escapes, never as lone surrogates."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
import surfaces as sf

from spyglass.config import ALL_TOOLS
from spyglass.index import filenames

BAD = {b"bad\xff.py": b"def in_bad():\n    return 1\n",
       b"dir\xfd/inner.py": b"def in_dir():\n    return 2\n"}
UNTRACKED_BAD = {b"new\xfe.py": b"x = 1\n"}
SHOWN = {"bad\\xff.py", "dir\\xfd/", "new\\xfe.py"}  # as reported (a tracked file in an
# undecodable folder is reported by its own path, dir\\xfd/inner.py)
GOOD = {
    "pkg/__init__.py": "",
    "pkg/util.py": "def helper(x):\n    return x + 1\n",
    "pkg/main.py": "from pkg.util import helper\n\n\ndef run():\n    return helper(2)\n",
    "tests/test_util.py": "from pkg.util import helper\n\n\ndef test_helper():\n"
                          "    assert helper(1) == 2\n",
    "lit\\xfc.py": "def literal_backslash():\n    return 3\n",  # spelled like a stand-in
    "pkg/shapes.py": "class Shape:\n    pass\n\n\nclass Square(Shape):\n    pass\n",
}


def _write(root: Path, files: dict[bytes, bytes]) -> None:
    for raw, data in files.items():
        full = os.path.join(os.fsencode(root), raw)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as fh:
            fh.write(data)


@pytest.fixture(params=["tracked", "untracked", "folder"], scope="module")
def repo(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp(request.param) / "repo"
    for path, text in GOOD.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    _write(root, {b"lit\xfc.py": b"y = 2\n"})  # its stand-in collides with lit\\xfc.py
    if request.param == "tracked":
        _write(root, BAD)
        sf.commit_all(root)
        assert b"bad" in subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True,
                                        capture_output=True).stdout
    elif request.param == "untracked":
        sf.commit_all(root)
        _write(root, BAD)
    else:
        _write(root, BAD)
    index = sf.cli(root, ["index"])
    assert index.code == 0 and not index.traceback, index.text
    _write(root, UNTRACKED_BAD)
    return root


def _reported(coverage: dict[str, Any]) -> dict[str, str]:
    out = {s["path"]: s["reason"] for s in coverage["skipped"]}
    if "dir\\xfd/inner.py" in out:
        out["dir\\xfd/"] = out.pop("dir\\xfd/inner.py")
    return out


def _clean(text: str) -> None:
    text.encode("utf-8")  # raises on a lone surrogate
    assert "Traceback" not in text


# -- CLI ------------------------------------------------------------------------------------
CLI = [["status"], ["find", "helper"], ["find", "*", "--path", "pkg"], ["refs", "helper"],
       ["callers", "helper"], ["refs", "--at", "pkg/util.py:1"], ["structure", "pkg"],
       ["structure", "."], ["blast-radius", "pkg/util.py"], ["tests", "pkg/util.py"],
       ["tests"], ["blast-radius"], ["explore", "helper"], ["diagnostics"],
       ["diagnostics", "pkg"], ["context", "pkg/util.py:1-2"], ["index"]]


@pytest.mark.parametrize("args", CLI, ids=lambda a: " ".join(a))
def test_cli_commands_answer(repo: Path, args: list[str]) -> None:
    for as_json in (False, True):
        out = sf.cli(repo, [*args, "--json"] if as_json else args)
        assert out.code == 0 and not out.traceback and not out.unwritable, out.text
        _clean(out.text)


def test_cli_status_reports_the_names(repo: Path) -> None:
    out = sf.cli(repo, ["status", "--json"])
    body = json.loads(out.text)
    skipped = _reported(body["coverage"])
    assert {p: skipped.get(p) for p in SHOWN} == dict.fromkeys(SHOWN, filenames.UNDECODABLE)
    reasons = dict(body["results"][0]["skipped_by_reason"])
    assert reasons[filenames.UNDECODABLE] >= len(SHOWN)
    found = json.loads(sf.cli(repo, ["find", "literal_backslash", "--json"]).text)
    assert [r["path"] for r in found["results"]] == ["lit\\xfc.py"]  # the real file wins
    for name in ("in_bad", "in_dir"):  # never read, so never indexed (a pattern: a plain
        # name naming nothing is bad input on the command line)
        assert json.loads(sf.cli(repo, ["find", f"*{name}*", "--json"]).text)["results"] == []


# -- MCP ------------------------------------------------------------------------------------
MCP: dict[str, dict[str, Any]] = {
    "code_explore": {"query": "helper"},
    "code_find_symbol": {"name": "helper"},
    "code_references": {"path": "pkg/util.py", "line": 1, "column": 5},
    "code_callers": {"name": "helper"},
    "code_callees": {"name": "run"},
    "code_type_hierarchy": {"name": "Shape"},
    "code_structure": {"path": "pkg"},
    "code_blast_radius": {},
    "code_suggest_tests": {"targets": ["pkg/util.py"]},
    "code_status": {},
    "code_context": {"spans": [{"path": "pkg/util.py", "start_line": 1, "end_line": 2}]},
    "code_diagnostics": {},
    "code_ast_query": {"query": "(identifier) @i"},
}


def test_every_mcp_tool_answers(repo: Path) -> None:
    assert set(MCP) == set(ALL_TOOLS)
    names = list(MCP) + ["code_status"]
    outcomes = sf.mcp_many(repo, [(n, MCP[n]) for n in names[:-1]]
                           + [("code_status", {"index": True})])
    for name, out in zip(names, outcomes, strict=True):
        assert out.code == "ok" and not out.traceback and not out.unwritable, (name, out.text)
    async def status() -> dict[str, Any]:
        async with sf.mcp_client(repo) as client:
            result = await client.call_tool("code_status", {})
            return dict(result.structured_content)
    body = anyio.run(status)
    assert SHOWN <= set(_reported(body["coverage"]))


# -- HTTP -----------------------------------------------------------------------------------
HTTP = ["", "/symbols?q=helper", "/symbols?q=*&path=pkg", "/references?name=helper",
        "/callers?name=helper", "/references?path=pkg/util.py&line=1", "/structure?path=pkg",
        "/structure?path=.", "/diagnostics", "/diagnostics?path=pkg",
        "/context?path=pkg/util.py&start=1&end=2", "/blast-radius", "/blast-radius?target=pkg",
        "/tests", "/tests?target=pkg/util.py", "/explore?q=helper", "/jobs",
        "/events?follow=0"]


def test_every_http_endpoint_answers(repo: Path) -> None:
    with sf.http_client(repo) as (client, base):
        for tail in HTTP:
            r = client.get(base + tail)
            assert r.status_code == 200, (tail, r.text)
            _clean(r.content.decode("utf-8"))
        for url in ("/api/v1/code/repos", "/api/v1/runs/workspace/code/diff-overlay",
                    "/api/v1/runs/workspace/code/graph?path=pkg/util.py"):
            r = client.get(url)
            assert r.status_code == 200, (url, r.text)
            _clean(r.content.decode("utf-8"))
        r = client.post(base + "/ast-query", json={"query": "(identifier) @i"},
                        headers={"Origin": sf.ORIGIN})
        assert r.status_code == 200, r.text
        r = client.post(base + "/index", headers={"Origin": sf.ORIGIN})
        assert r.status_code == 202, r.text
        job = base + "/jobs/" + r.json()["job_id"]
        end = time.monotonic() + 120  # the index runs in the background: let it finish
        while not client.get(job).json()["job"]["done"] and time.monotonic() < end:
            time.sleep(0.1)
        summary = client.get(base).json()
        text = json.dumps(summary)
        assert all(json.dumps(name)[1:-1] in text for name in ("bad\\xff.py", "new\\xfe.py"))
        body = client.get(base + "/symbols?q=helper").json()
        assert SHOWN <= set(_reported(body["coverage"]))


def test_a_change_to_an_undecodable_file_answers(repo: Path) -> None:
    """--diff and the workspace overlay see a changed undecodable file as a changed file
    they cannot analyse, and answer."""
    if not (repo / ".git").exists():
        pytest.skip("a plain folder has no --diff")
    _write(repo, {b"bad\xff.py": b"def in_bad():\n    return 10\n"})
    for args in (["tests", "--diff", "HEAD", "--json"], ["blast-radius", "--diff", "HEAD"],
                 ["blast-radius", "--json"], ["status", "--json"]):
        out = sf.cli(repo, args)
        assert out.code == 0 and not out.traceback and not out.unwritable, (args, out.text)
