"""The precise pass against the index alone (docs/precise.md), on the accuracy benchmark's
corpora: accuracy (P/R of references and callers against the stored oracle answers), the
flagged share (uncertain sites / sites answered), warm latency p50/p95 of the same
questions, then the pass's time and peak memory beside the fast index time.

    .venv/bin/python bench/precise.py packaging urllib3 idna query_core react_query virtual_core
    .venv/bin/python bench/precise.py --cost DIR [--one-file]   # pass time/memory on a
        repository (indexed in place); --one-file: then a 1-file commit's index and pass

Prints JSON, then a table. Each corpus is a private git copy (bench/accuracy/compare.py
prepare_root); nothing is written into the corpus cache."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from accuracy.compare import CALLABLE, _Lines, _score, load_oracle, prepare_root, spread
from accuracy.corpora import CORPORA

from spyglass.config import PreciseConfig, load_config
from spyglass.query.facade import CodeIntel
from spyglass.types import CodeLocation


def _ask_all(ci: CodeIntel, doc: dict[str, Any], cpu: bool = False
             ) -> tuple[list[float], int, int]:
    """Warm latency (ms) of every refs/callers question (each asked twice, the second
    timed; `cpu`: this process's CPU time, which a loaded machine does not inflate), and
    the sites answered / flagged uncertain."""
    clock = time.process_time if cpu else time.perf_counter
    times: list[float] = []
    sites = flagged = 0
    for t in doc["targets"]:
        where = {"path": t["path"], "line": t["line"], "column": t["col"] + 1}
        asks = [ci.references] + ([ci.callers] if t["kind"] in CALLABLE else [])
        for ask in asks:
            ask(**where)
            start = clock()
            res = ask(**where)
            times.append((clock() - start) * 1000)
            locs = [x for x in res.results if isinstance(x, CodeLocation)]
            sites += len(locs)
            flagged += sum(1 for x in locs if x.uncertain)
    return times, sites, flagged


def _interleaved(ci: CodeIntel, doc: dict[str, Any], rounds: int = 2) -> dict[str, Any]:
    """Warm p50/p95 (ms) of the same questions with the pass's facts and without them
    (answers from the index alone), alternating in one process after the pass: the load
    of a shared machine falls on both alike."""
    from spyglass.query import escalate
    real = escalate.Escalator._scip_index
    times: dict[str, list[float]] = {"index_only": [], "with_pass": []}
    cpu: dict[str, list[float]] = {"index_only": [], "with_pass": []}
    try:
        for _ in range(rounds):
            for phase in times:
                escalate.Escalator._scip_index = (  # type: ignore[method-assign]
                    real if phase == "with_pass" else (lambda self, view: None))
                times[phase] += _ask_all(ci, doc)[0]
                cpu[phase] += _ask_all(ci, doc, cpu=True)[0]
    finally:
        escalate.Escalator._scip_index = real  # type: ignore[method-assign]
    return {k: {"p50_ms": _pct(v, 0.5), "p95_ms": _pct(v, 0.95),
                "cpu_p50_ms": _pct(cpu[k], 0.5), "cpu_p95_ms": _pct(cpu[k], 0.95)}
            for k, v in times.items()}


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(p * len(xs)))], 2) if xs else 0.0


def _oracle(name: str, targets: int | None) -> dict[str, Any]:
    """The stored oracle answers; `targets`: that many targets, spread evenly."""
    doc = load_oracle(name)
    return {**doc, "targets": spread(doc["targets"], targets)}


def _phase(ci: CodeIntel, name: str, root: Path, targets: int | None = None
           ) -> dict[str, Any]:
    doc = _oracle(name, targets)
    times, sites, flagged = _ask_all(ci, doc)
    result = _score(ci, CORPORA[name], doc, _Lines(root))
    out: dict[str, Any] = {"p50_ms": _pct(times, 0.5), "p95_ms": _pct(times, 0.95),
                           "sites": sites, "flagged_share": round(flagged / max(sites, 1), 4)}
    for q in ("refs", "calls"):
        s = result.scores[(q, "all")]
        h = result.headline[q]
        out[q] = {"P": round(s.precision, 4), "R": round(s.recall, 4), "tp": s.tp,
                  "fp": s.fp, "fn": s.fn, "certain_P": round(h.certain_precision, 4),
                  "certain": h.certain}
    out["misses"] = result.examples[:400]  # the wrong and missed sites, to read
    return out


def corpus(name: str, latency: bool = True, targets: int | None = None) -> dict[str, Any]:
    root = prepare_root(name)
    try:
        config = load_config(repo_root=root)
        config = replace(config, precise=replace(config.precise, enabled="auto"))
        ci = CodeIntel(root, config=config)
        start = time.perf_counter()
        ci.index(precise="off")
        index_s = time.perf_counter() - start
        before = _phase(ci, name, root, targets)
        runs = ci.precise_pass(None, "wait")
        after = _phase(ci, name, root, targets)
        if latency:
            after["interleaved"] = _interleaved(ci, _oracle(name, targets))
        return {"corpus": name, "language": CORPORA[name].language, "targets": targets,
                "index_s": round(index_s, 2),
                "pass": [{"tool": r.tool, "state": r.state, "files": r.files,
                          "seconds": r.seconds, "peak_mb": r.peak_mb, "error": r.error}
                         for r in runs],
                "index_only": before, "with_pass": after}
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


def cost(repo: Path, one_file: bool = False, change: str = "") -> dict[str, Any]:
    """Fast index time, then the pass's time and peak memory, on a repository (indexed in
    place: its `.spyglass/` store is created or reused)."""
    config = load_config(repo_root=repo)
    config = replace(config, precise=PreciseConfig(enabled="true", timeout_s=7200,
                                                   memory_mb=8192))
    ci = CodeIntel(repo, config=config)
    start = time.perf_counter()
    snap = ci.index(precise="off")
    index_s = time.perf_counter() - start
    runs = ci.precise_pass(snap.id, "wait")
    out: dict[str, Any] = {
        "repo": str(repo), "files": snap.files, "index_s": round(index_s, 2),
        "pass": [{"tool": r.tool, "state": r.state, "files": r.files, "seconds": r.seconds,
                  "peak_mb": r.peak_mb, "error": r.error} for r in runs],
        "load": os.getloadavg()}
    if one_file:  # a 1-file commit: the fast index again, then the pass again
        changed = _commit_one(repo, {r.tool.split(" ")[0] for r in runs}, change)
        start = time.perf_counter()
        snap = ci.index(precise="off")
        out["commit_index_s"] = round(time.perf_counter() - start, 2)
        out["commit_pass"] = [{"tool": r.tool, "state": r.state, "seconds": r.seconds,
                               "peak_mb": r.peak_mb, "file": changed}
                              for r in ci.precise_pass(snap.id, "wait")]
    return out


def _commit_one(repo: Path, tools: set[str], change: str = "") -> str:
    """Append a comment line to one source file of the pass's languages (`change`, else
    the first in path order) and commit it (git with the benchmarks' hardening: no
    hooks)."""
    import subprocess

    from benchgit import GIT_SAFETY, git_env
    suffix = {"javac": (".java", "//"), "scip-python": (".py", "#"),
              "scip-typescript": (".ts", "//")}
    ext, mark = next(suffix[t] for t in sorted(tools) if t in suffix)
    target = repo / change if change else next(
        p for p in sorted(repo.rglob(f"*{ext}")) if ".spyglass" not in p.parts)
    with target.open("a", encoding="utf-8") as fh:
        fh.write(f"\n{mark} a one-line change (bench/precise.py --cost --one-file)\n")
    for args in (["add", "-A"], ["-c", "user.name=bench", "-c", "user.email=bench@invalid",
                                 "commit", "-qm", "one file"]):
        subprocess.run(["git", *GIT_SAFETY, *args], cwd=repo, env=git_env(), check=True)
    return target.relative_to(repo).as_posix()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", default=[])
    parser.add_argument("--cost", type=Path, help="measure the pass's cost on this repository")
    parser.add_argument("--one-file", action="store_true",
                        help="with --cost: then commit a 1-line change to one file and "
                        "measure the index and the pass again")
    parser.add_argument("--change", default="", help="with --one-file: the file to change "
                        "(relative to the repository)")
    parser.add_argument("--targets", type=int, default=None,
                        help="score this many of each corpus's stored targets, spread "
                        "evenly (a sample; default all)")
    parser.add_argument("--no-interleaved", action="store_true",
                        help="skip the interleaved latency rounds (accuracy and one timing)")
    args = parser.parse_args(argv)
    os.environ.pop("SPYGLASS_PRECISE", None)
    if args.cost:
        out = cost(args.cost.resolve(), args.one_file, args.change)
        print(json.dumps(out, indent=1))
        for r in out["pass"]:
            print(f"{out['repo']}: index {out['index_s']} s ({out['files']} files); "
                  f"{r['tool']} {r['state']} {r['seconds']} s, peak {r['peak_mb']} MB, "
                  f"{r['files']} files {r['error']}")
        for r in out.get("commit_pass", []):
            print(f"1-file commit ({r['file']}): index {out['commit_index_s']} s; "
                  f"{r['tool']} {r['state']} {r['seconds']} s, peak {r['peak_mb']} MB")
        return 0
    results = []
    for n in args.names:
        results.append(corpus(n, latency=not args.no_interleaved, targets=args.targets))
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)  # as each completes
    print(json.dumps(results, indent=1))
    print(f"{'corpus':<14}{'phase':<11}{'refs P':>8}{'refs R':>8}{'calls P':>8}"
          f"{'calls R':>8}{'flagged':>9}{'p50 ms':>8}{'p95 ms':>8}{'cert P r/c':>14}")
    for r in results:
        for phase in ("index_only", "with_pass"):
            x = r[phase]
            print(f"{r['corpus']:<14}{phase:<11}{x['refs']['P']:>8.3f}{x['refs']['R']:>8.3f}"
                  f"{x['calls']['P']:>8.3f}{x['calls']['R']:>8.3f}{x['flagged_share']:>9.3f}"
                  f"{x['p50_ms']:>8.1f}{x['p95_ms']:>8.1f}"
                  f"{x['refs']['certain_P']:>7.3f}{x['calls']['certain_P']:>7.3f}")
        ab = r["with_pass"].get("interleaved")
        for unit, p in (("wall", ""), ("cpu", "cpu_")) if ab else ():
            print(f"{'':<14}interleaved p50/p95 ms ({unit}): index "
                  f"{ab['index_only'][p + 'p50_ms']} / {ab['index_only'][p + 'p95_ms']}, "
                  f"with pass {ab['with_pass'][p + 'p50_ms']} / "
                  f"{ab['with_pass'][p + 'p95_ms']}")
        for p in r["pass"]:
            print(f"{'':<14}pass: {p['tool']} {p['state']} {p['seconds']} s, peak "
                  f"{p['peak_mb']} MB, {p['files']} files (index {r['index_s']} s) {p['error']}")
    print("load", os.getloadavg(), "median of medians",
          statistics.median([r["with_pass"]["p50_ms"] for r in results] or [0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
