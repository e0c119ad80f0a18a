"""The `.spyglass/` fuzz of issue #24 at full size: hostile store layouts (links outside,
inside, dangling, looping, to /dev/zero; FIFOs, folders, hard links; garbage, truncated,
foreign and copied databases; `.spyglass` itself a link, file or FIFO), each followed by an
in-process entry point (index, find, refs, status, index-then-find) and every Nth also by a
child `spyglass index`. Prints JSON, then a table. The CI runs 500 of these cases
(tests/security/test_store_fuzz.py).

    python bench/store_fuzz.py --cases 2000 --subprocess-every 50
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO_ROOT / "src"), str(REPO_ROOT / "tests"),
                str(REPO_ROOT / "tests" / "security")]

import store_cases  # tests/security is on the path above


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--subprocess-every", type=int, default=50)
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument("--git-every", type=int, default=1,
                    help="every Nth case in a git repository, the rest in a plain folder")
    args = ap.parse_args(argv)
    began, cpu = time.monotonic(), time.process_time()
    with tempfile.TemporaryDirectory(prefix="spyglass-store-fuzz-") as tmp:
        found = store_cases.fuzz(Path(tmp), args.cases, args.subprocess_every, args.seed,
                                 log=lambda line: print(line, file=sys.stderr),
                                 git_every=args.git_every)
    found["wall_s"] = round(time.monotonic() - began, 1)
    found["cpu_s"] = round(time.process_time() - cpu, 1)
    found["load"] = os.getloadavg()[0]
    print(json.dumps(found, indent=2))
    print()
    for key in ("cases", "ok", "refused", "wrong", "tracebacks", "hangs", "outside_writes",
                "subprocess_runs", "slow", "longest_case_s", "wall_s", "cpu_s"):
        print(f"{key:<16} {found[key]}")
    bad = found["outside_writes"] or found["tracebacks"] or found["hangs"] or found["wrong"]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
