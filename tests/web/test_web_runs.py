"""Run views: the code graph around a symbol or file, and the workspace overlay as a diff."""

from __future__ import annotations

from typing import Any

ENVELOPE = {"results", "truncated", "coverage", "provenance"}


def graph(web: Any, **params: Any) -> dict[str, Any]:
    r = web.client.get("/api/v1/runs/workspace/code/graph", params=params)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    assert ENVELOPE | {"nodes", "edges", "center", "run_id"} <= set(body)
    return body


def test_callers_graph_of_a_symbol(web: Any) -> None:
    web.indexed()
    g = graph(web, symbol="helper", depth=2, references=0)
    center = "pkg/util.py#pkg.util.helper"
    assert g["center"] == [center]
    nodes = {n["id"]: n for n in g["nodes"]}
    run = "pkg/main.py#pkg.main.run"
    assert nodes[run]["distance"] == 1 and nodes[run]["start_line"] == 4
    assert nodes["pkg/main.py#pkg.main.entry"]["distance"] == 2
    edges = {(e["source"], e["target"], e["kind"]) for e in g["edges"]}
    assert (run, center, "calls") in edges
    assert ("pkg/main.py#pkg.main.entry", run, "calls") in edges
    assert {r["path"] for r in g["results"]} >= {"pkg/main.py", "tests/test_util.py"}
    assert g["provenance"]["commit"]


def test_graph_of_a_position_with_referencing_files(web: Any) -> None:
    g = graph(web, path="pkg/util.py", line=6, depth=1)
    assert g["center"] == ["pkg/util.py#pkg.util.Greeter.greet"]
    files = {n["path"] for n in g["nodes"] if n["kind"] == "file"}
    assert files == {"pkg/main.py"}
    assert any(e["kind"] == "references" for e in g["edges"])


def test_graph_of_a_file_is_bounded(web: Any) -> None:
    g = graph(web, path="pkg/util.py", limit=3, depth=3)
    assert len(g["nodes"]) == 3 and g["truncated"] is True


def test_graph_bad_input(web: Any) -> None:
    get = web.client.get
    assert get("/api/v1/runs/workspace/code/graph").status_code == 400
    assert get("/api/v1/runs/workspace/code/graph?symbol=helper&depth=9").status_code == 400
    r = get("/api/v1/runs/workspace/code/graph?path=../x.py")
    assert r.status_code == 400 and "outside the repository root" in r.json()["error"]
    r = get("/api/v1/runs/run-42/code/graph?symbol=helper")
    assert r.status_code == 404 and "workspace" in r.json()["error"]


def test_diff_overlay_needs_a_snapshot(web: Any) -> None:
    r = web.client.get("/api/v1/runs/workspace/code/diff-overlay")
    assert r.status_code == 409 and "index the repository first" in r.json()["error"]


def test_diff_overlay_lists_edited_added_and_deleted_files(web: Any) -> None:
    web.indexed()
    clean = web.client.get("/api/v1/runs/workspace/code/diff-overlay").json()
    assert clean["results"] == [] and clean["summary"] == {"added": 0, "modified": 0,
                                                           "deleted": 0}
    util = web.root / "pkg" / "util.py"
    util.write_text(util.read_text()
                    .replace("    return x + 1\n", "    y = x * 2\n    return y + 1\n")
                    .replace("def unused():", "def renamed():"))
    (web.root / "pkg" / "extra.py").write_text("def fresh():\n    return 1\n")
    (web.root / "tests" / "test_util.py").unlink()
    r = web.client.get("/api/v1/runs/workspace/code/diff-overlay")
    assert r.status_code == 200
    body = r.json()
    assert ENVELOPE <= set(body) and body["run_id"] == "workspace"
    assert body["base"]["commit"] == web.get("").json()["snapshot"]["commit"]
    files = {f["path"]: f for f in body["results"]}
    assert files["pkg/util.py"]["status"] == "modified"
    assert files["pkg/extra.py"]["status"] == "added"
    assert files["tests/test_util.py"]["status"] == "deleted"
    defs = files["pkg/util.py"]["definitions"]
    assert [d["symbol"] for d in defs["changed"]] == ["pkg.util.helper"]
    assert [d["symbol"] for d in defs["added"]] == ["pkg.util.renamed"]
    assert [d["symbol"] for d in defs["removed"]] == ["pkg.util.unused"]
    assert defs["removed"][0]["source"] == "cached-index"
    assert [d["symbol"] for d in files["pkg/extra.py"]["definitions"]["added"]] == [
        "pkg.extra.fresh"]
    assert [d["symbol"] for d in files["tests/test_util.py"]["definitions"]["removed"]] == [
        "test_util.test_helper"]
    assert body["summary"] == {"added": 1, "modified": 1, "deleted": 1}
    status = web.get("").json()["results"][0]
    assert status["overlay_modified"] == ["pkg/util.py"]
