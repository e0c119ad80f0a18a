"""The `repo` argument of the front ends (MCP, CLI, HTTP) on a team store: a client naming
another repository cannot leave the configured set ([team] repos), nor read a file outside
the named repository (a repository without a checkout here has no files to read at all);
beyond loopback every repository's routes need the token; the store URL's password is
never printed. Against the real PostgreSQL of scripts/postgres.sh."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixture import commit_all, write_files
from mcp import Client
from pgstore import RO_URL, RW_URL, unreachable
from starlette.testclient import TestClient

from spyglass.config import Config, load_config
from spyglass.mcp.server import build_server
from spyglass.query.facade import CodeIntel
from spyglass.web.app import create_app
from spyglass.web.http import slug

SECRET = "TOP-SECRET-CANARY-LINE"  # in a file beside the checkouts: never in an answer
TOKEN = "store-repos-admin-token-0123456789"
HOME = {"app/__init__.py": "", "app/core.py": "def near():\n    return 1\n"}
OTHER = {"far/__init__.py": "", "far/mod.py": "def far_away():\n    return 2\n"}
HIDDEN = {"hid/__init__.py": "", "hid/secret.py": "def hidden_thing():\n    return 3\n"}
HOSTILE_IDS = ["../../etc", "/etc", "..", "x\x00y", "a" * 1000, "%2e%2e/%2e%2e",
               "test/../../", "*", "' OR '1'='1"]


@dataclasses.dataclass(frozen=True)
class Store:
    """The checkout, its host config, the ids of the other repositories, a file outside."""

    home: Path
    config: Path
    other_id: str
    hidden_id: str
    outside: Path


def _reachable() -> None:
    why = unreachable()
    if why:
        pytest.skip(why)


def _index(where: Path, files: dict[str, str], repo: str) -> Path:
    write_files(where, files)
    commit_all(where)
    CodeIntel(where, config=Config(store_url=RW_URL, store_repo=repo)).index(precise="off")
    return where


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    _reachable()
    base = tmp_path_factory.mktemp("hostile-store-repos")
    tag = uuid.uuid4().hex[:10]
    home_id, other_id, hidden_id = (f"test/{tag}-{n}" for n in ("home", "other", "hidden"))
    home = _index(base / "home", HOME, home_id)
    gone = _index(base / "other", OTHER, other_id)
    shutil.rmtree(gone)
    _index(base / "hidden", HIDDEN, hidden_id)  # in the store, not in [team] repos
    outside = base / "outside.txt"
    outside.write_text(SECRET + "\n")
    config = base / "host.toml"
    config.write_text(f'[store]\nurl = "{RO_URL}"\nrepo = "{home_id}"\n\n[team.repos]\n'
                      f'"{home_id}" = "{home}"\n"{other_id}" = "{gone}"\n')
    yield Store(home, config, other_id, hidden_id, outside)


def _clean(text: str) -> None:
    assert SECRET not in text and "hidden_thing" not in text and "root:x:" not in text
    assert "spyglass-test-ro" not in text and "spyglass-test-rw" not in text  # passwords


def _escapes(store: Store) -> list[dict[str, Any]]:
    """Arguments trying to read outside the named repository."""
    out: list[dict[str, Any]] = []
    for path in ("/etc/passwd", "../../../../../../etc/passwd", str(store.outside),
                 "../outside.txt", "far/../../outside.txt"):
        out += [{"tool": "code_structure", "path": path},
                {"tool": "code_find_symbol", "name": "*", "path": path},
                {"tool": "code_references", "name": "far_away", "path": path, "line": 1}]
    return out


@pytest.mark.anyio
async def test_mcp_repo_cannot_leave_the_configured_set(store: Store) -> None:
    built = build_server(store.home, environ={}, config_path=str(store.config))
    async with Client(built.server, mode="legacy") as client:
        for repo in [*HOSTILE_IDS, store.hidden_id]:
            for tool, args in (("code_find_symbol", {"name": "hidden_thing"}),
                               ("code_status", {}), ("code_structure", {"path": "hid"})):
                r = await client.call_tool(tool, {**args, "repo": repo})
                text = json.dumps(r.structured_content) + r.content[0].text
                assert r.is_error, (repo, tool, text[:300])
                _clean(text)
        for case in _escapes(store):
            args = {k: v for k, v in case.items() if k != "tool"}
            r = await client.call_tool(case["tool"], {**args, "repo": store.other_id})
            assert r.is_error, case
            _clean(r.content[0].text)
        status = await client.call_tool("code_status", {})
        listed = {x["repo"] for x in status.structured_content["results"][0]["store_repos"]}  # type: ignore[index]
        assert store.hidden_id not in listed
        _clean(status.content[0].text)


def test_cli_repo_cannot_leave_the_configured_set(store: Store, tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    for repo in ("../../etc", store.hidden_id):
        out = subprocess.run([sys.executable, "-m", "spyglass", "--config", str(store.config),
                              "find", "hidden_thing", "--repo", repo, "--json"],
                             cwd=store.home, env=env, capture_output=True, text=True,
                             check=False)
        assert out.returncode == 2, (repo, out.stdout[:300])
        _clean(out.stdout + out.stderr)
    out = subprocess.run([sys.executable, "-m", "spyglass", "--config", str(store.config),
                          "structure", str(store.outside), "--repo", store.other_id],
                         cwd=store.home, env=env, capture_output=True, text=True, check=False)
    assert out.returncode != 0
    _clean(out.stdout + out.stderr)


def _intel(store: Store) -> CodeIntel:
    ci = CodeIntel(store.home, config=load_config(store.config, repo_root=store.home))
    ci.config_path = store.config
    return ci


def test_http_repo_routes_stay_in_the_configured_set(store: Store) -> None:
    client = TestClient(create_app(_intel(store)), base_url="http://127.0.0.1")
    other = f"/api/v1/code/repos/{slug(store.other_id)}"
    for repo_id in (slug(store.hidden_id), "..", "%2e%2e", "etc", "x" * 500):
        r = client.get(f"/api/v1/code/repos/{repo_id}/symbols", params={"q": "hidden_thing"})
        assert r.status_code == 404, (repo_id, r.text)
        _clean(r.text)
    for path in ("/etc/passwd", "../outside.txt", str(store.outside), "far/../../outside.txt"):
        for route, params in (("/file", {"path": path}), ("/structure", {"path": path}),
                              ("/lines", {"at": f"{path}:1"})):
            r = client.get(other + route, params=params)
            if route == "/lines":  # per position: a line, or the reason it is not read
                assert r.status_code == 200 and r.json()["lines"] == {}, r.text
                assert r.json()["problems"], r.text
            else:
                assert r.status_code in (400, 404), (route, path, r.status_code)
            _clean(r.text)
    _clean(client.get("/api/v1/code/repos").text)


def test_http_beyond_loopback_needs_the_token_for_every_repository(store: Store) -> None:
    ci = _intel(store)
    ci.config = dataclasses.replace(ci.config, admin_token=TOKEN)
    client = TestClient(create_app(ci, "0.0.0.0", None), base_url="http://127.0.0.1")
    other = f"/api/v1/code/repos/{slug(store.other_id)}/symbols"
    for auth in (None, "Bearer wrong"):
        r = client.get(other, params={"q": "far_away"},
                       headers={"Authorization": auth} if auth else {})
        assert r.status_code == 401, r.text
    ok = client.get(other, params={"q": "far_away"},
                    headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200 and ok.json()["results"][0]["path"] == "far/mod.py"


def test_the_store_password_is_never_printed(store: Store, tmp_path: Path) -> None:
    """A canary password (wrong, so every store call fails) and the right one: neither
    appears in any answer or error of the repo argument's paths."""
    canary = f"canary-{uuid.uuid4().hex}"
    wrong = RO_URL.replace("spyglass-test-ro", canary)
    for url, secret in ((wrong, canary), (RO_URL, "spyglass-test-ro")):
        cfg = tmp_path / f"{secret[:6]}.toml"
        cfg.write_text(f'[store]\nurl = "{url}"\n')
        env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
        for argv in (["status", "--repo", store.other_id, "--json"],
                     ["find", "far_away", "--repo", store.other_id]):
            out = subprocess.run([sys.executable, "-m", "spyglass", "--config", str(cfg),
                                  *argv], cwd=store.home, env=env, capture_output=True,
                                 text=True, check=False)
            assert secret not in out.stdout + out.stderr, argv
        ci = CodeIntel(store.home, config=load_config(cfg, repo_root=store.home))
        client = TestClient(create_app(ci), base_url="http://127.0.0.1")
        for path in ("/api/v1/code/repos", f"/api/v1/code/repos/{slug(store.other_id)}",
                     f"/api/v1/code/repos/{slug(store.other_id)}/symbols?q=far_away"):
            assert secret not in client.get(path).text, path
