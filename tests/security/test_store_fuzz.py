"""A fuzz of `.spyglass/` contents (issue #24): random links (to files, folders and SQLite
databases outside the root, inside it, dangling, looping, /dev/zero), FIFOs, folders, hard
links, garbage, empty, truncated, foreign and copied databases, in every file the store
uses, and `.spyglass` itself as a link, file or FIFO — then an in-process entry point
(index, find, refs, status, index-then-find), some also through the CLI in a child process.
0 writes outside the root (the `outside` folder's checksum), 0 tracebacks, 0 hangs past
10 s, 0 wrong answers after an index. SPYGLASS_STORE_FUZZ sets the number of cases
(default 500); bench/store_fuzz.py runs more."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import store_cases as sc
from security import report

CASES = int(os.environ.get("SPYGLASS_STORE_FUZZ", "500"))


def test_store_folder_fuzz(tmp_path: Path, record_property: Any) -> None:
    # one case in three in a git repository, the rest in a plain folder (half the cost;
    # the store's handling is the same, and bench/store_fuzz.py runs every case in git)
    found = sc.fuzz(tmp_path, CASES, subprocess_every=100, git_every=3)
    report.record(record_property, kind="line", line=(
        f"store fuzz: {found['cases']} .spyglass/ layouts ({found['subprocess_runs']} also "
        f"through a child CLI), {found['outside_writes']} writes outside the root, "
        f"{found['tracebacks']} tracebacks, {found['hangs']} hangs past {sc.HANG_SECONDS} s, "
        f"{found['wrong']} wrong answers; {found['ok']} answered, {found['refused']} refused "
        "with a reason"))
    assert found["cases"] >= CASES
    assert found["outside_writes"] == found["tracebacks"] == found["hangs"] == 0, \
        found["failures"]
    assert found["wrong"] == 0, found["failures"]
