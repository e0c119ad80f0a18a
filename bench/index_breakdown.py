"""Where indexing time goes: each stage of `spyglass index` on one core, as a multiple of bare parsing.

Every stage runs in this process over the same files, side by side in each run; the
report gives the median CPU seconds of each stage and its ratio to bare tree-sitter
parsing. Stages:

* parse: `Parser.parse` of every file (the baseline of bench/index.py);
* queries: the pack's two query traversals as extraction runs them (structure matches,
  references captures);
* extract: the whole extraction (parse + queries + binding in Python); the report derives
  the binding alone as extract - parse - queries;
* resolve: the language resolver on the extracted facts;
* store: inserting the rows into a fresh store, one transaction a chunk, then building
  the secondary indexes.

The sum of the stages (parse counted once) is the CPU one file costs; `spyglass index`
spreads it over the cores, plus a serial start and end.

    python bench/index_breakdown.py --corpus django --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from machine import cpu_model  # bench/ is on sys.path when a benchmark runs

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "src"))

from index import load_fetch, python_files
from tree_sitter import QueryCursor

from spyglass.index.store import FACT_INDEXES, SCHEMA
from spyglass.index.worker import chunk_rows, insert_rows, resolve
from spyglass.langs.python.resolver import module_keys
from spyglass.syntax.extract import extract
from spyglass.syntax.langpack import all_packs
from spyglass.syntax.parsing import parse

CHUNK = 64


def stages(root: Path) -> dict[str, Callable[[], object]]:
    """The measured stages over every .py file under root (read once, before timing)."""
    files = [(str(p.relative_to(root)), p.read_bytes()) for p in python_files(root)]
    pack = all_packs()["python"]
    by_path = dict(files)
    ctxs = module_keys([p for p, _ in files], by_path.get)
    trees = [parse(pack, data) for _, data in files]
    facts = [extract(pack, data) for _, data in files]
    extract(pack, b"x = 1")  # compile the pack's queries before timing

    def structure() -> None:
        for tree in trees:
            for _ in QueryCursor(pack.structure).matches(tree.root_node):
                pass

    def references() -> None:
        for tree in trees:
            QueryCursor(pack.queries["references"]).captures(tree.root_node)

    ctx_key = ""
    chunks = [chunk_rows([(uid, path, "", data, "python", "", ctxs[path], ctx_key)
                          for uid, (path, data) in enumerate(files[i:i + CHUNK], i + 1)])
              for i in range(0, len(files), CHUNK)]

    def store() -> None:
        with tempfile.TemporaryDirectory(prefix="spyglass-breakdown-") as tmp:
            conn = sqlite3.connect(Path(tmp) / "graph.db", isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.executescript(SCHEMA)
            for tables in chunks:
                insert_rows(conn, tables)
            conn.executescript(FACT_INDEXES)
            conn.close()

    return {
        "parse": lambda: [parse(pack, data) for _, data in files],
        "structure query (matches)": structure,
        "references query (captures)": references,
        "extract (parse+queries+binding)": lambda: [extract(pack, data) for _, data in files],
        "resolve": lambda: [resolve("python", f, ctxs[p]) for (p, _), f in zip(files, facts)],
        "store (insert rows, build indexes)": store,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="django")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    fetch, _ = load_fetch()
    root = fetch(args.corpus, None)
    work = stages(root)
    times: dict[str, list[float]] = {name: [] for name in work}
    for run in range(args.runs):
        print(f"run {run + 1}/{args.runs} ...", file=sys.stderr)
        for name, fn in work.items():
            start = time.process_time()
            fn()
            times[name].append(time.process_time() - start)
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    base = medians["parse"]
    medians["binding in Python (derived)"] = (
        medians["extract (parse+queries+binding)"] - base
        - medians["structure query (matches)"] - medians["references query (captures)"])
    report: dict[str, Any] = {
        "corpus": args.corpus, "runs": args.runs,
        "machine": {"cpu_model": cpu_model(), "nproc": os.cpu_count(),
                    "python": platform.python_version()},
        "cpu_seconds": {k: round(v, 3) for k, v in medians.items()},
        "over_parse": {k: round(v / base, 2) for k, v in medians.items()},
    }
    print(json.dumps(report, indent=2))
    width = max(map(len, medians))
    print(f"{'stage':{width}}  cpu s  x parse")
    for name, value in medians.items():
        print(f"{name:{width}}  {value:5.2f}  {value / base:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
