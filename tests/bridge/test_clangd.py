"""clangd as the C/C++ bridge (docs/bridge.md): one entry answers for both languages, C and
C++ documents are opened with their language ids, and the real clangd runs under the
sandbox through the bridge lifecycle; end to end through the index once a C pack exists."""

from __future__ import annotations

import io
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import NEEDS_BWRAP, has_bwrap

from spyglass.bridge.lsp import LspClient, settle
from spyglass.bridge.manager import bridge_for
from spyglass.config import Config, LspServer, load_config
from spyglass.query.escalate import Escalator
from spyglass.query.facade import CodeIntel
from spyglass.syntax.langpack import pack_for_path

CLANGD = LspServer("c", ("clangd", "--background-index"), (), "sandbox", False, "clangd")
FILES = {
    "util.h": "int add(int a, int b);\n",
    "util.c": '#include "util.h"\nint add(int a, int b) { return a + b; }\n',
    "main.c": ('#include "util.h"\nint twice(int x) { return add(x, x); }\n'
               "int main(void) { return add(1, 2) + twice(3); }\n"),
}


def project(make_repo: Callable[..., Path]) -> Path:
    root = make_repo(FILES)
    (root / "compile_commands.json").write_text(json.dumps([
        {"directory": str(root), "file": f, "arguments": ["cc", "-c", f]}
        for f in ("util.c", "main.c")]))
    return root


def test_one_entry_serves_c_and_cpp(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[[codeintel.lsp]]\nname = "clangd"\nlanguage = "c"\n'
                    'command = ["clangd", "--background-index"]\n')
    (server,) = load_config(path).lsp
    assert server.languages == ("c", "cpp")
    esc = Escalator(tmp_path, Config(lsp=(server,)))
    assert esc.server_for("c") is server and esc.server_for("cpp") is server
    assert esc.server_for("python") is None


@pytest.mark.parametrize("name, language_id", [("a.c", "c"), ("a.h", "c"), ("a.cpp", "cpp"),
                                               ("a.hpp", "cpp"), ("a.cc", "cpp")])
def test_documents_open_with_their_language_id(tmp_path: Path, name: str,
                                               language_id: str) -> None:
    sent = io.BytesIO()
    read, write = os.pipe()  # a server that stays silent (and never exits)
    with os.fdopen(read, "rb") as silent:
        client = LspClient(sent, silent, tmp_path)
        client.sync(tmp_path / name, "int x;\n")
        os.close(write)
    body = json.loads(sent.getvalue().split(b"\r\n\r\n", 1)[1])
    assert body["method"] == "textDocument/didOpen"
    assert body["params"]["textDocument"]["languageId"] == language_id


@pytest.fixture
def needs_clangd() -> None:
    if shutil.which("clangd") is None:
        pytest.skip("clangd is not installed (scripts/bootstrap.sh installs Debian clangd)")
    if not has_bwrap():
        pytest.skip(NEEDS_BWRAP)


def test_clangd_answers_under_the_sandbox(needs_clangd: None,
                                          make_repo: Callable[..., Path]) -> None:
    root = project(make_repo)
    bridge = bridge_for(CLANGD, root)
    client = bridge.client(60.0)
    assert isinstance(client, LspClient) and bridge.state == "ready"
    assert (bridge.version or "").startswith("clangd")
    util = root / "util.c"
    client.open(util)
    deadline = time.monotonic() + 30
    refs = settle(lambda t: client.references(util, 1, 4, t), deadline)
    assert [(p, ln) for p, ln, _ in refs] == [("main.c", 2), ("main.c", 3)]
    calls = settle(lambda t: client.incoming_calls(util, 1, 4, t), deadline)
    assert [(p, ln, who) for p, ln, _, who in calls] == [("main.c", 2, "twice"),
                                                         ("main.c", 3, "main")]


def test_clangd_end_to_end_once_a_c_pack_exists(needs_clangd: None,
                                                make_repo: Callable[..., Path]) -> None:
    if pack_for_path("util.c") is None:
        pytest.skip("no C language pack yet (another branch adds langs/c)")
    ci = CodeIntel(project(make_repo), config=Config(lsp=(CLANGD,)))
    out = ci.callers(path="util.c", line=2, column=5, lsp_budget_ms=30000)
    assert sorted((c.path, c.start_line, c.source) for c in out.results) == [
        ("main.c", 2, "live-lsp"), ("main.c", 3, "live-lsp")]
