"""Who may call the server: Host allowlist, Origin on POST, the admin token when configured."""

from __future__ import annotations

import json
from typing import Any

import pytest

from spyglass.web.security import Guard, split_host


@pytest.mark.parametrize("origin", ["http://evil.example", "http://127.0.0.1:9999", "null",
                                    "file://", "https://127.0.0.1.evil.example"])
def test_bad_origin_on_post_is_403(web: Any, origin: str) -> None:
    r = web.client.post(web.url("/index"), headers={"Origin": origin})
    assert r.status_code == 403
    assert "Origin" in r.json()["error"] or "not allowed" in r.json()["error"]
    assert web.get("/jobs").json()["jobs"] == []


def test_cross_site_fetch_metadata_is_403(web: Any) -> None:
    r = web.client.post(web.url("/index"), headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403


@pytest.mark.parametrize("origin", ["http://127.0.0.1", "http://localhost"])
def test_same_host_or_localhost_origin_is_accepted(web: Any, origin: str) -> None:
    r = web.client.post(web.url("/index"), headers={"Origin": origin})
    assert r.status_code == 202
    web.wait(r.json()["job_id"])


def test_admin_token_required_when_configured(make_web: Any) -> None:
    web = make_web(admin_token="s3cret")
    assert web.get("").json()["admin_token_required"] is True
    missing = web.index()
    assert missing.status_code == 403 and "admin token required" in missing.json()["error"]
    wrong = web.index(Authorization="Bearer nope")
    assert wrong.status_code == 403 and "does not match" in wrong.json()["error"]
    basic = web.index(Authorization="Basic czNjcmV0")
    assert basic.status_code == 403
    ok = web.index(Authorization="Bearer s3cret")
    assert ok.status_code == 202
    web.wait(ok.json()["job_id"])
    # Reads stay open; the ad hoc AST query is admin-gated like indexing.
    assert web.get("/symbols", q="helper").status_code == 200
    body = json.dumps({"query": "(function_definition) @f", "paths": ["pkg/util.py"]})
    gated = web.client.post(web.url("/ast-query"), content=body, headers={"Origin": web_origin()})
    assert gated.status_code == 403
    allowed = web.client.post(web.url("/ast-query"), content=body,
                              headers={"Origin": web_origin(), "Authorization": "Bearer s3cret"})
    assert allowed.status_code == 200 and len(allowed.json()["results"]) == 3


def web_origin() -> str:
    return "http://127.0.0.1"


def test_bad_origin_beats_a_good_token(make_web: Any) -> None:
    web = make_web(admin_token="s3cret")
    r = web.client.post(web.url("/index"), headers={"Origin": "http://evil.example",
                                                    "Authorization": "Bearer s3cret"})
    assert r.status_code == 403


def test_foreign_host_header_is_refused(web: Any) -> None:
    r = web.client.get(web.url(""), headers={"Host": "evil.example"})
    assert r.status_code == 421 and "Host" in r.json()["error"]
    assert web.client.get("/", headers={"Host": "localhost"}).status_code == 200


def test_page_and_security_headers(web: Any) -> None:
    r = web.client.get("/")
    assert r.status_code == 200 and "Index repository" in r.text
    assert "default-src 'self'" in r.headers["content-security-policy"]
    assert r.headers["x-content-type-options"] == "nosniff"
    assert web.client.get(f"/repos/{web.repo_id}").status_code == 200
    js = web.client.get("/static/app.js")
    assert js.status_code == 200 and "EventSource" in js.text
    assert web.client.get("/static/app.css").status_code == 200


def test_get_is_not_a_way_to_index(web: Any) -> None:
    assert web.get("/index").status_code == 405


@pytest.mark.parametrize("bound,host,ok", [
    ("127.0.0.1", "127.0.0.1:8765", True), ("127.0.0.1", "localhost:8765", True),
    ("127.0.0.1", "[::1]:8765", True), ("127.0.0.1", "127.0.0.1:8766", False),
    ("127.0.0.1", "attacker.example:8765", False), ("192.168.1.5", "192.168.1.5:8765", True),
    ("0.0.0.0", "myhost:8765", False), ("0.0.0.0", "localhost:8765", True),
])
def test_host_allowlist(bound: str, host: str, ok: bool) -> None:
    assert Guard(bound, 8765, None).host_ok(host) is ok


def test_host_allowlist_takes_configured_names() -> None:
    guard = Guard("0.0.0.0", 8765, "t", ["MyHost"])
    assert guard.host_ok("myhost:8765") and not guard.host_ok("other:8765")


def test_split_host() -> None:
    assert split_host("[::1]:80") == ("::1", 80)
    assert split_host("LOCALHOST") == ("localhost", None)
