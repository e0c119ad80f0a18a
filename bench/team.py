"""The team store beside the embedded one: Django indexed into PostgreSQL and SQLite (time,
size), refs/callers latency on both (warm, p50/p95), and the throughput of 1, 2 and 4
`spyglass worker`s over 20 real projects. Prints JSON, then a table.

    python bench/team.py [--skip-django] [--skip-workers] [--queries 30]

Needs the PostgreSQL of scripts/postgres.sh (run as root: Django and each worker run get a fresh
database, made with `su postgres -c createdb`) and the corpora of
`scripts/bootstrap.sh --corpora`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import psycopg

from spyglass.config import Config
from spyglass.index import postgres
from spyglass.query.facade import CodeIntel

CORPORA = Path(os.environ.get("SPYGLASS_CORPORA", Path.home() / ".cache/spyglass/corpora"))
URL = os.environ.get("SPYGLASS_TEST_PG_RW",
                     "postgresql://spyglass_rw:spyglass-test-rw@127.0.0.1/spyglass_test")
GIT = ["git", "-c", "user.name=b", "-c", "user.email=b@example.com", "-c",
       "core.hooksPath=/dev/null"]


def _git_copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, symlinks=True)
    if (dest / ".git").exists():  # a corpus kept as a git repository already
        return dest
    subprocess.run([*GIT, "init", "-q"], cwd=dest, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=dest, check=True)
    subprocess.run([*GIT, "commit", "-qm", "bench"], cwd=dest, check=True)
    return dest


def _load() -> float:
    return os.getloadavg()[0]


def _index(repo: Path, store: str | None) -> tuple[float, float]:
    """(wall s, CPU s of the process and its workers) of `spyglass index`."""
    args = [sys.executable, "-m", "spyglass", "-C", str(repo)]
    if store:
        args += ["--store", store]
    before = os.times()
    start = time.perf_counter()
    subprocess.run([*args, "index"], check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = os.times()
    return wall, (after.children_user - before.children_user
                  + after.children_system - before.children_system)


def _db_size(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as db:
        row = db.execute("SELECT pg_database_size(current_database())").fetchone()
    return int(row[0]) if row else 0


def _pcts(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50": round(statistics.median(ordered) * 1000, 1),
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000, 1)}


def _fresh_db() -> tuple[str, str]:
    """A new, empty database of the team store (its name, its URL): figures of its own."""
    db = f"spyglass_bench_{uuid.uuid4().hex[:8]}"
    create = f"createdb -O spyglass_rw -T template0 --lc-collate=C --lc-ctype=C {db}"
    subprocess.run(["su", "postgres", "-c", create], check=True)
    return db, URL.rsplit("/", 1)[0] + f"/{db}"


def django(queries: int) -> dict[str, object]:
    src = CORPORA / "Django-5.1"
    db, url = _fresh_db()
    try:
        return _django(src, url, queries)
    finally:
        subprocess.run(["su", "postgres", "-c", f"dropdb --force {db}"], check=True)


def _django(src: Path, url: str, queries: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        local = _git_copy(src, Path(tmp) / "local")
        team = Path(tmp) / "team"
        shutil.copytree(local, team, symlinks=True)
        repo_id = f"bench/{uuid.uuid4().hex[:8]}"
        size0 = _db_size(url)
        load0 = _load()
        pg_wall, pg_cpu = _index_team(team, url, repo_id)
        sq_wall, sq_cpu = _index(local, None)
        pg_size = _db_size(url) - size0
        sq_size = sum(p.stat().st_size for p in (local / ".spyglass").glob("graph.db*"))
        sqlite_ci = CodeIntel(local)
        pg_ci = CodeIntel(team, config=Config(store_url=url, store_repo=repo_id))
        # the same store read without the session's memo of view queries (index/postgres.py)
        bare_ci = CodeIntel(team, config=Config(store_url=url, store_repo=repo_id))
        names = _names(sqlite_ci, queries)
        backends = (("sqlite", sqlite_ci), ("postgresql", pg_ci), ("postgresql_no_memo", bare_ci))
        lat: dict[str, dict[str, list[float]]] = {
            b: {"refs": [], "callers": []} for b, _ in backends}
        memo_rows = postgres.MEMO_ENTRY_ROWS
        for backend, ci in backends:  # warm all
            postgres.MEMO_ENTRY_ROWS = -1 if backend.endswith("no_memo") else memo_rows
            ci.references(names[0])
        for name in names:  # interleaved: the same load on each
            for backend, ci in backends:
                postgres.MEMO_ENTRY_ROWS = -1 if backend.endswith("no_memo") else memo_rows
                for tool in ("refs", "callers"):
                    start = time.perf_counter()
                    (ci.references if tool == "refs" else ci.callers)(name)
                    lat[backend][tool].append(time.perf_counter() - start)
        postgres.MEMO_ENTRY_ROWS = memo_rows
        same = all({(r.path, r.start_line) for r in sqlite_ci.references(n).results}  # type: ignore[attr-defined]
                   == {(r.path, r.start_line) for r in pg_ci.references(n).results}  # type: ignore[attr-defined]
                   for n in names[:10])
        return {
            "index_wall_s": {"sqlite": round(sq_wall, 1), "postgresql": round(pg_wall, 1)},
            "index_cpu_s": {"sqlite": round(sq_cpu, 1), "postgresql": round(pg_cpu, 1)},
            "size_mb": {"sqlite": round(sq_size / 1e6, 1), "postgresql": round(pg_size / 1e6, 1)},
            "latency_ms": {b: {t: _pcts(v) for t, v in d.items()} for b, d in lat.items()},
            "queries": len(names), "same_answers_first_10": same,
            "load": [round(load0, 2), round(_load(), 2)],
        }


def _index_team(repo: Path, url: str, repo_id: str) -> tuple[float, float]:
    cfg = repo.parent / "team.toml"
    cfg.write_text(f'[store]\nurl = "{url}"\nrepo = "{repo_id}"\n')
    before = os.times()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "spyglass", "-C", str(repo), "--config", str(cfg),
                    "index"], check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = os.times()
    return wall, (after.children_user - before.children_user
                  + after.children_system - before.children_system)


def _names(ci: CodeIntel, n: int) -> list[str]:
    """`n` qualified function/method names of the snapshot, drawn with a fixed seed."""
    view = ci.view()
    rows = view.each("SELECT d.qualname FROM {defs} d JOIN temp.vfiles f ON f.unit = d.unit "
                     "WHERE d.kind IN ('function', 'method') ORDER BY f.path, d.idx")
    ci._end_read()
    quals = sorted({str(r[0]) for r in rows})
    return random.Random(7).sample(quals, min(n, len(quals)))


def workers(counts: tuple[int, ...]) -> dict[str, object]:
    names = sorted((p for p in CORPORA.iterdir() if p.is_dir() and p.name != "Django-5.1"),
                   key=lambda p: sum(f.stat().st_size for f in p.rglob("*") if f.is_file()))[:20]
    out: dict[str, object] = {"projects": [p.name for p in names]}
    with tempfile.TemporaryDirectory() as tmp:
        mirrors = {f"bench/{p.name}": _git_copy(p, Path(tmp) / "m" / p.name) for p in names}
        for count in counts:
            db, url = _fresh_db()
            cfg = Path(tmp) / f"w{count}.toml"
            cfg.write_text(f'[store]\nurl = "{url}"\n[team.repos]\n' + "".join(
                f'"{k}" = "{v}"\n' for k, v in mirrors.items()))
            base = [sys.executable, "-m", "spyglass", "--config", str(cfg)]
            for repo in mirrors:
                subprocess.run([*base, "enqueue", repo], check=True, capture_output=True)
            load0 = _load()
            start = time.perf_counter()
            procs = [subprocess.Popen([*base, "worker", "--once", "--poll", "0.2"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                     for _ in range(count)]
            for p in procs:
                p.wait()
            wall = time.perf_counter() - start
            out[f"{count}_workers"] = {"wall_s": round(wall, 1),
                                       "jobs_per_min": round(20 / wall * 60, 1),
                                       "load": [round(load0, 2), round(_load(), 2)]}
            subprocess.run(["su", "postgres", "-c", f"dropdb --force {db}"], check=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-django", action="store_true")
    parser.add_argument("--skip-workers", action="store_true")
    parser.add_argument("--queries", type=int, default=30)
    args = parser.parse_args()
    result: dict[str, object] = {"cpus": os.cpu_count()}
    if not args.skip_django:
        result["django"] = django(args.queries)
    if not args.skip_workers:
        result["workers"] = workers((1, 2, 4))
    print(json.dumps(result, indent=2))
    if "django" in result:
        d = result["django"]
        assert isinstance(d, dict)
        print(f"\n{'':24}{'SQLite':>12}{'PostgreSQL':>12}{'ratio':>8}")
        for label, key in (("index wall s", "index_wall_s"), ("index CPU s", "index_cpu_s"),
                           ("size MB", "size_mb")):
            a, b = d[key]["sqlite"], d[key]["postgresql"]
            print(f"{label:24}{a:>12}{b:>12}{b / a if a else 0:>8.2f}")
        print(f"\n{'':24}{'SQLite':>12}{'PostgreSQL':>12}{'ratio':>8}{'no memo':>12}{'ratio':>8}")
        for tool in ("refs", "callers"):
            for p in ("p50", "p95"):
                a = d["latency_ms"]["sqlite"][tool][p]
                b = d["latency_ms"]["postgresql"][tool][p]
                c = d["latency_ms"]["postgresql_no_memo"][tool][p]
                print(f"{tool + ' ' + p + ' ms':24}{a:>12}{b:>12}{b / a if a else 0:>8.2f}"
                      f"{c:>12}{c / a if a else 0:>8.2f}")
    if "workers" in result:
        w = result["workers"]
        assert isinstance(w, dict)
        for count in (1, 2, 4):
            row = w.get(f"{count}_workers")
            if isinstance(row, dict):
                print(f"{count} worker(s): {row['wall_s']} s for 20 projects, "
                      f"{row['jobs_per_min']} jobs/min (load {row['load']})")


if __name__ == "__main__":
    main()
