"""The empty state, index jobs (accepted → progress → completed), events, failures and retry."""

from __future__ import annotations

import json
import subprocess
import threading
from typing import Any

import pytest

from spyglass.errors import IndexUnavailable


def sse_events(text: str) -> list[tuple[int, str, dict[str, Any]]]:
    """(id, event, data) of every event in a text/event-stream body."""
    out = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines()
                      if line and not line.startswith(":") and ": " in line)
        if "event" in fields:
            out.append((int(fields["id"]), fields["event"], json.loads(fields["data"])))
    return out


def test_empty_state_before_the_first_index(web: Any) -> None:
    repos = web.client.get("/api/v1/code/repos").json()["repos"]
    assert [r["repo_id"] for r in repos] == [web.repo_id]
    assert repos[0]["indexed"] is False
    quick = web.get("").json()  # answers at once: no live parse of every file
    assert quick["partial"] is True and quick["indexed"] is False
    assert quick["snapshot"] is None and quick["target_ref"] == "HEAD"
    assert quick["coverage"] is None and quick["diagnostics"] is None
    summary = web.get("", full=1).json()
    assert summary["partial"] is False
    assert summary["indexed"] is False and summary["snapshot"] is None
    assert {"results", "truncated", "coverage", "provenance"} <= set(summary)
    # Skipped files and diagnostics are visible before any index exists.
    # README.md is not source code: counted, not listed repository-wide.
    assert summary["coverage"]["skipped_total"] >= 1
    assert all(s["path"] != "README.md" for s in summary["coverage"]["skipped"])
    assert summary["diagnostics"]["count"] >= 1
    assert summary["diagnostics"]["items"][0]["path"] == "broken.py"
    assert not (web.root / ".spyglass").exists()


def test_index_job_completes_and_announces_the_new_graph(web: Any) -> None:
    r = web.index()
    assert r.status_code == 202
    body = r.json()
    assert body["state"] == "accepted" and body["job_id"].startswith("job-")
    assert r.headers["location"].endswith(f"/jobs/{body['job_id']}")
    job = web.wait(body["job_id"])
    assert job["state"] == "completed" and job["done"] is True
    assert job["parsed"] == job["persisted"] == 5
    assert job["snapshot"]["files"] == 6
    assert job["skipped"] and job["diagnostics"] >= 1

    events = sse_events(web.get("/events", follow=0).text)
    kinds = [kind for _, kind, _ in events]
    assert kinds[0] == "accepted" and "progress" in kinds
    assert kinds[-3:] == ["completed", "code_graph_updated", "coverage"]
    progress = [data["job"] for _, kind, data in events if kind == "progress"]
    assert all({"parsed", "persisted", "total"} <= set(p) for p in progress)
    assert progress[-1]["persisted"] == 5
    ids = [i for i, _, _ in events]
    assert ids == sorted(ids)
    # Reconnecting with Last-Event-ID resumes after it.
    resumed = web.client.get(web.url("/events?follow=0"), headers={"Last-Event-ID": str(ids[-3])})
    assert [k for _, k, _ in sse_events(resumed.text)] == ["code_graph_updated", "coverage"]

    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=web.root, capture_output=True,
                          text=True, check=True).stdout.strip()
    summary = web.get("").json()
    assert summary["indexed"] is True and summary["partial"] is False
    assert summary["snapshot"]["commit"] == head and summary["snapshot"]["ref"] == "HEAD"
    assert summary["snapshot"]["indexed_at"].endswith("Z")
    assert summary["provenance"]["commit"] == head
    assert summary["job"]["id"] == body["job_id"]
    assert web.client.get("/api/v1/code/repos").json()["repos"][0]["indexed"] is True


def test_one_job_at_a_time(web: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    real = web.ci.index

    def slow(ref: str | None = None, progress: Any = None) -> Any:
        release.wait(30)
        return real(ref, progress)
    monkeypatch.setattr(web.ci, "index", slow)
    first = web.index()
    assert first.status_code == 202
    second = web.index()
    assert second.status_code == 409
    assert "already running" in second.json()["error"]
    assert second.json()["job"]["id"] == first.json()["job_id"]
    # While the first index runs, the summary stays cheap (no live parse of every file).
    assert web.get("", full=1).json()["partial"] is True
    release.set()
    assert web.wait(first.json()["job_id"])["state"] == "completed"


def test_failure_is_reported_and_retry_works(web: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    real = web.ci.index
    calls = []

    def flaky(ref: str | None = None, progress: Any = None) -> Any:
        calls.append(ref)
        if len(calls) == 1:
            raise RuntimeError("disk on fire")
        return real(ref, progress)
    monkeypatch.setattr(web.ci, "index", flaky)
    job = web.wait(web.index().json()["job_id"])
    assert job["state"] == "failed" and "disk on fire" in job["error"]
    kinds = [k for _, k, _ in sse_events(web.get("/events", follow=0).text)]
    assert kinds[-1] == "failed" and "code_graph_updated" not in kinds
    assert web.get("").json()["indexed"] is False
    retry = web.wait(web.index().json()["job_id"])
    assert retry["state"] == "completed"
    assert web.get("").json()["indexed"] is True


def test_unavailable_repository_state(web: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(ref: str | None = None, progress: Any = None) -> Any:
        raise IndexUnavailable("git rev-parse failed: bad object")
    monkeypatch.setattr(web.ci, "index", broken)
    job = web.wait(web.index().json()["job_id"])
    assert job["state"] == "unavailable" and "bad object" in job["error"]


def test_index_body_may_name_a_ref_and_nothing_else(web: Any) -> None:
    post = web.client.post
    bad = post(web.url("/index"), headers={"Origin": "http://127.0.0.1"},
               content=json.dumps({"root": "/etc"}))
    assert bad.status_code == 400 and "ref" in bad.json()["error"]
    option = post(web.url("/index"), headers={"Origin": "http://127.0.0.1"},
                  content=json.dumps({"ref": "--upload-pack=evil"}))
    assert option.status_code == 400
    missing = web.wait(post(web.url("/index"), headers={"Origin": "http://127.0.0.1"},
                            content=json.dumps({"ref": "no-such-branch"})).json()["job_id"])
    assert missing["state"] in ("unavailable", "failed") and missing["error"]


def test_unknown_job_and_repository(web: Any) -> None:
    assert web.get("/jobs/job-99").status_code == 404
    r = web.client.get("/api/v1/code/repos/other")
    assert r.status_code == 404 and "other" in r.json()["error"]
    assert web.client.get("/api/v1/nope").json()["error"].startswith("no such endpoint")


def test_stale_last_event_id_replays_this_servers_events(web: Any) -> None:
    web.indexed()
    r = web.client.get(web.url("/events?follow=0"), headers={"Last-Event-ID": "9999"})
    assert sse_events(r.text)[0][1] == "accepted"


def test_a_snapshot_built_elsewhere_is_announced(web: Any) -> None:
    from spyglass.query.facade import CodeIntel
    web.indexed()
    jobs = web.client.app.state.web.jobs
    before = jobs.last_event_id
    jobs.check_external()
    assert jobs.last_event_id == before  # nothing new yet
    (web.root / "pkg" / "more.py").write_text("def more():\n    return 1\n")
    subprocess.run(["git", "add", "-A"], cwd=web.root, check=True)
    subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "commit",
                    "-qm", "more"], cwd=web.root, check=True)
    CodeIntel(web.root).index()  # as `spyglass index` in another process would
    jobs.check_external()
    events = sse_events(web.get("/events", follow=0, after=before).text)
    assert [(k, d["source"]) for _, k, d in events] == [("code_graph_updated", "external")]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=web.root, capture_output=True,
                          text=True, check=True).stdout.strip()
    assert events[0][2]["commit"] == head
    assert web.get("").json()["snapshot"]["commit"] == head
