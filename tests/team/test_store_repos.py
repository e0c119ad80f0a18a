"""Front ends answer for every repository of the team store: the MCP tools' `repo` argument,
code_status listing the store's repositories, the CLI's `--repo`, the HTTP API's repository
routes; a repository without a checkout answers from its snapshot, saying so; the HTTP
index endpoint puts a job on the team store's queue."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fixture import commit_all, write_files
from mcp import Client
from pgstore import RO_URL, RW_URL
from starlette.testclient import TestClient

from spyglass.config import Config, load_config
from spyglass.mcp.server import build_server
from spyglass.query.facade import CodeIntel
from spyglass.web.app import create_app
from spyglass.web.http import slug

HOME = {"app/__init__.py": "", "app/core.py": "def near(x):\n    return x\n\n\nnear(1)\n"}
OTHER = {"far/__init__.py": "", "far/mod.py": "def far_away():\n    return 2\n",
         "far/use.py": "from far.mod import far_away\n\n\ndef go():\n    return far_away()\n"}
HIDDEN = {"hid/__init__.py": "", "hid/secret.py": "def hidden_thing():\n    return 3\n"}


@dataclass
class Store:
    """Three repositories in the team store; only `home` has a checkout here, and the
    host config lists `home` and `other` in [team] repos (`hidden` is not offered)."""

    home: Path
    config: Path
    rw_config: Path
    home_id: str
    other_id: str
    hidden_id: str


def _index(where: Path, files: dict[str, str], repo: str) -> Path:
    write_files(where, files)
    commit_all(where)
    CodeIntel(where, config=Config(store_url=RW_URL, store_repo=repo)).index(precise="off")
    return where


def _config(path: Path, url: str, s: dict[str, str], gone: Path) -> Path:
    path.write_text(f'[store]\nurl = "{url}"\nrepo = "{s["home"]}"\n\n[team.repos]\n'
                    f'"{s["home"]}" = "{s["home_path"]}"\n"{s["other"]}" = "{gone}"\n')
    return path


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, pg_url: str) -> Iterator[Store]:
    base = tmp_path_factory.mktemp("store-repos")
    tag = uuid.uuid4().hex[:10]
    ids = {"home": f"test/{tag}-home", "other": f"test/{tag}-other",
           "hidden": f"test/{tag}-hidden"}
    home = _index(base / "home", HOME, ids["home"])
    gone = _index(base / "other", OTHER, ids["other"])
    shutil.rmtree(gone)  # no checkout of it here: it answers from its snapshot
    _index(base / "hidden", HIDDEN, ids["hidden"])
    names = {**ids, "home_path": str(home)}
    yield Store(home, _config(base / "ro.toml", RO_URL, names, gone),
                _config(base / "rw.toml", RW_URL, names, gone),
                ids["home"], ids["other"], ids["hidden"])
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("DELETE FROM spyglass.queue WHERE repo LIKE %s", (f"test/{tag}-%",))


def _intel(store: Store, config: Path) -> CodeIntel:
    ci = CodeIntel(store.home, config=load_config(config, repo_root=store.home))
    ci.config_path = config
    return ci


def _structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    assert isinstance(data, dict)
    return data


@pytest.mark.anyio
async def test_mcp_repo_argument_and_status_listing(store: Store) -> None:
    built = build_server(store.home, environ={}, config_path=str(store.config))
    async with Client(built.server, mode="legacy") as client:
        said = await client.call_tool("code_status", {})
        assert f"store repo {store.other_id}" in said.content[0].text  # the text says it too
        status = _structured(said)["results"][0]
        listed = {r["repo"]: r for r in status["store_repos"]}
        assert set(listed) == {store.home_id, store.other_id}  # hidden: not configured
        assert listed[store.home_id]["answers_from"] == "checkout"
        other = listed[store.other_id]
        assert other["answers_from"] == "snapshot" and len(other["commit"]) == 40
        assert other["age_s"] is not None and other["age_s"] >= 0
        found = _structured(await client.call_tool(
            "code_find_symbol", {"name": "far_away", "repo": store.other_id}))
        assert [(r["repo"], r["path"], r["start_line"]) for r in found["results"]] == [
            (store.other_id, "far/mod.py", 1)]
        assert any("no checkout" in n for n in found["coverage"]["limitations"])
        refs = _structured(await client.call_tool(
            "code_callers", {"name": "far.mod.far_away", "repo": store.other_id}))
        assert {(r["path"], r["start_line"]) for r in refs["results"]} == {("far/use.py", 5)}
        outline = _structured(await client.call_tool(
            "code_structure", {"path": "far", "repo": store.other_id}))
        assert {r["symbol"] for r in outline["results"]} >= {"far.mod.far_away", "far.use.go"}
        mine = _structured(await client.call_tool("code_find_symbol", {"name": "near"}))
        assert [r["path"] for r in mine["results"]] == ["app/core.py"]  # its own checkout
        theirs = _structured(await client.call_tool(
            "code_status", {"repo": store.other_id}))["results"][0]
        assert theirs["repo"] == store.other_id and theirs["indexed"]
        refused = await client.call_tool("code_find_symbol",
                                         {"name": "hidden_thing", "repo": store.hidden_id})
        assert refused.is_error and "unknown repository" in refused.content[0].text


def test_cli_repo_option(store: Store, tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    out = subprocess.run([sys.executable, "-m", "spyglass", "--config", str(store.config),
                          "find", "far_away", "--repo", store.other_id, "--json"],
                         cwd=store.home, env=env, capture_output=True, text=True, check=True)
    results = json.loads(out.stdout)["results"]
    assert [(r["repo"], r["path"]) for r in results] == [(store.other_id, "far/mod.py")]
    bad = subprocess.run([sys.executable, "-m", "spyglass", "--config", str(store.config),
                          "find", "hidden_thing", "--repo", store.hidden_id],
                         cwd=store.home, env=env, capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "unknown repository" in bad.stderr


def test_http_serves_every_store_repository(store: Store) -> None:
    client = TestClient(create_app(_intel(store, store.config)), base_url="http://127.0.0.1")
    repos = client.get("/api/v1/code/repos").json()["repos"]
    ids = [r["repo_id"] for r in repos]
    assert slug(store.other_id) in ids and slug(store.hidden_id) not in ids
    other = f"/api/v1/code/repos/{slug(store.other_id)}"
    found = client.get(f"{other}/symbols", params={"q": "far_away"})
    assert found.status_code == 200, found.text
    assert [(r["repo"], r["path"]) for r in found.json()["results"]] == [
        (store.other_id, "far/mod.py")]
    summary = client.get(other).json()
    assert summary["repo"] == store.other_id and summary["indexed"]
    assert client.get(f"/api/v1/code/repos/{slug(store.hidden_id)}/symbols",
                      params={"q": "hidden_thing"}).status_code == 404
    live = client.get(f"{other}/file", params={"path": "far/mod.py"})
    assert live.status_code == 400 and "no checkout" in live.json()["error"]


def test_http_index_endpoint_enqueues(store: Store) -> None:
    ci = _intel(store, store.rw_config)
    client = TestClient(create_app(ci), base_url="http://127.0.0.1")
    base = f"/api/v1/code/repos/{slug(ci.repo)}"
    accepted = client.post(f"{base}/index", headers={"Origin": "http://127.0.0.1"},
                           json={"ref": "main"})
    assert accepted.status_code == 202, accepted.text
    body = accepted.json()
    assert body["job_id"].startswith("queue-") and body["job"]["ref"] == "main"
    again = client.post(f"{base}/index", headers={"Origin": "http://127.0.0.1"},
                        json={"ref": "main"}).json()
    assert again["job_id"] == body["job_id"]  # the same job while it waits
    polled = client.get(f"{base}/jobs/{body['job_id']}").json()["job"]
    assert polled["state"] == "queued" and polled["ref"] == "main"
    assert body["job_id"] in [j["id"] for j in client.get(f"{base}/jobs").json()["jobs"]]
    assert body["job_id"] in [j["id"] for j in client.get(base).json()["queued"]]
    status = ci.status().results[0]
    assert [j.id for j in status.queued] == [int(body["job_id"].removeprefix("queue-"))]  # type: ignore[attr-defined]
    with psycopg.connect(RW_URL, autocommit=True) as db:
        row = db.execute("SELECT repo, ref, state FROM spyglass.queue WHERE id = %s",
                         (int(body["job_id"].removeprefix("queue-")),)).fetchone()
    assert row == (store.home_id, "main", "queued")
    assert client.get(f"{base}/jobs/queue-999999999999").status_code == 404
