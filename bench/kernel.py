"""Benchmark spyglass on the Linux kernel (Debian linux-source 6.1): full index, refs, 1-file commit.

The tarball comes from `apt-get install linux-source` (scripts/bootstrap.sh --kernel);
it is unpacked once into the corpus cache and made a git repository of one commit.
Measured: a full `spyglass index` into a fresh store (wall time, peak RSS of the whole
process tree sampled every 0.5 s), what was skipped and why, `refs` to kmalloc, printk and
`struct file` (in-process median of three after one warm-up, and one CLI run each), and a
re-index after a commit changing one file (time as a share of the full index). The machine's
load average is recorded before and after each step (the machine is shared).

    .venv/bin/python bench/kernel.py [--json-out docs/kernel.json] [--skip-full] [--skip-commit]
"""

from __future__ import annotations

import argparse
import json
import os
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


def refs(root: Path) -> dict[str, Any]:
    """`refs` to kmalloc, printk and struct file: in-process and CLI wall times."""
    from spyglass.query.facade import CodeIntel
    line, col = _line_of(root, "include/linux/fs.h", "struct file {", "file")
    asks: dict[str, dict[str, Any]] = {
        "kmalloc": {"name": "kmalloc"}, "printk": {"name": "printk"},
        "struct file": {"path": "include/linux/fs.h", "line": line, "column": col}}
    out: dict[str, Any] = {"load_before": load()}
    for label, kwargs in asks.items():
        ci = CodeIntel(root)
        times: list[float] = []
        result = None
        for _ in range(4):
            t = time.monotonic()
            result = ci.references(lsp_budget_ms=0, **kwargs)
            times.append(time.monotonic() - t)
        assert result is not None
        cli = [*SPYGLASS, "-C", str(root), "refs", "--lsp-budget-ms", "0", "--json"]
        cli += ["--at", f"{kwargs['path']}:{line}:{col}"] if "path" in kwargs else [kwargs["name"]]
        t = time.monotonic()
        proc = subprocess.run(cli, capture_output=True, text=True, check=False)
        cli_s = time.monotonic() - t
        out[label] = {"results": len(result.results),  # type: ignore[attr-defined]
                      "truncated": bool(getattr(result, "truncated", False)),
                      "seconds_median": round(statistics.median(times[1:]), 3),
                      "seconds_first": round(times[0], 3), "cli_seconds": round(cli_s, 2),
                      "cli_rc": proc.returncode}
    out["load_after"] = load()
    return out


def one_file_commit(root: Path) -> dict[str, Any]:
    """Commit a change to one file on a side branch, re-index, then return to main."""
    git = ["git", "-C", str(root), "-c", "user.name=bench", "-c", "user.email=b@b.invalid",
           "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "checkout", "-q", "-B", BRANCH, "main"], check=True)
    path = root / CHANGED_FILE
    original = path.read_bytes()
    try:
        path.write_bytes(original + b"\nint bench_one_file_marker(void)\n{\n\treturn 0;\n}\n")
        subprocess.run([*git, "commit", "-q", "-am", "one-file change"], check=True)
        result = timed_index(root)
    finally:
        subprocess.run([*git, "checkout", "-q", "-f", "main"], check=True)
        subprocess.run([*git, "branch", "-q", "-D", BRANCH], check=True)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--skip-full", action="store_true",
                        help="keep the existing store (refs and the 1-file commit only)")
    parser.add_argument("--skip-commit", action="store_true",
                        help="no 1-file commit re-index (refs only)")
    args = parser.parse_args(argv)
    root = corpus()
    report: dict[str, Any] = {"corpus": NAME, "cpus": os.cpu_count()}
    if not args.skip_full:
        subprocess.run(["rm", "-rf", str(root / ".spyglass")], check=True)
        report["full"] = timed_index(root)
        print(json.dumps(report["full"]), flush=True)
    report["store"] = store_stats(root)
    report["refs"] = refs(root)
    print(json.dumps(report["refs"]), flush=True)
    if not args.skip_commit:
        report["one_file_commit"] = one_file_commit(root)
    if "full" in report and "one_file_commit" in report:
        report["one_file_commit"]["share_of_full"] = round(
            report["one_file_commit"]["seconds"] / report["full"]["seconds"], 4)
    print(json.dumps(report, indent=2))
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
