"""Benchmark a full `spyglass index` against bare tree-sitter parsing and Universal Ctags on a real corpus."""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from machine import cpu_model  # bench/ is on sys.path when a benchmark runs

REPO_ROOT = Path(__file__).resolve().parent.parent
FETCH_SCRIPT = REPO_ROOT / "scripts" / "fetch_corpus.py"
SKIP_DIRS = frozenset({
    ".git", ".spyglass", ".hg", ".svn", "node_modules", "target", "dist", "build", ".venv", "venv",
    ".next", ".turbo", "vendor", "generated", "__pycache__", ".tox", ".nox", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".eggs",
})


@dataclass
class Row:
    """One measured tool: sizes from the last successful run, seconds of every run, or an error."""

    name: str
    files: int | None = None
    lines: int | None = None
    seconds: list[float] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @property
    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.seconds else None

    def to_json(self) -> dict[str, Any]:
        median = self.median
        return {
            "files": self.files,
            "lines": self.lines,
            "seconds": None if median is None else round(median, 4),
            "runs": [round(s, 4) for s in self.seconds],
            **self.extra,
            "error": self.error,
        }


def load_fetch() -> tuple[Callable[..., Path], Callable[[Path], None]]:
    """Import scripts/fetch_corpus.py by path; return its fetch() and make_git_repo() functions."""
    spec = importlib.util.spec_from_file_location("fetch_corpus", FETCH_SCRIPT)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {FETCH_SCRIPT}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["fetch_corpus"] = module
    spec.loader.exec_module(module)
    fetch: Callable[..., Path] = module.fetch
    make_git_repo: Callable[[Path], None] = module.make_git_repo
    return fetch, make_git_repo


def python_files(root: Path) -> Iterator[Path]:
    """Every .py file under root, skipping vendor, build and cache directories, in a stable order."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            if name.endswith(".py"):
                yield Path(dirpath, name)


def count_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def bare_parse(root: Path, row: Row) -> None:
    """(a) Read and parse every .py file with py-tree-sitter in this process."""
    try:
        import tree_sitter
        import tree_sitter_python
    except ImportError as exc:
        row.error = f"tree-sitter not importable: {exc}"
        return
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language()))
    files = lines = size = with_errors = 0
    start = time.perf_counter()
    for path in python_files(root):
        data = path.read_bytes()
        tree = parser.parse(data)
        files += 1
        lines += count_lines(data)
        size += len(data)
        with_errors += tree.root_node.has_error
    row.seconds.append(time.perf_counter() - start)
    row.files, row.lines = files, lines
    row.extra.update(bytes=size, files_with_syntax_errors=with_errors)


def ctags(root: Path, row: Row) -> None:
    """(b) Universal Ctags over the same tree, Python files only, the same directories skipped."""
    exe = shutil.which("ctags")
    if exe is None:
        row.error = "ctags not found on PATH"
        return
    with tempfile.TemporaryDirectory(prefix="spyglass-bench-ctags-") as tmp:
        tags = Path(tmp) / "tags"
        cmd = [exe, "-R", "--languages=Python", "--langmap=Python:.py", "--totals=yes",
               *(f"--exclude={d}" for d in sorted(SKIP_DIRS)), "-o", str(tags), str(root)]
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            row.error = f"ctags exited {proc.returncode}: {tail(proc.stderr)}"
            return
        with tags.open("rb") as fh:
            row.extra["tags"] = sum(1 for line in fh if not line.startswith(b"!_TAG_"))
    row.seconds.append(elapsed)
    totals = re.search(r"(\d+) files?, (\d+) lines?", proc.stdout + proc.stderr)
    if totals:
        row.files, row.lines = int(totals.group(1)), int(totals.group(2))


def tail(text: str, n: int = 3) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-n:]) or "(no output)"


def scalars(obj: Any, depth: int = 2) -> Any:
    """Keep the small, scalar part of a JSON result (counts, commit, versions) for the report."""
    if isinstance(obj, dict):
        if depth == 0:
            return None
        out = {k: scalars(v, depth - 1) for k, v in obj.items() if not isinstance(v, list)}
        return {k: v for k, v in out.items() if v is not None and v != {}}
    return obj if isinstance(obj, (str, int, float, bool)) else None


def spyglass_index(template: Path, workdir: Path, run: int, timeout: float, row: Row,
                   src: Path = REPO_ROOT / "src") -> None:
    """(c) A full `spyglass index` of a fresh copy of the corpus (git repository, no .spyglass/),
    with the spyglass source tree `src` (this checkout's, or a baseline's)."""
    copy = workdir / f"run-{run}"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(src), env.get("PYTHONPATH")) if p)
    cmd = [sys.executable, "-m", "spyglass", "-C", str(copy), "index", "--json"]
    try:
        shutil.copytree(template, copy, symlinks=True)
        shutil.rmtree(copy / ".spyglass", ignore_errors=True)
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False,
                              env=env, timeout=timeout)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            row.error = f"run {run + 1}: exit {proc.returncode}: {tail(proc.stderr or proc.stdout)}"
            return
        row.seconds.append(elapsed)
        store = copy / ".spyglass"
        if store.is_dir():
            row.extra["store_bytes"] = sum(p.stat().st_size for p in store.rglob("*") if p.is_file())
        try:
            row.extra["result"] = scalars(json.loads(proc.stdout))
        except json.JSONDecodeError:
            row.extra["result"] = "not JSON: " + tail(proc.stdout, 1)[:200]
    except subprocess.TimeoutExpired:
        row.error = f"run {run + 1}: timed out after {timeout:.0f}s"
    except OSError as exc:
        row.error = f"run {run + 1}: cannot prepare the copy: {str(exc)[:300]}"
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def machine_info() -> dict[str, Any]:
    cpu = cpu_model()
    versions: dict[str, str | None] = {}
    for dist in ("tree-sitter", "tree-sitter-python", "spyglass"):
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[dist] = None
    ctags_exe = shutil.which("ctags")
    ctags_version = None
    if ctags_exe:
        out = subprocess.run([ctags_exe, "--version"], stdout=subprocess.PIPE, text=True,
                             check=False).stdout
        ctags_version = out.splitlines()[0] if out else None
    commit = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            check=False).stdout.strip()
    return {
        "nproc": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "packages": versions,
        "ctags": ctags_version,
        "spyglass_commit": commit or None,
    }


def ratio(a: Row, b: Row) -> float | None:
    if a.median is None or not b.median:
        return None
    return round(a.median / b.median, 2)


def print_table(report: dict[str, Any], rows: list[Row]) -> None:
    title = f"{report['corpus']['name']} - median of {report['runs']} run(s)"
    header = ["measure", "files", "lines", "seconds", "x parse", "note"]
    parse = rows[0]
    body = [[r.name, f"{r.files:,}" if r.files is not None else "-",
             f"{r.lines:,}" if r.lines is not None else "-",
             f"{r.median:.3f}" if r.median is not None else "-",
             f"{ratio(r, parse):.2f}" if ratio(r, parse) is not None else "-",
             r.error or ""] for r in rows]
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        widths = [max(len(str(x)) for x in col) for col in zip(header, *body)]
        print(title)
        for line in [header, *body]:
            print("  ".join(str(x).ljust(w) for x, w in zip(line, widths)).rstrip())
        return
    table = Table(title=title)
    for i, name in enumerate(header):
        table.add_column(name, justify="right" if 0 < i < 5 else "left", no_wrap=i < 5, overflow="fold")
    for line in body:
        table.add_row(*line)
    Console().print(table)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", default="django", help="corpus name from scripts/fetch_corpus.py")
    ap.add_argument("--runs", type=int, default=3, help="runs per measure; the median is reported")
    ap.add_argument("--dest", type=Path, default=None, help="corpora cache (default: fetch_corpus default)")
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds allowed per spyglass index run")
    ap.add_argument("--json-only", action="store_true", help="print only the JSON report")
    ap.add_argument("--baseline-src", type=Path, default=None,
                    help="another spyglass src/ folder (e.g. a worktree of an older commit) "
                         "measured in the same runs, for a before/after ratio")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be at least 1")

    fetch, make_git_repo = load_fetch()
    try:
        root = fetch(args.corpus, args.dest)
    except Exception as exc:  # noqa: BLE001 - the fetch script's errors are reported
        print(f"bench: cannot fetch corpus {args.corpus!r}: {exc}", file=sys.stderr)
        return 1
    parse, tags, index = Row("tree-sitter parse"), Row("ctags"), Row("spyglass index")
    baseline = Row("spyglass index (baseline)")
    with tempfile.TemporaryDirectory(prefix="spyglass-bench-") as tmp:
        template = Path(tmp) / "template" / root.name
        try:
            shutil.copytree(root, template, symlinks=True)
            make_git_repo(template)  # spyglass indexes from git objects
        except Exception as exc:  # noqa: BLE001 - reported in the index row; others still run
            index.error = f"cannot make a git copy of the corpus: {str(exc)[:300]}"
        for run in range(args.runs):
            if not args.json_only:
                print(f"run {run + 1}/{args.runs} ...", file=sys.stderr)
            bare_parse(root, parse)
            ctags(root, tags)
            if index.error is None or index.seconds:
                spyglass_index(template, Path(tmp), run, args.timeout, index)
            if args.baseline_src and (baseline.error is None or baseline.seconds):
                spyglass_index(template, Path(tmp), run, args.timeout, baseline,
                               args.baseline_src.resolve())

    report: dict[str, Any] = {
        "corpus": {"name": args.corpus, "path": str(root)},
        "runs": args.runs,
        "machine": machine_info(),
        "bare_parse": parse.to_json(),
        "ctags": tags.to_json(),
        "spyglass_index": index.to_json(),
        "ratios": {"index_over_bare_parse": ratio(index, parse), "ctags_over_bare_parse": ratio(tags, parse)},
    }
    rows = [parse, tags, index]
    if args.baseline_src:
        report["baseline"] = {"src": str(args.baseline_src), **baseline.to_json()}
        report["ratios"]["baseline_over_bare_parse"] = ratio(baseline, parse)
        report["ratios"]["index_over_baseline"] = ratio(index, baseline)
        rows.append(baseline)
    print(json.dumps(report, indent=2))
    if not args.json_only:
        print_table(report, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
