"""The answer budget over HTTP: `max_chars` as a query parameter, the envelope within 4× of
it, what was left out counted and the narrowing query parameters named."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

FILES = {"pkg/__init__.py": "", "pkg/core.py": "def helper():\n    return 1\n",
         **{f"pkg/use{i:02d}.py": "from pkg.core import helper\n\n\n" + "".join(
             f"def f{j}():\n    return helper()\n\n\n" for j in range(10)) for i in range(12)}}


def test_max_chars_bounds_the_envelope_and_names_query_parameters(
        make_web: Callable[..., Any]) -> None:
    web = make_web(files=FILES)
    web.indexed()
    whole = web.get("/references", name="helper", max_chars=0).json()
    assert len(whole["results"]) == 132 and not whole["truncated"]
    r = web.get("/references", name="helper", max_chars=2000)
    assert r.status_code == 200, r.text
    body = r.json()
    assert len(json.dumps(body)) <= 4 * 2000
    assert body["truncated"] and 0 < len(body["results"]) < 132
    assert body["results"] == whole["results"][:len(body["results"])]
    omitted = body["omitted"]
    assert omitted["results"] + omitted["shown"] == 132 and omitted["files"] == 12
    assert omitted["raise_budget"] == "max_chars"
    assert [n.split(" ")[0] for n in omitted["narrow"]] == ["path", "exact_only"]
    blast = web.get("/blast-radius", target="pkg/core.py", max_chars=2000).json()
    assert [n.split(" ")[0] for n in blast["omitted"]["narrow"]] == ["target", "depth"]
    bad = web.get("/references", name="helper", max_chars=-1)
    assert bad.status_code == 400 and "max_chars must be >= 0" in bad.text
