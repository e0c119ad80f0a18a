"""The inputs issue 11 named as answering 500 or a traceback now answer 4xx with a JSON
reason (docs/security.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from serve_harness import make_repo
from starlette.testclient import TestClient

from spyglass.query.facade import CodeIntel
from spyglass.web.app import create_app


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TestClient:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    app = create_app(CodeIntel(make_repo(tmp_path / "repo")))
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


def ast_url(client: TestClient) -> str:
    return f"/api/v1/code/repos/{client.app.state.web.repo_id}/ast-query"  # type: ignore[attr-defined]


def test_an_origin_with_a_bad_port_is_refused(client: TestClient) -> None:
    r = client.post(ast_url(client), content=b"{}", headers={"Origin": "http://127.0.0.1:abc"})
    assert r.status_code == 403 and "not a valid origin" in r.json()["error"]


@pytest.mark.parametrize("body,reason", [
    (b"[]", "JSON object"), (b"null", "JSON object"), (b'"query"', "JSON object"),
    (b"[" * 100_000, "nested too deeply"), (b"{" * 3 + b"}", "must be JSON"),
    (json.dumps({"q": [[[[[[[[]]]]]]]] * 1}).encode(), "the body needs 'query'"),
    (json.dumps({"query": "x", "paths": [[]] * 1}).encode(), "paths must be a list of strings"),
])
def test_bad_ast_query_bodies_are_400_with_a_reason(client: TestClient, body: bytes,
                                                    reason: str) -> None:
    r = client.post(ast_url(client), content=body)
    assert r.status_code == 400 and reason in r.json()["error"], r.text


def test_json_nested_past_the_bound_is_refused(client: TestClient) -> None:
    deep: object = "(identifier) @i"
    for _ in range(70):
        deep = [deep]
    r = client.post(ast_url(client), content=json.dumps({"query": "(identifier) @i",
                                                         "paths": deep}).encode())
    assert r.status_code == 400 and "deeper than 64" in r.json()["error"]


@pytest.mark.parametrize("headers", [{"Sec-Fetch-Site": "cross-site"},
                                     {"Origin": "http://evil.example"}])
def test_a_cross_site_read_of_the_api_is_refused(client: TestClient,
                                                 headers: dict[str, str]) -> None:
    repo_id = client.app.state.web.repo_id  # type: ignore[attr-defined]
    r = client.get(f"/api/v1/code/repos/{repo_id}/tests", params={"diff": "HEAD"},
                   headers=headers)
    assert r.status_code == 403 and r.json()["error"]
    assert client.get("/", headers=headers).status_code == 200  # a link to the page works
    same = client.get(f"/api/v1/code/repos/{repo_id}", headers={"Origin": "http://127.0.0.1",
                                                                 "Sec-Fetch-Site": "same-origin"})
    assert same.status_code == 200
