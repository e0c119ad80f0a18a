"""A developer's checkout answers from the team snapshot of its merge-base with its own
changes laid over it, never writing to the team store; the read-only role cannot write;
the store URL's password never appears in any output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from pgstore import RO_URL

from spyglass.config import Config
from spyglass.errors import SpyglassError
from spyglass.query.facade import CodeIntel

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "core.hooksPath=/dev/null"]
FILES = {
    "app/__init__.py": "",
    "app/core.py": "def helper(x):\n    return x\n\n\ndef used():\n    return helper(1)\n",
    "app/extra.py": "from app.core import helper\n\n\ndef also():\n    return helper(2)\n",
    "app/gone.py": "from app.core import helper\n\n\ndef old():\n    return helper(3)\n",
}
def _counts(url: str, repo: str, blobs: list[str]) -> dict[str, int]:
    """This repository's rows (snapshots, their files, jobs, events) and the rows of any
    unit parsed from the overlay's contents: one database holds every test's rows, and the
    other tests write theirs meanwhile (pytest -n 2)."""
    mine = "SELECT id FROM spyglass.snapshots WHERE repo = %(repo)s"
    units = "SELECT id FROM spyglass.units WHERE blob = ANY(%(blobs)s)"
    queries = {
        "snapshots": f"SELECT COUNT(*) FROM ({mine}) s",
        "snapshot_files": f"SELECT COUNT(*) FROM spyglass.snapshot_files WHERE snapshot IN ({mine})",
        "jobs": "SELECT COUNT(*) FROM spyglass.jobs WHERE repo = %(repo)s",
        "events": f"SELECT COUNT(*) FROM spyglass.events WHERE snapshot IN ({mine}) OR job IN "
                  "(SELECT id FROM spyglass.jobs WHERE repo = %(repo)s)",
        "units": f"SELECT COUNT(*) FROM ({units}) u",
        **{t: f"SELECT COUNT(*) FROM spyglass.{t} WHERE unit IN ({units})"
           for t in ("defs", "refs", "imports")},
    }
    with psycopg.connect(url, autocommit=True) as db:
        return {t: int(db.execute(q, {"repo": repo, "blobs": blobs}).fetchone()[0])  # type: ignore[index]
                for t, q in queries.items()}


def _blob(text: str) -> str:
    return subprocess.run(["git", "hash-object", "--stdin"], input=text, text=True,
                          capture_output=True, check=True).stdout.strip()


def _mirror(where: Path) -> Path:
    mirror = where / "mirror"
    for rel, text in FILES.items():
        (mirror / rel).parent.mkdir(parents=True, exist_ok=True)
        (mirror / rel).write_text(text)
    subprocess.run([*GIT, "init", "-q"], cwd=mirror, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=mirror, check=True)
    subprocess.run([*GIT, "commit", "-qm", "base"], cwd=mirror, check=True)
    return mirror


def _callers(ci: CodeIntel) -> set[tuple[str, int]]:
    return {(r.path, r.start_line) for r in ci.callers("app.core.helper").results}  # type: ignore[attr-defined]


def test_overlay_on_the_team_baseline(tmp_path: Path, pg_url: str, repo_id: str) -> None:
    mirror = _mirror(tmp_path)
    CodeIntel(mirror, config=Config(store_url=pg_url, store_repo=repo_id)).index()
    clone = tmp_path / "clone"
    subprocess.run([*GIT, "clone", "-q", str(mirror), str(clone)], check=True)
    dev = Config(store_url=RO_URL, store_repo=repo_id)
    assert _callers(CodeIntel(clone, config=dev)) == {
        ("app/core.py", 6), ("app/extra.py", 5), ("app/gone.py", 5)}
    overlay = {"app/committed.py": "from app.core import helper\n\n\ndef c():\n"
                                   "    return helper(4)\n",
               "app/staged.py": "from app.core import helper\nhelper(5)\n",
               "app/extra.py": "from app.core import helper\n\n\n\ndef also():\n"
                               "    return helper(2)\n",  # unstaged: a line down
               "app/new.py": "from app.core import helper\nhelper(6)\n"}  # untracked
    blobs = [_blob(text) for text in overlay.values()]
    before = _counts(pg_url, repo_id, blobs)
    assert before["snapshots"] == 1 and before["units"] == 0
    # committed but unpushed, staged, unstaged, untracked, deleted
    (clone / "app/committed.py").write_text(overlay["app/committed.py"])
    subprocess.run([*GIT, "add", "-A"], cwd=clone, check=True)
    subprocess.run([*GIT, "commit", "-qm", "local"], cwd=clone, check=True)
    (clone / "app/staged.py").write_text(overlay["app/staged.py"])
    subprocess.run([*GIT, "add", "app/staged.py"], cwd=clone, check=True)
    (clone / "app/extra.py").write_text(overlay["app/extra.py"])
    (clone / "app/new.py").write_text(overlay["app/new.py"])
    (clone / "app/gone.py").unlink()
    ci = CodeIntel(clone, config=dev)
    assert ci.team
    assert _callers(ci) == {("app/core.py", 6), ("app/extra.py", 6), ("app/committed.py", 5),
                            ("app/staged.py", 2), ("app/new.py", 2)}
    assert _counts(pg_url, repo_id, blobs) == before  # nothing written to the team store


def test_missing_team_snapshot_falls_back_to_the_local_index(tmp_path: Path, pg_url: str,
                                                            repo_id: str) -> None:
    mirror = _mirror(tmp_path)
    CodeIntel(mirror).index()  # a local index only
    ci = CodeIntel(mirror, config=Config(store_url=RO_URL, store_repo=repo_id))
    assert not ci.team
    assert ("app/core.py", 6) in _callers(ci)
    notes = ci.callers("app.core.helper").coverage.limitations
    assert any(f"no snapshot of {repo_id}" in n for n in notes), notes


def test_read_only_role_cannot_write(tmp_path: Path, pg_url: str, repo_id: str) -> None:
    CodeIntel(_mirror(tmp_path), config=Config(store_url=pg_url, store_repo=repo_id)).index()
    with psycopg.connect(RO_URL, autocommit=True) as db:
        for stmt in ("INSERT INTO spyglass.meta VALUES ('x', 'y')",
                     "DELETE FROM spyglass.units", "UPDATE spyglass.snapshots SET state='x'",
                     "DROP TABLE spyglass.refs", "CREATE TABLE spyglass.t(x int)"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                db.execute(stmt)
    run = subprocess.run([sys.executable, "-m", "spyglass", "-C", str(tmp_path / "mirror"),
                          "--store", RO_URL, "index"], capture_output=True, text=True, check=False)
    assert run.returncode == 1 and "read-only" in run.stderr


def test_the_password_never_appears(tmp_path: Path, pg_url: str, repo_id: str) -> None:
    mirror = _mirror(tmp_path)
    password = pg_url.split(":")[2].split("@")[0]
    config = tmp_path / "c.toml"
    config.write_text(f'[store]\nurl = "{pg_url}"\nrepo = "{repo_id}"\n')
    wrong = pg_url.replace(password, "canary-Pw-3f9e1")
    bad = tmp_path / "bad.toml"
    bad.write_text(f'[store]\nurl = "{wrong}"\nrepo = "{repo_id}"\n')
    log = tmp_path / "session.jsonl"
    outputs = []
    status: dict[str, object] = {}
    for cfg, secret in ((config, password), (bad, "canary-Pw-3f9e1")):
        for args in (["index"], ["status"], ["--json", "status"], ["refs", "helper"],
                     ["--json", "callers", "app.core.helper"], ["find", "nothing_here"],
                     ["enqueue", repo_id]):
            run = subprocess.run([sys.executable, "-m", "spyglass", "-C", str(mirror),
                                  "--config", str(cfg), *args], capture_output=True, text=True, check=False)
            outputs.append((secret, args, run.stdout + run.stderr))
            if cfg == config and args == ["--json", "status"]:
                assert run.stdout.startswith("{"), (run.stdout, run.stderr)
                status = json.loads(run.stdout)
        run = subprocess.run([sys.executable, "-m", "spyglass", "-C", str(mirror), "--store",
                              wrong, "status"], capture_output=True, text=True, check=False)
        outputs.append(("canary-Pw-3f9e1", ["--store"], run.stdout + run.stderr))
    assert any("***" in text for _, _, text in outputs)  # the URL is shown, redacted
    for secret, args, text in outputs:
        assert secret not in text, (args, text)
    if log.exists():
        assert password not in log.read_text()
    assert status["results"] is not None


def test_find_across_repositories(tmp_path: Path, pg_url: str, repo_id: str) -> None:
    ids = [f"{repo_id}-a", f"{repo_id}-b"]
    for i, rid in enumerate(ids):
        repo = _mirror(tmp_path / str(i))
        (repo / "app/only.py").write_text(f"class Only{i}:\n    pass\n")
        subprocess.run([*GIT, "add", "-A"], cwd=repo, check=True)
        subprocess.run([*GIT, "commit", "-qm", "only"], cwd=repo, check=True)
        CodeIntel(repo, config=Config(store_url=pg_url, store_repo=rid)).index()
    here = CodeIntel(tmp_path / "0" / "mirror", config=Config(store_url=RO_URL,
                                                             store_repo=ids[0]))
    found = here.find_symbol("helper", all_repos=True)
    repos = {r.repo for r in found.results}  # type: ignore[attr-defined]
    assert set(ids) <= repos
    only = {r.repo for r in here.find_symbol("Only1", all_repos=True).results}  # type: ignore[attr-defined]
    assert ids[1] in only and ids[0] not in only  # (the database holds other tests' rows)
    assert not here.find_symbol("helper").truncated
    with pytest.raises(SpyglassError):
        CodeIntel(tmp_path / "0" / "mirror").find_symbol("helper", all_repos=True)
