"""Explore's latency on a big tree: index it once, then ask N free-text questions through the
CLI, a fresh process each (as an agent's `spyglass explore` call): the first question (which
reads the files' words) apart, then p50 / p95 of wall and CPU seconds; with `--before SRC`,
the same with another checkout's sources (`SRC/src` on the path), side by side.

    python bench/explore_latency.py [--tree DIR] [--questions N] [--before SRC]
    python bench/explore_latency.py --root INDEXED [--src SRC] [--before SRC] [--questions N]

DIR defaults to Debian's Go sources (/usr/share/gocode/src, about 7,800 files, installed by
`scripts/bootstrap.sh --corpora`); it is copied to a temporary folder per side (not a git
repository), never changed in place. `--root` asks the questions of a tree already indexed
there instead (no copy, no index; the words its earlier questions kept are reused), with
`SRC/src` on the path (default: this checkout); with `--before`, each question is asked by
both checkouts in turn (paired: the same load on both sides). The questions are fixed
English sentences about what such a tree does, written without looking at any answer.
Prints JSON, then a table."""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GO_TREE = Path("/usr/share/gocode/src")
HERE = Path(__file__).resolve().parent.parent
QUESTIONS = [
    "where are http request headers parsed",
    "how is a json object decoded into a struct",
    "retry a failed request with exponential backoff",
    "where is the tls certificate verified",
    "how are command line flags parsed",
    "compress a stream with gzip",
    "where is the yaml document parsed",
    "how does the logger format a timestamp",
    "read the configuration file from the home directory",
    "where are websocket frames written",
    "how is a protobuf message marshalled",
    "check whether a string is a valid email address",
    "where is the database connection pool closed",
    "how are environment variables expanded in a path",
    "parse a duration such as 10s or 5m",
    "where is the rate limiter token bucket refilled",
    "how does the router match a url path with parameters",
    "generate a random uuid",
    "where are unicode characters normalised",
    "how is a file watched for changes",
]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(src: Path, root: Path, *args: str) -> tuple[float, float, int]:
    """One CLI call with `src` first on the path: (wall s, CPU s, exit code)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    cpu, start = _cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "spyglass", "-C", str(root), *args], env=env,
                          capture_output=True, text=True, check=False)
    return time.perf_counter() - start, _cpu() - cpu, proc.returncode


def side(src: Path, tree: Path, n: int, work: Path | None, name: str) -> dict[str, object]:
    """Index a copy of `tree` under `work` (or, `work` None, use `tree` as indexed), then
    ask the questions."""
    out: dict[str, object] = {"src": str(src), "index_wall_s": "-", "index_cpu_s": "-"}
    root = tree
    if work is not None:
        root = work / name
        shutil.copytree(tree, root, symlinks=True)
        wall, cpu, code = run(src, root, "index")
        out.update({"index_wall_s": round(wall, 1), "index_cpu_s": round(cpu, 1),
                    "index_exit": code})
    out["load_before"] = os.getloadavg()
    times = [run(src, root, "explore", q) for q in QUESTIONS[:n]]
    out.update(figures(times))
    return out


def figures(times: list[tuple[float, float, int]]) -> dict[str, object]:
    """The first question apart, then p50 / p95 of the others' wall and CPU seconds."""
    first, rest = times[0], times[1:] or times
    walls = sorted(t[0] for t in rest)
    cpus = sorted(t[1] for t in rest)
    return {
        "first_wall_s": round(first[0], 2), "first_cpu_s": round(first[1], 2),
        "p50_wall_s": round(statistics.median(walls), 2),
        "p95_wall_s": round(walls[min(len(walls) - 1, int(0.95 * len(walls)))], 2),
        "p50_cpu_s": round(statistics.median(cpus), 2),
        "p95_cpu_s": round(cpus[min(len(cpus) - 1, int(0.95 * len(cpus)))], 2),
        "questions": len(times), "failed": sum(1 for t in times if t[2] != 0),
        "load_after": os.getloadavg()}


def paired(before: Path, after: Path, root: Path, n: int) -> dict[str, dict[str, object]]:
    """Each question asked by both checkouts of one indexed tree, one right after the other
    (which first alternates), so both sides see the same load; plus the median of the
    per-question CPU differences (after - before)."""
    load = os.getloadavg()
    got: dict[str, list[tuple[float, float, int]]] = {"before": [], "asked": []}
    for i, q in enumerate(QUESTIONS[:n]):
        order = [("before", before), ("asked", after)]
        for name, src in order if i % 2 == 0 else order[::-1]:
            got[name].append(run(src, root, "explore", q))
    out = {name: {"src": str(src), "index_wall_s": "-", "index_cpu_s": "-",
                  "load_before": load, **figures(got[name])}
           for name, src in (("before", before), ("asked", after))}
    diffs = [a[1] - b[1] for a, b in zip(got["asked"][1:], got["before"][1:], strict=True)]
    out["asked"]["median_cpu_diff_s"] = round(statistics.median(diffs or [0.0]), 3)
    return out


def both(sides: dict[str, dict[str, object]], before: Path | None, tree: Path, n: int,
         work: Path) -> None:
    if before is not None:
        sides["before"] = side(before.resolve() / "src", tree, n, work, "before")
    sides["after"] = side(HERE / "src", tree, n, work, "after")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tree", type=Path, default=GO_TREE)
    ap.add_argument("--questions", type=int, default=20)
    ap.add_argument("--before", type=Path, help="another checkout: its src/, side by side")
    ap.add_argument("--root", type=Path, help="a tree already indexed: ask it, no index")
    ap.add_argument("--src", type=Path, default=HERE, help="with --root: the checkout")
    args = ap.parse_args()
    n = max(2, min(args.questions, len(QUESTIONS)))
    report: dict[str, object] = {
        "tree": str(args.root or args.tree),
        "files": sum(len(f) for _, _, f in os.walk(args.root or args.tree)),
        "uptime": subprocess.run(["uptime"], capture_output=True, text=True,
                                 check=False).stdout.strip(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    sides: dict[str, dict[str, object]] = {}
    if args.root is not None:
        if args.before is not None:  # the same indexed tree, both sides question by question
            sides.update(paired(args.before.resolve() / "src", args.src.resolve() / "src",
                                args.root.resolve(), n))
        else:
            sides["asked"] = side(args.src.resolve() / "src", args.root.resolve(), n, None, "")
    else:
        with tempfile.TemporaryDirectory(prefix="explore-latency-") as tmp:
            both(sides, args.before, args.tree, n, Path(tmp))
    report["sides"] = sides
    print(json.dumps(report, indent=2))
    keys = ("index_wall_s", "index_cpu_s", "first_wall_s", "first_cpu_s", "p50_wall_s",
            "p95_wall_s", "p50_cpu_s", "p95_cpu_s", "failed")
    print(f"\n{'measure':<14}" + "".join(f"{k:>12}" for k in sides))
    for k in keys:
        print(f"{k:<14}" + "".join(f"{sides[s][k]!s:>12}" for s in sides))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
