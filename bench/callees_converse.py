"""Callees as the converse of callers on real corpora: for a sample of functions, each
caller the callers tool lists (asked at the definition, index only) is asked for its
callees; counted: pairs where the definition is listed with the same certainty, missing,
or listed with another certainty (docs/tools.md, "Callees").

    .venv/bin/python bench/callees_converse.py [--corpus flask ...] [--sample 60]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from accuracy.compare import prepare_root

from spyglass.errors import BadInput
from spyglass.query.facade import CodeIntel
from spyglass.query.rows import DEF_COLS, DEF_FROM, defs
from spyglass.types import CodeLocation

SEED = 7


def measure(name: str, sample: int) -> dict[str, object]:
    parent = Path(tempfile.mkdtemp(prefix=f"spyglass-converse-{name}-"))
    try:
        ci = CodeIntel(prepare_root(name, parent))
        ci.index()
        with ci.lock:
            found = defs(ci.view().each(
                f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.kind IN ('func', 'method')", ()))
        random.Random(SEED).shuffle(found)
        agree, missing, differs = 0, 0, 0
        seconds: list[float] = []
        wrong: list[str] = []
        for d in found[:sample]:
            calls: dict[str, bool] = {}  # caller → one of its calls certain
            for row in ci.callers(path=d.path, line=d.name_line, column=d.name_col + 1,
                                  lsp_budget_ms=0).results:
                if isinstance(row, CodeLocation) and row.kind != "module":
                    calls[row.symbol] = calls.get(row.symbol, False) or not row.uncertain
            for caller, certain in sorted(calls.items()):
                start = time.perf_counter()
                try:
                    got = ci.callees(name=caller)
                except BadInput:
                    continue  # a caller without a name of its own
                seconds.append(time.perf_counter() - start)
                listed = [r for r in got.results if isinstance(r, CodeLocation)
                          and (r.path, r.start_line) == (d.path, d.start_line)]
                if not listed:
                    missing += 1
                    wrong.append(f"missing {caller} -> {d.full}")
                elif any(r.uncertain for r in listed) == certain:
                    differs += 1
                    wrong.append(f"certainty {caller} -> {d.full}")
                else:
                    agree += 1
        return {"corpus": name, "definitions": min(sample, len(found)),
                "pairs": agree + missing + differs, "agree": agree, "missing": missing,
                "certainty_differs": differs,
                "callees_ms_median": round(1000 * statistics.median(seconds), 1)
                if seconds else None,
                "callees_ms_max": round(1000 * max(seconds)) if seconds else None,
                "wrong": wrong[:10]}
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", action="append")
    ap.add_argument("--sample", type=int, default=60)
    args = ap.parse_args()
    for name in args.corpus or ["flask", "requests", "httpx", "cobra", "client_golang",
                                "trpc"]:
        print(measure(name, args.sample), flush=True)


if __name__ == "__main__":
    main()
