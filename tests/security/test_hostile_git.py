"""Hostile repositories through every surface that takes a `diff` or `ref`: no canary is
ever touched, and the answers stay right (docs/security.md, "Git")."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from starlette.testclient import TestClient

from spyglass.cli.main import main
from spyglass.mcp.server import build_server
from spyglass.query.facade import CodeIntel
from spyglass.web.app import create_app

sys.path.insert(0, str(Path(__file__).parent))  # the helper beside this file, package or not
from hostile_repos import (
    NAME,
    SCENARIOS,
    Scenario,
    base_repo,
    build,
    control,
    git,
    partial_clone,
    plain_env,
)

ORIGIN = "http://127.0.0.1"
CHANGED = "pkg.m.two"  # the working-tree edit's symbol: every --diff HEAD must find it


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME and spyglass host config (no user git config, no host settings)."""
    home = tmp_path / "user-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg"))
    return tmp_path


def cli(root: Path, *args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["-C", str(root), *args])
    return code, out.getvalue() + err.getvalue()


def cli_surfaces(root: Path, partial: bool) -> list[tuple[str, bool, str]]:
    """(surface, answer right?, detail) for each CLI command taking a ref or a diff."""
    out = []
    code, text = cli(root, "index", "--ref", "HEAD~1")
    if partial:  # the blob the clone lacks is skipped with the reason, never fetched
        text += cli(root, "status", "--json")[1]
    right = code == 0 and (not partial or "partial clone: blob" in text)
    out.append(("cli index --ref HEAD~1", right, text))
    code, text = cli(root, "index")
    out.append(("cli index", code == 0, text))
    code, text = cli(root, "tests", "--diff", "HEAD")
    out.append(("cli tests --diff HEAD", code == 0 and "test_two" in text, text))
    code, text = cli(root, "blast-radius", "--diff", "HEAD")
    out.append(("cli blast-radius --diff HEAD", code == 0 and CHANGED in text
                and "pkg.m.one" not in text, text))
    code, text = cli(root, "blast-radius", "--diff", "HEAD~1", "--json")
    right = code == 0 and CHANGED in text and (not partial or "partial clone: object" in text)
    out.append(("cli blast-radius --diff HEAD~1", right, text))
    code, text = cli(root, "status")
    out.append(("cli status", code == 0 and "pkg/m.py" in text, text))
    code, text = cli(root, "refs", "two")
    out.append(("cli refs", code == 0 and "tests/test_m.py" in text, text))
    return out


def mcp_surfaces(root: Path) -> list[tuple[str, bool, str]]:
    async def run() -> list[tuple[str, bool, str]]:
        built = build_server(root, environ={})
        out = []
        async with Client(built.server, mode="legacy") as client:
            for tool, args, want in (
                    ("code_status", {"index": True}, "completed"),
                    ("code_suggest_tests", {"diff": "HEAD"}, "test_two"),
                    ("code_blast_radius", {"diff": "HEAD"}, CHANGED)):
                result = await client.call_tool(tool, args)
                text = json.dumps(result.structured_content) + " ".join(
                    getattr(c, "text", "") for c in result.content)
                out.append((f"mcp {tool} {args}", not result.is_error and want in text, text))
        return out
    return anyio.run(run)


def http_surfaces(root: Path) -> list[tuple[str, bool, str]]:
    ci = CodeIntel(root)
    out = []
    with TestClient(create_app(ci), base_url=ORIGIN) as client:
        repo = client.app.state.web.repo_id  # type: ignore[attr-defined]
        base = f"/api/v1/code/repos/{repo}"
        r = client.post(f"{base}/index", headers={"Origin": ORIGIN})
        job: dict[str, Any] = {}
        if r.status_code == 202:
            deadline = time.monotonic() + 50
            while time.monotonic() < deadline:
                job = client.get(f"{base}/jobs/{r.json()['job_id']}").json()["job"]
                if job["done"]:
                    break
                time.sleep(0.05)
            client.app.state.web.jobs.thread.join(10)  # type: ignore[attr-defined]
        out.append(("http POST index", job.get("state") == "completed", r.text + str(job)))
        for tail, want in (("/tests?diff=HEAD", "test_two"),
                           ("/blast-radius?diff=HEAD", CHANGED)):
            r = client.get(base + tail)
            out.append((f"http GET {tail}", r.status_code == 200 and want in r.text, r.text))
    return out


def fired(canaries: Path) -> list[str]:
    return sorted(p.name for p in canaries.iterdir()) if canaries.exists() else []


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_hostile_repository_runs_nothing(scenario: Scenario, isolated: Path,
                                         record_property: Any,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    canaries = isolated / "canaries"
    canaries.mkdir()
    canary = canaries / scenario.name
    root = build(scenario, isolated, canary)
    assert not fired(canaries), "building the scenario fired its canary"
    if scenario.control is not None:
        assert control(scenario, root, canary), \
            f"plain `git {' '.join(scenario.control)}` did not fire: the scenario is not armed"
    for key, value in scenario.environment(canary).items():
        monkeypatch.setenv(key, value)
    results = [*cli_surfaces(root, scenario.partial), *mcp_surfaces(root),
               *http_surfaces(root)]
    touched = fired(canaries)
    record_property("security_count", ["hostile-git", 1, len(results), len(touched)])
    assert touched == [], f"{scenario.name}: canary touched {touched}"
    wrong = [(name, detail[-600:]) for name, right, detail in results if not right]
    assert not wrong, wrong


def test_dubious_ownership_names_gits_fix(isolated: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root: only root can give a repository to another user")
    root = base_repo(isolated / NAME)
    shutil.chown(root, user=54321, group=54321)
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            os.chown(os.path.join(folder, name), 54321, 54321, follow_symlinks=False)
    for args in (("status",), ("index",), ("tests", "--diff", "HEAD")):
        code, text = cli(root, *args)
        assert code != 0, (args, text)
        line = text.strip()
        assert "\n" not in line, line
        assert f"git config --global --add safe.directory {root}" in line, line
        assert "fsck" not in line and "not a git repository" not in line, line


def test_outside_core_worktree_is_a_clear_error(isolated: Path) -> None:
    root = base_repo(isolated / NAME)
    elsewhere = isolated / "elsewhere"
    (elsewhere / "secret").mkdir(parents=True)
    (elsewhere / "secret" / "keys.py").write_text("TOKEN = 'x'\n")
    for target in (elsewhere, isolated, root / "pkg"):
        git(root, "config", "core.worktree", str(target))
        for args in (("status",), ("index",), ("find", "TOKEN")):
            code, text = cli(root, *args)
            assert code != 0, (target, args, text)
            line = text.strip()
            assert "\n" not in line and "core.worktree" in line, line
            assert "fsck" not in line and "TOKEN" not in line, line
    git(root, "config", "--unset", "core.worktree")
    assert cli(root, "index")[0] == 0


def test_partial_clone_missing_object_message(isolated: Path) -> None:
    """A strict read of an object the partial clone lacks names the fix; nothing fetched."""
    from spyglass.errors import IndexUnavailable
    from spyglass.index import source as src
    root = partial_clone(isolated / NAME)
    missing = git(root, "rev-list", "--objects", "--no-walk", "--missing=print",
                  "HEAD~1").stdout.split("?", 1)[1].split()[0]
    git(root, "config", "remote.origin.url", "ext::sh -c false")
    git(root, "config", "protocol.ext.allow", "always")
    with pytest.raises(IndexUnavailable) as err:
        list(src.read_blobs(root, [missing], strict=True))
    assert str(err.value) == (f"partial clone: object {missing} is not present locally; "
                              "spyglass never fetches — run `git fetch`/`git backfill` "
                              "yourself")


def _layers(root: Path) -> dict[str, tuple[dict[str, str], list[str]]]:
    """The gateway's hardening split into its layers: (environment, options) of each alone."""
    from spyglass.index import gitcall
    plain = plain_env(root.parent / "home")
    full = gitcall.environment(gitcall.repo_config(root).pairs)
    bare = {k: v for k, v in gitcall.environment(()).items()
            if k not in ("GIT_ALLOW_PROTOCOL", "GIT_EXEC_PATH")}
    return {
        "neutralised names": ({**plain, **{k: v for k, v in full.items()
                                           if k.startswith("GIT_CONFIG_")}}, []),
        "static options": ({**bare, "PATH": plain["PATH"]}, gitcall.static_options()),
        "GIT_ALLOW_PROTOCOL": ({**plain, "GIT_ALLOW_PROTOCOL": gitcall.NO_PROTOCOL}, []),
        "no exec path": ({**plain, "PATH": full["PATH"], "GIT_EXEC_PATH": full["PATH"]}, []),
        "all": (full, gitcall.static_options()),
    }


# Which layer alone stops what: the control commands are porcelain (`git diff`, `status`,
# `commit`) the gateway never runs, so this shows each claim in docs/security.md holds even
# for a command that would read the work tree, fetch or run hooks.
ALONE = {"partial-clone": ("neutralised names", "static options", "GIT_ALLOW_PROTOCOL",
                           "no exec path"),
         "filter": ("neutralised names",), "racily": ("neutralised names",),
         "textconv": ("neutralised names", "static options"),
         "diff-driver": ("neutralised names", "static options"),
         "hooks": ("static options",), "fsmonitor": ("static options",),
         "external-diff": ("static options",), "config": (), "every": ()}


LAYERED = [s for s in SCENARIOS if s.control is not None and not s.environ and not s.tty]


@pytest.mark.parametrize("scenario", LAYERED, ids=[s.name for s in LAYERED])
def test_each_hardening_layer_alone(scenario: Scenario, isolated: Path) -> None:
    import subprocess

    from spyglass.index import gitcall
    canaries = isolated / "canaries"
    canaries.mkdir()
    canary = canaries / scenario.name
    root = build(scenario, isolated, canary)
    assert scenario.control is not None and control(scenario, root, canary)
    layers = next(v for k, v in ALONE.items() if scenario.name.startswith(k))
    for layer in (*layers, "all"):
        env, options = _layers(root)[layer]
        subprocess.run([gitcall.git_binary(), *options, *scenario.control], cwd=root, env=env,
                       capture_output=True, stdin=subprocess.DEVNULL, timeout=30, check=False)
        assert not canary.exists(), f"{scenario.name}: layer {layer!r} alone let it run"
