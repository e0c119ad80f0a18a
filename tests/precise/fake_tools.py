"""Stand-in precise indexers for the pass's tests: a tools folder laid out as
scripts/bootstrap.sh lays out npm's (package.json + entry point), whose entry point is a
small node script the test writes (it runs under the real launcher and bubblewrap)."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import pytest

PY_PACKAGE = "node_modules/@sourcegraph/scip-python"


def need_sandbox() -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed (scripts/bootstrap.sh installs nodejs/npm)")
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed (scripts/bootstrap.sh installs it)")


def fake_python_indexer(tools: Path, body: str, version: str = "9.9.9") -> Path:
    """A fake scip-python under `tools` whose index.js runs `body` (node; `out` is the
    --output path it was given, `args` its arguments)."""
    home = tools / PY_PACKAGE
    home.mkdir(parents=True, exist_ok=True)
    (home / "package.json").write_text(f'{{"name": "fake", "version": "{version}"}}\n')
    (home / "index.js").write_text(
        "const fs = require('fs');\nconst args = process.argv.slice(2);\n"
        "const out = args[args.indexOf('--output') + 1];\n" + body + "\n")
    return tools


def writes(data: bytes) -> str:
    """A body that writes `data` as the SCIP index."""
    return (f"fs.writeFileSync(out, Buffer.from('{base64.b64encode(data).decode()}', "
            "'base64'));")


def _varint(n: int) -> bytes:
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def occurrence(line: int, col: int, symbol: str, definition: bool = False,
               width: int = 4) -> bytes:
    rng = b"".join(_varint(v) for v in (line, col, col + width))
    roles = _varint(3 << 3 | 0) + _varint(1) if definition else b""
    return field(1, rng) + field(2, symbol.encode()) + roles


def relationship(symbol: str, other: str, implementation: bool = True) -> bytes:
    """A SymbolInformation: `symbol` implements (or references) `other`."""
    rel = field(1, other.encode()) + _varint((3 if implementation else 2) << 3) + _varint(1)
    return field(1, symbol.encode()) + field(4, rel)


def scip_index(tool: str, version: str, docs: dict[str, list[bytes]],
               symbols: dict[str, list[bytes]] | None = None) -> bytes:
    """A SCIP index: metadata, then per document its path, occurrences and symbols."""
    out = field(1, field(2, field(1, tool.encode()) + field(2, version.encode())))
    for path, occs in docs.items():
        body = field(1, path.encode()) + b"".join(field(2, o) for o in occs)
        body += b"".join(field(3, s) for s in (symbols or {}).get(path, []))
        out += field(2, body)
    return out
