"""Web fixtures: a small git repository, its app and a TestClient that talks like the page."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from spyglass.query.facade import CodeIntel
from spyglass.web.app import create_app

FILES = {
    "pkg/__init__.py": "",
    "pkg/util.py": (
        "def helper(x):\n"
        "    return x + 1\n"
        "\n"
        "\n"
        "class Greeter:\n"
        "    def greet(self, name):\n"
        "        return helper(len(name))\n"
        "\n"
        "\n"
        "def unused():\n"
        "    return 0\n"
    ),
    "pkg/main.py": (
        "from pkg.util import Greeter, helper\n"
        "\n"
        "\n"
        "def run():\n"
        "    g = Greeter()\n"
        "    return helper(2) + g.greet('a')\n"
        "\n"
        "\n"
        "def entry():\n"
        "    return run()\n"
    ),
    "tests/test_util.py": (
        "from pkg.util import helper\n"
        "\n"
        "\n"
        "def test_helper():\n"
        "    assert helper(1) == 2\n"
    ),
    "broken.py": "def broken(:\n    pass\n",
    "README.md": "# demo\n",
}
ORIGIN = "http://127.0.0.1"


@dataclass
class Web:
    """A served repository: its root, facade, app client and repo id."""

    root: Path
    ci: CodeIntel
    client: TestClient

    @property
    def repo_id(self) -> str:
        return str(self.client.app.state.web.repo_id)  # type: ignore[attr-defined]

    def url(self, tail: str = "") -> str:
        return f"/api/v1/code/repos/{self.repo_id}{tail}"

    def get(self, tail: str, **params: Any) -> Any:
        return self.client.get(self.url(tail), params=params)

    def index(self, **headers: str) -> Any:
        return self.client.post(self.url("/index"), headers={"Origin": ORIGIN, **headers})

    def wait(self, job_id: str, timeout: float = 60.0) -> dict[str, Any]:
        """Poll the job endpoint (as the page does without events) until a terminal state."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            job: dict[str, Any] = self.client.get(self.url(f"/jobs/{job_id}")).json()["job"]
            if job["done"]:
                thread = self.client.app.state.web.jobs.thread  # type: ignore[attr-defined]
                thread.join(timeout)  # the `coverage` event follows completion
                final: dict[str, Any] = self.client.get(self.url(f"/jobs/{job_id}")).json()["job"]
                return final
            time.sleep(0.05)
        raise AssertionError(f"job {job_id} did not finish in {timeout}s")

    def indexed(self) -> dict[str, Any]:
        r = self.index()
        assert r.status_code == 202, r.text
        job = self.wait(r.json()["job_id"])
        assert job["state"] == "completed", job
        return job


@pytest.fixture
def demo_repo(make_repo: Callable[..., Path]) -> Path:
    """The demo repository, committed, not indexed."""
    return make_repo(FILES)


@pytest.fixture
def make_web(make_repo: Callable[..., Path]) -> Iterator[Callable[..., Web]]:
    """Build the demo repository and serve it; `admin_token=` configures a token."""
    clients: list[TestClient] = []

    def make(admin_token: str | None = None, files: dict[str, str] | None = None) -> Web:
        root = make_repo(files or FILES)
        ci = CodeIntel(root)
        if admin_token:
            ci.config = dataclasses.replace(ci.config, admin_token=admin_token)
        client = TestClient(create_app(ci), base_url=ORIGIN)
        clients.append(client)
        return Web(root, ci, client)
    yield make
    for client in clients:
        client.close()


@pytest.fixture
def web(make_web: Callable[..., Web]) -> Web:
    return make_web()
