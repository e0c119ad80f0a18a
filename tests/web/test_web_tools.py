"""The tool endpoints answer with the envelopes of docs/contract.md; bad input is a clear 4xx, never a crash."""

from __future__ import annotations

from typing import Any

import pytest

from spyglass.types import CodeLocation

ENVELOPE = {"results", "truncated", "coverage", "provenance"}
LOCATION_KEYS = set(CodeLocation.__dataclass_fields__)
PROVENANCE_KEYS = {"repo", "ref", "commit", "indexed_at", "workspace_digest", "tree_sitter",
                   "grammars", "query_packs"}


def envelope(r: Any) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    assert ENVELOPE <= set(body)
    assert PROVENANCE_KEYS <= set(body["provenance"])
    assert {"analysed", "skipped", "limitations"} <= set(body["coverage"])
    return body


def locations(r: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = envelope(r)["results"]
    for row in rows:
        assert set(row) == LOCATION_KEYS
    return rows


@pytest.fixture(params=["live", "indexed"])
def served(request: pytest.FixtureRequest, web: Any) -> Any:
    """The same questions before any index (text-fallback) and after (cached-index)."""
    if request.param == "indexed":
        web.indexed()
    return web


def test_symbols(served: Any) -> None:
    rows = locations(served.get("/symbols", q="helper"))
    assert [(r["path"], r["start_line"], r["kind"]) for r in rows] == [("pkg/util.py", 1, "func")]
    indexed = served.ci.has_index
    assert rows[0]["source"] == ("cached-index" if indexed else "text-fallback")
    methods = locations(served.get("/symbols", q="*e*", kind="method"))
    assert [r["symbol"] for r in methods] == ["pkg.util.Greeter.greet"]
    assert locations(served.get("/symbols", q="nothing_like_this")) == []


def test_references_by_name_and_by_position(served: Any) -> None:
    by_name = locations(served.get("/references", name="helper"))
    sites = {(r["path"], r["start_line"], r["kind"]) for r in by_name}
    assert ("pkg/main.py", 1, "import") in sites and ("pkg/main.py", 6, "call") in sites
    assert ("tests/test_util.py", 5, "call") in sites
    at = locations(served.get("/references", path="pkg/util.py", line=1, column=5))
    assert {(r["path"], r["start_line"]) for r in at} == {(p, n) for p, n, _ in sites}
    with_decl = locations(served.get("/references", name="helper", include_declaration=1))
    assert len(with_decl) == len(by_name) + 1


def test_callers_and_structure(served: Any) -> None:
    rows = locations(served.get("/callers", name="helper"))
    assert {(r["symbol"], r["kind"]) for r in rows} == {
        ("pkg.main.run", "func"), ("pkg.util.Greeter.greet", "method"),
        ("test_util.test_helper", "test")}
    outline = locations(served.get("/structure", path="pkg/util.py"))
    assert [r["symbol"] for r in outline] == ["pkg.util.helper", "pkg.util.Greeter",
                                             "pkg.util.Greeter.greet", "pkg.util.unused"]


def test_diagnostics_and_context(served: Any) -> None:
    diags = envelope(served.get("/diagnostics", path="broken.py"))["results"]
    assert diags and diags[0]["path"] == "broken.py"
    summary = served.get("/diagnostics").json()
    assert summary["count"] >= 1 and summary["items"][0]["path"] == "broken.py"
    span = envelope(served.get("/context", path="pkg/util.py", start=1, end=2))["results"][0]
    assert span["text"] == "def helper(x):\n    return x + 1\n"


def test_optional_tools_when_the_facade_has_them(served: Any) -> None:
    features = served.get("").json()["features"]
    for method, tail, params in (("blast_radius", "/blast-radius", {"target": "pkg/util.py:1"}),
                                 ("suggest_tests", "/tests", {"target": "pkg/util.py:1"}),
                                 ("explore", "/explore", {"q": "helper"})):
        r = served.get(tail, **params)
        if hasattr(served.ci, method):
            assert features[method] is True
            envelope(r)
        else:
            assert features[method] is False and r.status_code == 404


@pytest.mark.parametrize("tail,params", [
    ("/structure", {"path": "../outside.py"}),
    ("/structure", {"path": "/etc/passwd"}),
    ("/references", {"path": "../../x.py", "line": 1}),
    ("/context", {"path": "/etc/hostname"}),
    ("/diagnostics", {"path": "pkg/../../x.py"}),
])
def test_paths_outside_the_root_are_400(web: Any, tail: str, params: dict[str, Any]) -> None:
    r = web.get(tail, **params)
    assert r.status_code == 400
    assert "outside the repository root" in r.json()["error"]
    assert r.json()["kind"] == "outside_root"


def test_callees_and_type_hierarchy(served: Any) -> None:
    rows = locations(served.get("/callees", name="pkg.main.run"))
    called = {(r["symbol"], r["uncertain"]) for r in rows}
    assert ("pkg.util.helper", False) in called and ("pkg.util.Greeter", False) in called
    at = locations(served.get("/callees", path="pkg/main.py", line=4))
    assert at == rows
    assert locations(served.get("/hierarchy", name="pkg.util.Greeter")) == []
    r = served.get("/hierarchy", name="pkg.util.helper")
    assert r.status_code == 400 and "type hierarchy is for types" in r.json()["error"]


@pytest.mark.parametrize("tail,params,words", [
    ("/symbols", {}, "'q' is required"),
    ("/references", {}, "name=SYMBOL"),
    ("/references", {"path": "pkg/util.py", "line": "x"}, "line must be an integer"),
    ("/references", {"path": "pkg/util.py", "line": 999}, "out of range"),
    ("/callers", {"name": "no_such_symbol"}, "no definition named"),
    ("/callees", {}, "name=SYMBOL"),
    ("/hierarchy", {"name": "no_such_symbol"}, "no definition named"),
    ("/structure", {"path": "missing.py"}, "does not exist"),
    ("/blast-radius", {"depth": 11}, "depth must be >= 1 and <= 10"),
    ("/explore", {"q": "helper", "budget": 5}, "budget must be >= 200"),
    ("/context", {"path": "pkg/util.py", "start": 5, "end": 2}, "before start_line"),
])
def test_bad_input_is_400(web: Any, tail: str, params: dict[str, Any], words: str) -> None:
    r = web.get(tail, **params)
    assert r.status_code == 400, r.text
    assert words in r.json()["error"]


def test_policy_denied_tool_is_403(web: Any) -> None:
    import dataclasses
    web.ci.config = dataclasses.replace(web.ci.config, capabilities=("code_find_symbol",))
    assert web.get("/symbols", q="helper").status_code == 200
    r = web.get("/callers", name="helper")
    assert r.status_code == 403 and "code_callers" in r.json()["error"]
