"""The code view's endpoints (file, lines), graph relations by name, pages (repository list,
404, favicon), the OpenAPI document, workspace_changed events and re-index reuse."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from spyglass.web.jobs import Jobs


def test_file_view_lists_lines_and_definitions(web: Any) -> None:
    body = web.get("/file", path="pkg/main.py").json()
    assert body["path"] == "pkg/main.py" and body["total_lines"] == 10
    assert body["lines"][3] == "def run():" and body["truncated"] is False
    names = {d["symbol"]: d for d in body["definitions"]}
    assert names["pkg.main.run"]["start_line"] == 4 and names["pkg.main.run"]["end_line"] == 6


def test_file_view_bad_input(web: Any) -> None:
    assert web.get("/file").status_code == 400
    r = web.get("/file", path="../etc/passwd")
    assert r.status_code == 400 and "outside the repository root" in r.json()["error"]
    r = web.get("/file", path="nope.py")
    assert r.status_code == 400 and "not a file" in r.json()["error"]
    (web.root / "blob.bin").write_bytes(b"\0\1\2")
    assert "binary" in web.get("/file", path="blob.bin").json()["error"]


def test_lines_of_rows(web: Any) -> None:
    r = web.client.get(web.url("/lines"), params=[("at", "pkg/main.py:6"),
                                                  ("at", "pkg/util.py:1"),
                                                  ("at", "pkg/util.py:999"),
                                                  ("at", "gone.py:1")])
    body = r.json()
    assert body["lines"] == {"pkg/main.py:6": "    return helper(2) + g.greet('a')",
                             "pkg/util.py:1": "def helper(x):"}
    assert "gone.py" in body["problems"]
    for bad in ("pkg/main.py", "pkg/main.py:0", "pkg/main.py:x", ":3"):
        r = web.client.get(web.url("/lines"), params={"at": bad})
        assert r.status_code == 400 and "PATH:LINE" in r.json()["error"], bad
    assert web.get("/lines").status_code == 400
    many = [("at", f"pkg/main.py:{i}") for i in range(1, 2002)]
    assert web.client.get(web.url("/lines"), params=many).status_code == 400


def test_graph_relation_by_name(web: Any) -> None:
    web.indexed()
    get = web.client.get
    g = get("/api/v1/runs/workspace/code/graph",
            params={"path": "pkg/main.py", "line": 4, "relation": "callers", "depth": 1,
                    "references": 0}).json()
    assert g["relation"] == "callers" and g["center"] == ["pkg/main.py#pkg.main.run"]
    assert {e["source"] for e in g["edges"]} == {"pkg/main.py#pkg.main.entry"}
    r = get("/api/v1/runs/workspace/code/graph", params={"symbol": "run", "relation": "nope"})
    assert r.status_code == 400 and "unknown relation" in r.json()["error"]
    status = web.get("").json()["relations"]
    assert status["callers"] == {"available": True, "label": "callers", "reason": None}
    for name in ("callees", "hierarchy"):
        r = get("/api/v1/runs/workspace/code/graph", params={"symbol": "run", "relation": name})
        if status[name]["available"]:
            assert r.status_code == 200 and r.json()["relation"] == name
        else:  # not offered by the facade yet: the reason, never a crash
            assert r.status_code == 400 and r.json()["error"] == status[name]["reason"]


def test_callees_through_the_facade(web: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A facade with `callees` gets callee edges pointing away from the center."""
    web.indexed()

    def callees(self: Any, name: Any = None, path: Any = None, line: Any = None,
                column: Any = None) -> Any:
        return self.find_symbol("pkg.util.helper")  # run() calls helper (a definition row)
    monkeypatch.setattr(type(web.ci), "callees", callees, raising=False)
    assert web.get("").json()["relations"]["callees"]["available"] is True
    g = web.client.get("/api/v1/runs/workspace/code/graph",
                       params={"path": "pkg/main.py", "line": 4, "relation": "callees",
                               "depth": 1}).json()
    edges = {(e["source"], e["target"], e["kind"]) for e in g["edges"]}
    assert ("pkg/main.py#pkg.main.run", "pkg/util.py#pkg.util.helper", "calls") in edges


def test_pages_list_404_and_favicon(web: Any) -> None:
    get = web.client.get
    for path in ("/", "/repos", f"/repos/{web.repo_id}"):
        r = get(path)
        assert r.status_code == 200 and 'id="view-repo"' in r.text
    r = get("/repos/no-such-repo")
    assert r.status_code == 404 and "unknown repository" in r.text
    r = get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert get(web.url("")).json()["branch"] == "main"
    assert get("/static/graph.js").status_code == 200


def test_openapi_document_lists_every_api_route(web: Any) -> None:
    doc = web.client.get("/api/v1/openapi.json").json()
    assert doc["openapi"].startswith("3.")
    paths = doc["paths"]
    assert "/api/v1/code/repos/{repo_id}/file" in paths
    assert "/api/v1/code/repos/{repo_id}/lines" in paths
    assert paths["/api/v1/code/repos/{repo_id}/index"]["post"]
    graph = {p["name"] for p in paths["/api/v1/runs/{run_id}/code/graph"]["get"]["parameters"]}
    assert {"relation", "symbol", "path", "line", "depth"} <= graph
    refs = {p["name"] for p in paths["/api/v1/code/repos/{repo_id}/references"]["get"]
            ["parameters"]}
    assert {"name", "path", "line"} <= refs
    assert not any(p.startswith("/repos") for p in paths)  # pages are not API


def test_workspace_change_is_announced_once(web: Any) -> None:
    web.indexed()
    jobs: Jobs = web.client.app.state.web.jobs
    assert jobs.check_overlay(interval=0) is False  # the first check only remembers
    assert jobs.check_overlay(interval=0) is False  # nothing changed
    util = web.root / "pkg" / "util.py"
    util.write_text(util.read_text().replace("x + 1", "x + 2"))
    assert jobs.check_overlay(interval=3600) is False  # throttled: checked a moment ago
    assert jobs.check_overlay(interval=0) is True
    events = [e for e in jobs.since(0) if e.kind == "workspace_changed"]
    assert len(events) == 1 and events[0].data["workspace_digest"]
    assert jobs.check_overlay(interval=0) is False
    r = web.client.get(web.url("/events"), params={"follow": 0})
    assert "event: workspace_changed" in r.text


def test_no_overlay_check_before_a_snapshot(web: Any) -> None:
    jobs: Jobs = web.client.app.state.web.jobs
    (web.root / "pkg" / "new.py").write_text("x = 1\n")
    assert jobs.check_overlay(interval=0) is False and jobs.check_overlay(interval=0) is False
    assert web.ci._view is None  # nothing parsed live for the check


def test_reindex_of_an_unchanged_commit_reports_reuse(web: Any) -> None:
    first = web.indexed()
    assert first["parsed"] > 0 and first["reused"] == 0
    again = web.indexed()
    assert again["parsed"] == 0 and again["reused"] == first["parsed"]


def test_missing_git_objects_are_reported_as_damage(make_web: Any) -> None:
    w = make_web()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=w.root, capture_output=True,
                          text=True, check=True).stdout.strip()
    loose = Path(w.root / ".git" / "objects" / head[:2] / head[2:])
    loose.unlink()
    r = w.index()
    job = w.wait(r.json()["job_id"])
    assert job["state"] == "unavailable"
    assert "missing or corrupt" in job["error"] and "no commits" not in job["error"]


def test_hierarchy_edges_point_from_subtype_to_supertype(web: Any,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """A facade with `type_hierarchy`: a subtype row points at the center, a supertype row
    away from it (the evidence says which)."""
    import dataclasses

    web.indexed()

    def type_hierarchy(self: Any, name: Any = None, path: Any = None, line: Any = None,
                       column: Any = None) -> Any:
        found = self.find_symbol("pkg.util.helper")
        sub = dataclasses.replace(found.results[0], evidence="subtype: declares it as a base")
        run = self.find_symbol("pkg.main.run").results[0]
        sup = dataclasses.replace(run, evidence="supertype: declared base")
        return dataclasses.replace(found, results=(sub, sup))
    monkeypatch.setattr(type(web.ci), "type_hierarchy", type_hierarchy, raising=False)
    g = web.client.get("/api/v1/runs/workspace/code/graph",
                       params={"path": "pkg/util.py", "line": 6, "relation": "hierarchy",
                               "depth": 1, "references": 0}).json()
    edges = {(e["source"], e["target"], e["kind"]) for e in g["edges"]}
    greet = "pkg/util.py#pkg.util.Greeter.greet"
    assert edges == {("pkg/util.py#pkg.util.helper", greet, "inherits"),
                     (greet, "pkg/main.py#pkg.main.run", "inherits")}


def test_branch_from_git_head(tmp_path: Path) -> None:
    from spyglass.web.api import branch_of
    git = tmp_path / "repo" / ".git"
    git.mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/feature/x\n")
    assert branch_of(git.parent) == "feature/x"
    (git / "HEAD").write_text("0123456789abcdef0123456789abcdef01234567\n")
    assert branch_of(git.parent) is None  # detached
    linked = tmp_path / "linked"
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / "HEAD").write_text("ref: refs/heads/web\n")
    linked.mkdir()
    (linked / ".git").write_text(f"gitdir: {tmp_path / 'wt'}\n")
    assert branch_of(linked) == "web"  # a linked worktree
    assert branch_of(tmp_path / "nowhere") is None
