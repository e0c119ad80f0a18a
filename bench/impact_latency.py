"""Latency of blast radius, test suggestions and explore on a real index (default: the Django 5.1 sdist)."""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchgit import GIT_SAFETY, git_env  # bench/ is on sys.path when a benchmark runs

from spyglass.query import symbols as sym
from spyglass.query.facade import CodeIntel

REPO_ROOT = Path(__file__).resolve().parent.parent


def corpus(name: str) -> Path:
    out = subprocess.run([sys.executable, str(REPO_ROOT / "scripts" / "fetch_corpus.py"), name,
                          "--git"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip().splitlines()[-1])


def private_copy(src: Path, work: Path) -> Path:
    """A clone sharing the corpus' objects, so our index never touches the shared cache."""
    dest = work / src.name
    if not dest.exists():
        subprocess.run(["git", *GIT_SAFETY, "-c", "protocol.file.allow=always", "clone", "-q",
                        "--shared", str(src), str(dest)], env=git_env(), check=True)
    return dest


def percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    k = max(0, min(len(xs) - 1, round(p / 100 * (len(xs) - 1))))
    return xs[k]


def measure(label: str, calls: list[Callable[[], object]]) -> dict[str, object]:
    calls[0]()  # warm-up: caches of the view (name index, wildcard re-exports)
    ms: list[float] = []
    for call in calls:
        t0 = time.perf_counter()
        call()
        ms.append((time.perf_counter() - t0) * 1000)
    row = {"query": label, "n": len(ms), "p50_ms": round(statistics.median(ms), 1),
           "p95_ms": round(percentile(ms, 95), 1), "max_ms": round(max(ms), 1)}
    print(json.dumps(row), file=sys.stderr)
    return row


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--corpus", default="django")
    p.add_argument("--root", type=Path, help="an indexed repository (skips fetch and index)")
    p.add_argument("--work", type=Path, help="scratch folder for the private clone")
    p.add_argument("-n", type=int, default=200, help="queries of each kind")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", type=Path)
    args = p.parse_args()
    index_s = None
    if args.root:
        root = args.root
    else:
        work = args.work or Path(tempfile.mkdtemp(prefix="spyglass-latency-"))
        root = private_copy(corpus(args.corpus), work)
        t0 = time.perf_counter()
        CodeIntel(root).index()
        index_s = round(time.perf_counter() - t0, 1)
    ci = CodeIntel(root)
    with ci.lock:
        view = ci.view()
        defs = [d for d in sym.find_defs(view, "*") if d.kind in ("func", "method", "class")
                and "/tests/" not in f"/{d.path}"]
    rng = random.Random(args.seed)
    picks = rng.sample(defs, min(args.n, len(defs)))
    files = sorted({d.path for d in picks})[: args.n // 4]
    words = [" ".join(re.findall(r"[A-Za-z][a-z]+", d.name)) or d.name for d in picks]
    def refresh() -> None:
        with ci.lock:
            ci.view()
    rows = [
        measure("view refresh only (the floor of every call)", [refresh] * len(picks)),
        measure("blast_radius PATH:LINE depth 3",
                [lambda d=d: ci.blast_radius([f"{d.path}:{d.name_line}"]) for d in picks]),
        measure("suggest_tests PATH:LINE depth 3",
                [lambda d=d: ci.suggest_tests([f"{d.path}:{d.name_line}"]) for d in picks]),
        measure("blast_radius FILE depth 3", [lambda f=f: ci.blast_radius([f]) for f in files]),
        measure("explore symbol name, budget 2000",
                [lambda d=d: ci.explore(d.name, 2000) for d in picks]),
        measure("explore free text, budget 2000",
                [lambda w=w: ci.explore(w, 2000) for w in words]),
    ]
    report = {"root": str(root), "definitions": len(defs), "index_seconds": index_s,
              "rows": rows}
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
