"""Latency of every fixture's queries (references, callers, blast radius, tests, explore); the slowest first.

    python bench/fixture_latency.py                 # every fixture, JSON then a table
    python bench/fixture_latency.py -k closure      # fixtures whose path holds 'closure'

Each fixture is written to a fresh repository and indexed once; each query of its cursor
(or, without one, of its first definition) is run `--runs` times and the median kept.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "tests"))

from fixture import parse_fixture

from spyglass.errors import SpyglassError
from spyglass.query.facade import CodeIntel

FIXTURES = REPO_ROOT / "tests" / "fixtures"
TARGET_MS = 100.0


def _queries(ci: CodeIntel, cursor: tuple[str, int, int] | None
             ) -> dict[str, Callable[[], object]]:
    if cursor is None:
        first = next((r for p in sorted({*_paths(ci)}) for r in ci.structure(p).results), None)
        if first is None:
            return {}
        cursor = (first.path, first.start_line, 0)  # type: ignore[attr-defined]
    path, line, col = cursor
    at = {"path": path, "line": line, "column": col or None}
    name = f"{path}:{line}"
    return {
        "references": lambda: ci.references(**at),  # type: ignore[arg-type]
        "callers": lambda: ci.callers(**at),  # type: ignore[arg-type]
        "blast_radius": lambda: ci.blast_radius([name], depth=3),
        "suggest_tests": lambda: ci.suggest_tests([name], depth=3),
        "explore": lambda: ci.explore(Path(path).stem, budget=2000),
    }


def _paths(ci: CodeIntel) -> list[str]:
    return [f.path for f in ci.view().disk_files() if f.skipped is None]


def measure(fixture: Path, runs: int) -> list[dict[str, object]]:
    fx = parse_fixture(fixture.read_text(encoding="utf-8"))
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        fx.write(root)
        ci = CodeIntel(root)
        ci.index()
        for query, run in _queries(ci, fx.cursor).items():
            times: list[float] = []
            error = ""
            for _ in range(runs):
                start = time.perf_counter()
                try:
                    run()
                except SpyglassError as exc:  # a fixture without a symbol at its cursor
                    error = str(exc)
                times.append((time.perf_counter() - start) * 1000)
            rows.append({"fixture": str(fixture.relative_to(FIXTURES)), "query": query,
                         "median_ms": round(statistics.median(times), 2),
                         "max_ms": round(max(times), 2), "error": error})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="only fixtures whose path holds this text")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--top", type=int, default=15, help="rows in the table")
    args = parser.parse_args(argv)
    fixtures = [p for p in sorted(FIXTURES.rglob("*.fixture"))
                if args.k in str(p.relative_to(FIXTURES))]
    rows: list[dict[str, object]] = []
    started = time.perf_counter()
    for fixture in fixtures:
        rows += measure(fixture, args.runs)
    rows.sort(key=lambda r: -float(str(r["median_ms"])))
    over = [r for r in rows if float(str(r["median_ms"])) > TARGET_MS]
    summary = {"fixtures": len(fixtures), "queries": len(rows),
               "slowest": rows[0] if rows else None, "over_target": len(over),
               "target_ms": TARGET_MS, "wall_s": round(time.perf_counter() - started, 1),
               "rows": rows}
    print(json.dumps(summary, indent=1))
    print(f"\n{'fixture':<50} {'query':<14} {'median ms':>10} {'max ms':>9}")
    for r in rows[:args.top]:
        print(f"{r['fixture']!s:<50} {r['query']!s:<14} {r['median_ms']:>10} "
              f"{r['max_ms']:>9}")
    print(f"\n{len(fixtures)} fixtures, {len(rows)} queries; slowest "
          f"{rows[0]['median_ms'] if rows else 0} ms; {len(over)} over {TARGET_MS:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
