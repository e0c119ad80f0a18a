"""`offset` over HTTP: a query parameter of /references and /callers, continuing an answer
(tests/test_continuation.py has the pages' properties)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

FILES = {"pkg/__init__.py": "", "pkg/core.py": "def helper():\n    pass\n",
         **{f"pkg/u{i}.py": "from pkg.core import helper\n\n\ndef g():\n    helper()\n"
            for i in range(5)}}


def test_offset_continues_references_and_callers(make_web: Callable[..., Any]) -> None:
    web = make_web(files=FILES)
    web.indexed()
    whole = web.get("/callers", name="pkg.core.helper").json()["results"]
    assert len(whole) == 5
    got = web.get("/callers", name="pkg.core.helper", offset=3).json()
    assert got["results"] == whole[3:]
    assert got["page"]["offset"] == 3 and got["page"]["total"] == 5
    assert got["page"]["next_offset"] is None
    refs = web.get("/references", name="pkg.core.helper", offset=10).json()  # 5 + 5 imports
    assert refs["results"] == [] and refs["page"]["shown"] == 0 and refs["page"]["total"] == 10
    bad = web.get("/callers", name="pkg.core.helper", offset=-1)
    assert bad.status_code == 400 and "offset" in bad.json()["error"]
