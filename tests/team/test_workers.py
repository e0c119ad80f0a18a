"""Workers index real repositories from the team store's queue; one killed mid-job loses
its lease and another finishes the job; nothing is torn or built twice."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg
import pytest

from spyglass.config import Config
from spyglass.query.facade import CodeIntel

CORPORA = Path(os.environ.get("SPYGLASS_CORPORA", Path.home() / ".cache/spyglass/corpora"))
# Ten small real projects of the registries (PyPI, npm, crates, Packagist, RubyGems, Debian)
# the bootstrap fetches for the accuracy and language tests.
NAMES = ("bats-1.8.2", "composer_semver-3.3.2", "semver_rs-1.0.14", "thor-1.2.1",
         "penlight-1.13.1", "tanstack-virtual-core-3.19.11", "requests-2.34.2", "httpx-0.28.1",
         "idna-3.20", "packaging-26.3")
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "core.hooksPath=/dev/null"]
DEADLINE = 900.0  # seconds for every job to finish (a bound, not a measured figure)


def _repo(src: Path, dest: Path) -> list[str]:
    """A git repository of a corpus, with a second commit: its two commit ids."""
    shutil.copytree(src, dest, symlinks=True)
    subprocess.run([*GIT, "init", "-q"], cwd=dest, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=dest, check=True)
    subprocess.run([*GIT, "commit", "-qm", "one"], cwd=dest, check=True)
    first = subprocess.run(["git", "rev-parse", "HEAD"], cwd=dest, check=True,
                           capture_output=True, text=True).stdout.strip()
    (dest / "team_second.py").write_text("def second_commit():\n    return 2\n")
    subprocess.run([*GIT, "add", "-A"], cwd=dest, check=True)
    subprocess.run([*GIT, "commit", "-qm", "two"], cwd=dest, check=True)
    second = subprocess.run(["git", "rev-parse", "HEAD"], cwd=dest, check=True,
                            capture_output=True, text=True).stdout.strip()
    return [first, second]


def _size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def _spyglass(*args: str, config: Path) -> list[str]:
    return [sys.executable, "-m", "spyglass", "--config", str(config), *args]


@pytest.mark.network
def test_three_workers_ten_repositories_one_killed(tmp_path: Path, pg_url: str) -> None:
    missing = [n for n in NAMES if not (CORPORA / n).is_dir()]
    if missing:
        pytest.skip(f"corpora not fetched (scripts/bootstrap.sh --corpora): {missing}")
    tag = uuid.uuid4().hex[:10]
    repos: dict[str, Path] = {}
    commits: dict[str, list[str]] = {}
    for name in NAMES:
        rid = f"workers-{tag}/{name}"
        repos[rid] = tmp_path / "mirrors" / name
        commits[rid] = _repo(CORPORA / name, repos[rid])
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\nurl = "{pg_url}"\n[team.repos]\n' + "".join(
        f'"{rid}" = "{path}"\n' for rid, path in repos.items()))
    for rid, shas in sorted(commits.items(), key=lambda kv: -_size(repos[kv[0]])):
        for sha in shas:
            subprocess.run(_spyglass("enqueue", rid, "--ref", sha, config=config), check=True,
                           capture_output=True)
    ids = tuple(repos)
    logs = [open(tmp_path / f"w{i}.log", "w") for i in range(3)]  # noqa: SIM115
    def launch(i: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen(_spyglass("worker", "--poll", "0.2", "--lease", "3",
                                          "--name", f"w{i}", config=config),
                                stdout=logs[i], stderr=subprocess.STDOUT, start_new_session=True)
    # w0 starts alone and takes the first job (the largest project), and is killed the
    # moment it holds it: mid-job by construction; then the other two start
    workers = [launch(0)]
    db = psycopg.connect(pg_url, autocommit=True)
    try:
        # kill -9 the first worker while it holds a job
        killed_job = None
        start = time.monotonic()
        while killed_job is None and time.monotonic() - start < DEADLINE:
            row = db.execute("SELECT id FROM spyglass.queue WHERE repo = ANY(%s) AND "
                             "state='running' AND worker='w0'", (list(ids),)).fetchone()
            if row:
                os.killpg(workers[0].pid, signal.SIGKILL)
                workers[0].wait()
                killed_job = row[0]
                workers += [launch(1), launch(2)]
            time.sleep(0.05)
        assert killed_job is not None, "worker w0 never took a job"
        # while the others index: two front ends (facades on connections of their own)
        # answer the same questions identically for every repository already indexed
        compared = 0
        while time.monotonic() - start < DEADLINE:
            states = [r[0] for r in db.execute(
                "SELECT state FROM spyglass.queue WHERE repo = ANY(%s)", (list(ids),))]
            if all(s in ("done", "failed") for s in states):
                break
            ready = [r[0] for r in db.execute(
                "SELECT DISTINCT repo FROM spyglass.snapshots WHERE repo = ANY(%s) AND "
                "state='completed' ORDER BY repo", (list(ids),))]
            for rid in ready[compared % max(len(ready), 1):][:1]:
                a, b = (CodeIntel(repos[rid], config=Config(store_url=pg_url, store_repo=rid))
                        for _ in range(2))
                name = a.find_symbol("*").results[0].symbol  # type: ignore[attr-defined]
                assert [(r.path, r.start_line) for r in a.references(name).results] == [  # type: ignore[attr-defined]
                    (r.path, r.start_line) for r in b.references(name).results]  # type: ignore[attr-defined]
                compared += 1
            time.sleep(0.2)
        assert compared > 0, "no question was asked while the workers indexed"
        rid = next(i for i in ids if i.endswith("requests-2.34.2"))
        rows = db.execute("SELECT id, repo, ref, state, attempts, worker, error FROM "
                          "spyglass.queue WHERE repo = ANY(%s)", (list(ids),)).fetchall()
        assert len(rows) == 20
        assert all(r[3] == "done" for r in rows), rows
        killed = next(r for r in rows if r[0] == killed_job)
        assert killed[4] >= 2 and killed[5] != "w0"  # taken again, finished by another
        # one completed snapshot per (repository, commit): none torn, none twice
        for repo_id, shas in commits.items():
            snaps = db.execute("SELECT commit_sha, state FROM spyglass.snapshots WHERE repo=%s",
                               (repo_id,)).fetchall()
            done = sorted(c for c, s in snaps if s == "completed")
            assert done == sorted(shas), (repo_id, snaps)
            assert all(s in ("completed", "failed") for _, s in snaps), snaps
        # every snapshot's files have their facts (nothing torn)
        torn = db.execute(
            "SELECT COUNT(*) FROM spyglass.snapshot_files f JOIN spyglass.snapshots s ON "
            "s.id = f.snapshot WHERE s.repo = ANY(%s) AND s.state='completed' AND f.unit IS "
            "NOT NULL AND NOT EXISTS (SELECT 1 FROM spyglass.units u WHERE u.id = f.unit)",
            (list(ids),)).fetchone()
        assert torn == (0,)
        # two front ends on separate connections give identical answers
        answers = []
        for _ in range(2):
            ci = CodeIntel(repos[rid], config=Config(store_url=pg_url, store_repo=rid))
            answers.append([(r.path, r.start_line) for r in ci.find_symbol("Session").results])
        assert answers[0] == answers[1] and answers[0]
    finally:
        for w in workers:
            if w.poll() is None:
                os.killpg(w.pid, signal.SIGTERM)
                try:
                    w.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(w.pid, signal.SIGKILL)
                    w.wait()
        for f in logs:
            f.close()
        db.close()
