"""An independent SCIP reader for the export tests: the scip.proto descriptor that the pinned
@c4312/scip 0.1.0 (from the npm registry) ships — scripts/bootstrap.sh puts it under
~/.cache/spyglass/tools — decoded by Google's `protobuf` runtime; no spyglass code."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

SCIP_PB = Path.home() / ".cache" / "spyglass" / "tools" / "node_modules" / "@c4312" / "scip" / \
    "scip_pb.js"
_DESC = re.compile(r'fileDesc\)\("([A-Za-z0-9+/=_-]+)"')


def missing() -> str | None:
    """Why the reader cannot run here, or None."""
    try:
        import google.protobuf  # noqa: F401
    except ImportError:
        return "the protobuf package is missing (a dev dependency: scripts/bootstrap.sh)"
    if not SCIP_PB.is_file():
        return "@c4312/scip is not installed (scripts/bootstrap.sh puts it under " \
               "~/.cache/spyglass/tools)"
    return None


def index_class() -> Any:
    """The scip.Index message class, built from the package's descriptor."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    found = _DESC.search(SCIP_PB.read_text(encoding="utf-8"))
    assert found, f"no file descriptor in {SCIP_PB}"
    b64 = found.group(1).replace("-", "+").replace("_", "/")
    raw = base64.b64decode(b64 + "=" * (-len(b64) % 4))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(descriptor_pb2.FileDescriptorProto.FromString(raw))
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("scip.Index"))


def read(path: Path) -> Any:
    """The parsed scip.Index of a file."""
    return index_class().FromString(path.read_bytes())
