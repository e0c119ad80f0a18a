"""One git process answers every blob read of an index's include walk, in the order asked:
each blob's bytes, None for an object git does not hold, and the process ends on close."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from spyglass.index.gitcall import BlobReader

MakeRepo = Callable[..., Path]


def _blob(root: Path, path: str) -> str:
    return subprocess.run(["git", "rev-parse", f"HEAD:{path}"], cwd=root, check=True,
                          capture_output=True, text=True).stdout.strip()


def test_blobs_are_read_in_turn_from_one_process(make_repo: MakeRepo) -> None:
    root = make_repo({"a.h": "#define A 1\n", "b.c": "#include \"a.h\"\nint b;\n",
                      "empty.h": ""})
    reader = BlobReader(root)
    try:
        assert reader.read(_blob(root, "b.c")) == b"#include \"a.h\"\nint b;\n"
        proc = reader._proc
        assert reader.read("0" * 40) is None  # not in the repository
        assert reader.read(_blob(root, "empty.h")) == b""
        assert reader.read(_blob(root, "a.h")) == b"#define A 1\n"
        assert reader._proc is proc  # the same process throughout
    finally:
        reader.close()
    assert proc is not None and proc.returncode is not None  # ended
    reader.close()  # a second close is harmless
