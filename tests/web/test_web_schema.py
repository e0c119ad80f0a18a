"""schemathesis against the OpenAPI document (/api/v1/openapi.json): generated requests to
every API operation never get a server error (a bounded sample per operation)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import schemathesis
from fixture import commit_all, write_files
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from spyglass.query.facade import CodeIntel
from spyglass.web.app import create_app

FILES = {
    "pkg/__init__.py": "",
    "pkg/util.py": "def helper(x):\n    return x + 1\n\n\nclass Greeter:\n"
                   "    def greet(self, name):\n        return helper(len(name))\n",
    "pkg/main.py": "from pkg.util import Greeter, helper\n\n\ndef run():\n"
                   "    return helper(2) + Greeter().greet('a')\n",
}
HOST = {"Host": "127.0.0.1"}  # the Host allowlist refuses the ASGI client's default name
EXAMPLES = 10  # per operation: a bounded sample in the suite


def test_no_server_error(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_files(root, FILES)
    commit_all(root)
    ci = CodeIntel(root)
    ci.index()
    app = create_app(ci)
    schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", app, headers=HOST)
    tried: list[str] = []
    statuses: dict[int, int] = {}
    for found in schema.get_all_operations():
        op = found.ok()
        if op.path.endswith("/events"):
            continue  # a stream: it follows until the client closes it

        @given(op.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        def call(case: Any) -> None:
            r = case.call_and_validate(headers=HOST, checks=[not_a_server_error])
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
        call()
        tried.append(f"{op.method.upper()} {op.path}")
    print(statuses)
    assert statuses.get(200, 0) > len(tried)  # the sample reaches the handlers, not only 4xx
    for route in ("GET /api/v1/code/repos/{repo_id}/file", "GET /api/v1/code/repos/{repo_id}/lines",
                  "GET /api/v1/runs/{run_id}/code/graph", "POST /api/v1/code/repos/{repo_id}/index",
                  "GET /api/v1/code/repos/{repo_id}/references"):
        assert route in tried, tried
