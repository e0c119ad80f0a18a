"""SCIP export time on a real index (default: the Django 5.1 sdist): `spyglass export --scip`
of the newest snapshot, median of N runs, wall and CPU time, with the file's counts
(docs/indexing.md "SCIP export"). One command: `python bench/scip_export.py`."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchgit import GIT_SAFETY, git_env  # bench/ is on sys.path when a benchmark runs

from spyglass.query.facade import CodeIntel

REPO_ROOT = Path(__file__).resolve().parent.parent


def corpus(name: str) -> Path:
    out = subprocess.run([sys.executable, str(REPO_ROOT / "scripts" / "fetch_corpus.py"), name,
                          "--git"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip().splitlines()[-1])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--corpus", default="django", help="corpus of scripts/fetch_corpus.py")
    p.add_argument("--runs", type=int, default=3, help="exports timed (median reported)")
    args = p.parse_args()
    src = corpus(args.corpus)
    with tempfile.TemporaryDirectory(prefix="spyglass-scip-") as tmp:
        root = Path(tmp) / src.name
        subprocess.run(["git", *GIT_SAFETY, "-c", "protocol.file.allow=always", "clone", "-q",
                        "--shared", str(src), str(root)], env=git_env(), check=True)
        ci = CodeIntel(root)
        t0 = time.perf_counter()
        ci.index()
        index_s = time.perf_counter() - t0
        walls, cpus = [], []
        out = Path(tmp) / "index.scip"
        done = None
        for _ in range(max(args.runs, 1)):
            w0, c0 = time.perf_counter(), time.process_time()
            done = ci.export_scip(out)
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
        assert done is not None
        report = {
            "corpus": args.corpus, "runs": len(walls), "index_s": round(index_s, 2),
            "export_wall_s": round(statistics.median(walls), 2),
            "export_cpu_s": round(statistics.median(cpus), 2),
            "documents": done.documents, "symbols": done.symbols,
            "definitions": done.definitions, "references": done.references,
            "omitted_uncertain": done.omitted_uncertain,
            "omitted_external": done.omitted_external, "bytes": done.size,
            "load": os.getloadavg()[0],
        }
    print(json.dumps(report))
    print(f"{'corpus':<10} {'docs':>6} {'defs':>8} {'refs':>8} {'MB':>6} "
          f"{'export s (wall/cpu)':>20} {'index s':>8}")
    print(f"{args.corpus:<10} {report['documents']:>6} {report['definitions']:>8} "
          f"{report['references']:>8} {done.size / 1e6:>6.1f} "
          f"{report['export_wall_s']:>9} / {report['export_cpu_s']:<9} {report['index_s']:>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
