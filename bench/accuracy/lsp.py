"""The oracle's LSP client: spyglass's own (src/spyglass/bridge/lsp.py) over a plain
subprocess with the benchmark's environment (a benchmark tool, not a product launch)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from spyglass.bridge.lsp import LANGUAGE_IDS, Json, LspError, path_of, settle, uri
from spyglass.bridge.lsp import LspClient as _Client

__all__ = ["LANGUAGE_IDS", "LspClient", "LspError", "path_of", "settle", "uri"]


class LspClient(_Client):
    """One language server process started by the benchmark."""

    def __init__(self, cmd: list[str], root: Path, env: dict[str, str] | None = None,
                 settings: Json = None) -> None:
        self.proc = subprocess.Popen(cmd, cwd=root, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env={**os.environ, **(env or {})})
        assert self.proc.stdin is not None and self.proc.stdout is not None
        super().__init__(self.proc.stdin, self.proc.stdout, root, settings)

    def close_document(self, path: Path) -> None:
        """didClose a document this client opened (nothing when it is not open)."""
        if self.synced.pop(path.resolve(), None) is not None:
            self.notify("textDocument/didClose", {"textDocument": {"uri": uri(path)}})

    def close(self) -> None:
        self.shutdown(timeout=10)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
