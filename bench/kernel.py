"""Benchmark spyglass on the Linux kernel (Debian linux-source 6.1): full index, refs, 1-file commit.

The tarball comes from `apt-get install linux-source` (scripts/bootstrap.sh --kernel);
it is unpacked once into the corpus cache and made a git repository of one commit.
Measured: a full `spyglass index` into a fresh store (wall time, peak RSS of the whole
process tree sampled every 0.5 s), what was skipped and why, `refs` to kmalloc, printk and
`struct file` (in-process median of three after one warm-up, and one CLI run each), and a
re-index after a commit changing one file (time as a share of the full index), and the
first `refs` processes after that new snapshot. CLI runs report wall and CPU seconds (user +
sys, children included). The machine's load average is recorded before and after each step
(the machine is shared).

    .venv/bin/python bench/kernel.py [--json-out docs/kernel.json] [--skip-full] [--skip-commit]
        [--skip-refs] [--cli-runs N] [--commit-rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from accuracy.corpora import fetch_module

REPO = Path(__file__).resolve().parents[1]
TARBALL = Path("/usr/src/linux-source-6.1.tar.xz")
NAME = "linux-source-6.1"
SPYGLASS = [sys.executable, "-m", "spyglass"]
CHANGED_FILE = "mm/slab_common.c"
BRANCH = "bench-one-file"


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def corpus() -> Path:
    """The unpacked tree as a git repository of one commit (made once)."""
    fetch = fetch_module()
    root = fetch.default_dest() / NAME
    if not (root / ".git").exists():
        if not TARBALL.exists():
            raise SystemExit(f"{TARBALL} missing: run scripts/bootstrap.sh --kernel")
        root.parent.mkdir(parents=True, exist_ok=True)
        if not root.exists():
            with tarfile.open(TARBALL) as tar:
                tar.extractall(root.parent, filter="data")
        fetch.make_git_repo(root)
    return root


def _tree_rss(pid: int) -> int:
    """Resident bytes of a process and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(stat[1]), []).append(int(entry))
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        stack.extend(children.get(p, ()))
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


def timed_index(root: Path) -> dict[str, Any]:
    """One `spyglass index` run: wall seconds and the peak RSS of its process tree."""
    before = load()
    start = time.monotonic()
    proc = subprocess.Popen([*SPYGLASS, "-C", str(root), "index"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss(proc.pid))
        time.sleep(0.5)
    seconds = time.monotonic() - start
    err = proc.stderr.read() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"spyglass index failed ({proc.returncode}): {err[-2000:]}")
    return {"seconds": round(seconds, 1), "peak_rss_mb": round(peak / 2**20),
            "load_before": before, "load_after": load()}


def store_stats(root: Path) -> dict[str, Any]:
    """Files, units, rows, skipped files by reason, the store's size."""
    db = root / ".spyglass" / "graph.db"
    conn = sqlite3.connect(db)
    snap = conn.execute("SELECT MAX(id) FROM snapshots WHERE state='completed'").fetchone()[0]
    files = conn.execute("SELECT COUNT(*), COUNT(unit), SUM(size) FROM snapshot_files "
                         "WHERE snapshot=?", (snap,)).fetchone()
    by_lang = dict(conn.execute("SELECT COALESCE(language, '-'), COUNT(*) FROM snapshot_files "
                                "WHERE snapshot=? GROUP BY 1", (snap,)).fetchall())
    skipped: dict[str, int] = {}
    for reason, count in conn.execute(
            "SELECT skipped, COUNT(*) FROM snapshot_files WHERE snapshot=? AND skipped IS NOT "
            "NULL GROUP BY 1", (snap,)):
        text = str(reason)
        key = text.split(":")[0] if text.startswith(("unsupported", "oversized", "not valid")) \
            else text
        skipped[key] = skipped.get(key, 0) + int(count)
    big = conn.execute("SELECT COUNT(*), COALESCE(SUM(size), 0) FROM snapshot_files WHERE "
                       "snapshot=? AND skipped LIKE 'oversized%'", (snap,)).fetchone()
    rows = {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
            for t in ("defs", "refs", "imports")}
    diags = conn.execute("SELECT COUNT(DISTINCT unit) FROM diags").fetchone()[0]
    conn.close()
    size = sum(p.stat().st_size for p in (root / ".spyglass").glob("graph.db*"))
    return {"files": files[0], "indexed": files[1], "bytes": files[2], "by_language": by_lang,
            "skipped": dict(sorted(skipped.items(), key=lambda kv: -kv[1])),
            "oversized": {"files": big[0], "bytes": big[1]}, "rows": rows,
            "files_with_parse_errors": diags, "store_mb": round(size / 2**20)}


def _line_of(root: Path, path: str, text: str, name: str) -> tuple[int, int]:
    """1-based line and column of `name` on the first line starting with `text`."""
    for i, line in enumerate((root / path).read_text(errors="replace").splitlines(), 1):
        if line.startswith(text):
            return i, line.index(name) + 1
    raise SystemExit(f"{text!r} not found in {path}")


def asks(root: Path) -> dict[str, dict[str, Any]]:
    """The three questions: kmalloc, printk (by name) and struct file (by position)."""
    line, col = _line_of(root, "include/linux/fs.h", "struct file {", "file")
    return {"kmalloc": {"name": "kmalloc"}, "printk": {"name": "printk"},
            "struct file": {"path": "include/linux/fs.h", "line": line, "column": col}}


def cli_run(root: Path, kwargs: dict[str, Any]) -> dict[str, Any]:
    """One `spyglass refs` process: wall seconds, CPU seconds (user + sys of the process
    and its children, e.g. git: the machine is shared, so wall depends on the load)."""
    cli = [*SPYGLASS, "-C", str(root), "refs", "--lsp-budget-ms", "0", "--json"]
    cli += ["--at", f"{kwargs['path']}:{kwargs['line']}:{kwargs['column']}"] \
        if "path" in kwargs else [kwargs["name"]]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    proc = subprocess.run(cli, capture_output=True, text=True, check=False)
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return {"wall": round(wall, 2), "cpu": round(cpu, 2), "rc": proc.returncode}


def _medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"cli_wall_median": round(statistics.median(r["wall"] for r in runs), 2),
            "cli_cpu_median": round(statistics.median(r["cpu"] for r in runs), 2),
            "cli_runs": runs}


def refs(root: Path, cli_runs: int = 3) -> dict[str, Any]:
    """`refs` to kmalloc, printk and struct file: in-process wall times (median of three
    after one warm-up), then `cli_runs` CLI processes each (clean starts: the in-process
    refresh saved the workspace's state), wall and CPU."""
    from spyglass.query.facade import CodeIntel
    out: dict[str, Any] = {"load_before": load()}
    for label, kwargs in asks(root).items():
        ci = CodeIntel(root)
        times: list[float] = []
        result = None
        for _ in range(4):
            t = time.monotonic()
            result = ci.references(lsp_budget_ms=0, **kwargs)
            times.append(time.monotonic() - t)
        assert result is not None
        out[label] = {"results": len(result.results),  # type: ignore[attr-defined]
                      "truncated": bool(getattr(result, "truncated", False)),
                      "seconds_median": round(statistics.median(times[1:]), 3),
                      "seconds_first": round(times[0], 3),
                      **_medians([cli_run(root, kwargs) for _ in range(cli_runs)])}
    out["load_after"] = load()
    return out


def one_file_commit(root: Path, rounds: int = 1) -> dict[str, Any]:
    """Commit a change to one file on a side branch, re-index, then ask one question in a
    new process (the first process after a new snapshot); for each question, `rounds`
    times (a new commit each), then return to main."""
    git = ["git", "-C", str(root), "-c", "user.name=bench", "-c", "user.email=b@b.invalid",
           "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "checkout", "-q", "-B", BRANCH, "main"], check=True)
    path = root / CHANGED_FILE
    original = path.read_bytes()
    indexes: list[dict[str, Any]] = []
    first: dict[str, list[dict[str, Any]]] = {}
    try:
        for i in range(rounds):
            for label, kwargs in asks(root).items():
                n = len(indexes)
                marker = f"\nint bench_one_file_marker_{n}(void)\n{{\n\treturn {n};\n}}\n"
                path.write_bytes(path.read_bytes() + marker.encode())
                subprocess.run([*git, "commit", "-q", "-am", f"one-file change {n}"],
                               check=True)
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                indexes.append(timed_index(root))
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                indexes[-1]["cpu"] = round(after.ru_utime - before.ru_utime + after.ru_stime
                                           - before.ru_stime, 2)
                first.setdefault(label, []).append(cli_run(root, kwargs))
    finally:
        path.write_bytes(original)
        subprocess.run([*git, "checkout", "-q", "-f", "main"], check=True)
        subprocess.run([*git, "branch", "-q", "-D", BRANCH], check=True)
    result = dict(indexes[0])
    result["seconds_median"] = round(statistics.median(x["seconds"] for x in indexes), 1)
    result["cpu_median"] = round(statistics.median(x["cpu"] for x in indexes), 2)
    result["runs"] = indexes
    result["first_refs_after"] = {label: _medians(runs) for label, runs in first.items()}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--skip-full", action="store_true",
                        help="keep the existing store (refs and the 1-file commit only)")
    parser.add_argument("--skip-commit", action="store_true",
                        help="no 1-file commit re-index (refs only)")
    parser.add_argument("--skip-refs", action="store_true",
                        help="no refs on the existing snapshot (the 1-file commit only)")
    parser.add_argument("--cli-runs", type=int, default=3,
                        help="CLI processes per question on a clean start (medians)")
    parser.add_argument("--commit-rounds", type=int, default=1,
                        help="1-file commits, each re-indexed and then asked in new processes")
    args = parser.parse_args(argv)
    root = corpus()
    report: dict[str, Any] = {"corpus": NAME, "cpus": os.cpu_count()}
    if not args.skip_full:
        subprocess.run(["rm", "-rf", str(root / ".spyglass")], check=True)
        report["full"] = timed_index(root)
        print(json.dumps(report["full"]), flush=True)
    report["store"] = store_stats(root)
    if not args.skip_refs:
        report["refs"] = refs(root, args.cli_runs)
        print(json.dumps(report["refs"]), flush=True)
    if not args.skip_commit:
        report["one_file_commit"] = one_file_commit(root, args.commit_rounds)
    if "full" in report and "one_file_commit" in report:
        report["one_file_commit"]["share_of_full"] = round(
            report["one_file_commit"]["seconds_median"] / report["full"]["seconds"], 4)
    print(json.dumps(report, indent=2))
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
