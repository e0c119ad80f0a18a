"""Hostile `.spyglass/` folders: a repository beside an `outside` folder (the canary, whose
checksum must never change), the surfaces that write the store (CLI `index`, MCP
`code_status {index}`, HTTP `POST index`), and the generator of the `.spyglass/` fuzz
(tests/security/test_store_fuzz.py, bench/store_fuzz.py)."""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import surfaces as sf
from starlette.testclient import TestClient

from spyglass.errors import SpyglassError
from spyglass.query.facade import CodeIntel
from spyglass.web.app import create_app

FILES = {
    "a.py": "def helper(x):\n    return x + 1\n",
    "b.py": "from a import helper\n\n\ndef run():\n    return helper(2)\n",
}
STORE = ".spyglass"
HANG_SECONDS = 10
SLOW_SECONDS = 3.0  # a case this slow is listed (not failed): it should take ~0.1 s


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def make_outside(base: Path) -> Path:
    """`base/outside`: a victim text file, a folder and another application's SQLite
    database — what a link in `.spyglass/` points at."""
    out = base / "outside"
    (out / "dir").mkdir(parents=True)
    (out / "victim.txt").write_text("the user's file\n")
    (out / "dir" / "keep.txt").write_text("kept\n")
    conn = sqlite3.connect(out / "other.db")
    conn.execute("CREATE TABLE app(x)")
    conn.execute("INSERT INTO app VALUES(1)")
    conn.commit()
    conn.close()
    return out


def make_repo(base: Path, name: str = "repo", git_repo: bool = True) -> Path:
    root = base / name
    root.mkdir(parents=True)
    for path, text in FILES.items():
        (root / path).write_text(text)
    if git_repo:
        for args in (("init", "-q", "-b", "main"), ("add", "-A"), ("commit", "-qm", "init")):
            git(root, *args)
    return root


def checksum(folder: Path) -> str:
    """Every entry under `folder` (and the folder itself): kind, mode, content or link."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in sorted([*dirnames, *filenames]):
            full = Path(dirpath) / name
            st = full.lstat()
            h.update(f"{full.relative_to(folder)}\0{stat.S_IFMT(st.st_mode)}\0"
                     f"{st.st_mode & 0o7777}\0".encode())
            if stat.S_ISLNK(st.st_mode):
                h.update(os.readlink(full).encode())
            elif stat.S_ISREG(st.st_mode):
                h.update(full.read_bytes())
    return h.hexdigest()


def commit_store(root: Path) -> None:
    """Commit `.spyglass/` as a hostile repository would (forced past its .gitignore)."""
    git(root, "add", "-f", STORE)
    git(root, "commit", "-qm", "store", "--allow-empty")


# -- the surfaces that write the store ---------------------------------------------------------
@dataclass
class Run:
    """One index run: did it complete, what it said, did it crash."""

    completed: bool
    text: str
    traceback: bool


def via_cli(root: Path) -> Run:
    out = sf.cli(root, ["index"])
    return Run(out.code == 0 and "indexed" in out.text, out.text, out.traceback)


def via_mcp(root: Path) -> Run:
    [out] = sf.mcp_many(root, [("code_status", {"index": True})])
    return Run(out.code == "ok" and '"job_state": "completed"' in out.text, out.text,
               out.traceback)


def via_http(root: Path) -> Run:
    try:
        ci = CodeIntel(root)
    except SpyglassError as exc:  # the HTTP server could not start on this root
        return Run(False, str(exc), False)
    with TestClient(create_app(ci), base_url=sf.ORIGIN, raise_server_exceptions=False) as client:
        repo = client.app.state.web.repo_id  # type: ignore[attr-defined]
        base = f"/api/v1/code/repos/{repo}"
        r = client.post(f"{base}/index", headers={"Origin": sf.ORIGIN})
        job: dict[str, Any] = {}
        if r.status_code == 202:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                job = client.get(f"{base}/jobs/{r.json()['job_id']}").json()["job"]
                if job["done"]:
                    break
                time.sleep(0.05)
            client.app.state.web.jobs.thread.join(10)  # type: ignore[attr-defined]
        text = r.text + str(job)
        return Run(job.get("state") == "completed", text,
                   "Traceback" in text or r.status_code >= 500)


SURFACES: dict[str, Callable[[Path], Run]] = {"cli": via_cli, "mcp": via_mcp, "http": via_http}


def finds_helper(root: Path) -> bool:
    out = sf.cli(root, ["find", "helper"])
    return out.code == 0 and "a.py:1" in out.text


# -- the fuzz -----------------------------------------------------------------------------------
NAMES = ("graph.db", "graph.db-wal", "graph.db-shm", "graph.db-journal", "index.lock",
         ".gitignore", "view-state.json", "view-state.marshal", "graph.db.rejected", "build-1",
         "graph.db.new", "graph.db.new-wal")
KINDS = ("link-outside-file", "link-outside-dir", "link-outside-db", "link-dangling",
         "link-inside", "link-dev-zero", "link-loop", "fifo", "garbage", "truncated-db",
         "foreign-db", "copied-store-db", "empty", "folder", "hardlink-outside")
TOP = ("dir", "dir", "dir", "dir", "dir", "dir", "dir", "link-outside-dir", "link-dangling",
       "garbage", "fifo")
ENTRY_POINTS = ("index", "index", "index", "find", "status", "refs", "index-then-find")


@dataclass
class Case:
    """One `.spyglass/` layout and the entry point run on it."""

    number: int
    top: str
    entries: tuple[tuple[str, str], ...]
    entry: str

    def describe(self) -> str:
        inner = ", ".join(f"{n}={k}" for n, k in self.entries)
        return f"#{self.number} .spyglass={self.top} [{inner}] -> {self.entry}"


def cases(count: int, seed: int = 24) -> Iterator[Case]:
    rnd = random.Random(seed)
    for i in range(count):
        top = TOP[i % len(TOP)] if i < len(TOP) else rnd.choice(TOP)
        n = rnd.randint(1, 4)
        entries = tuple((rnd.choice(NAMES), rnd.choice(KINDS)) for _ in range(n))
        yield Case(i, top, entries, ENTRY_POINTS[i % len(ENTRY_POINTS)])


def populate(root: Path, outside: Path, case: Case, template: bytes, copied: bytes,
             rnd: random.Random) -> None:
    """Lay `case` out as `root/.spyglass` (whatever was there is removed first)."""
    store = root / STORE
    if store.is_symlink() or store.is_file() or stat.S_ISFIFO(_mode(store)):
        store.unlink()
    elif store.exists():
        shutil.rmtree(store)
    if case.top != "dir":
        _make(store, case.top, outside, root, template, copied, rnd, case.number)
        return
    store.mkdir()
    for name, kind in case.entries:
        target = store / name
        if target.exists() or target.is_symlink():
            continue
        _make(target, kind, outside, root, template, copied, rnd, case.number)


def _mode(path: Path) -> int:
    try:
        return path.lstat().st_mode
    except OSError:
        return 0


def _make(target: Path, kind: str, outside: Path, root: Path, template: bytes, copied: bytes,
          rnd: random.Random, number: int) -> None:
    if kind == "link-outside-file":
        os.symlink(outside / "victim.txt", target)
    elif kind == "link-outside-dir":
        os.symlink(outside / "dir", target)
    elif kind == "link-outside-db":
        os.symlink(outside / "other.db", target)
    elif kind == "link-dangling":
        os.symlink(outside / f"created-{number}", target)
    elif kind == "link-inside":
        os.symlink(root / "a.py", target)
    elif kind == "link-dev-zero":
        os.symlink("/dev/zero", target)
    elif kind == "link-loop":
        os.symlink(target.name, target)
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "garbage":
        target.write_bytes(rnd.randbytes(rnd.randint(1, 9000)))
    elif kind == "truncated-db":
        target.write_bytes(template[:rnd.randint(0, len(template))])
    elif kind == "foreign-db":
        target.write_bytes((outside / "other.db").read_bytes())
    elif kind == "copied-store-db":
        target.write_bytes(copied)
    elif kind == "empty":
        target.write_bytes(b"")
    elif kind == "folder":
        (target / "x").mkdir(parents=True)
    elif kind == "hardlink-outside":
        try:
            os.link(outside / "victim.txt", target)
        except OSError:  # another file system: a plain copy instead
            target.write_bytes(b"victim")
    else:
        raise ValueError(kind)


class Hang(BaseException):  # not an Exception: no `except Exception` may swallow it
    """An entry point ran past HANG_SECONDS."""


@contextmanager
def watchdog(seconds: int) -> Iterator[None]:
    def fire(signum: int, frame: object) -> None:
        raise Hang(f"still running after {seconds} s")
    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def run_entry(root: Path, entry: str) -> str:
    """Run one in-process entry point; returns 'ok' or 'refused' (a SpyglassError)."""
    try:
        ci = CodeIntel(root)
        if entry in ("index", "index-then-find"):
            ci.index(wait=False)
            if entry == "index-then-find" and "a.py" not in repr(ci.find_symbol("helper")):
                return "wrong"
        elif entry == "find":
            ci.find_symbol("helper")
        elif entry == "refs":
            ci.references("helper")
        else:
            ci.status()
    except SpyglassError:
        return "refused"
    return "ok"


def fuzz(base: Path, count: int, subprocess_every: int = 50, seed: int = 24,
         log: Callable[[str], None] | None = None, git_every: int = 1) -> dict[str, Any]:
    """Run `count` hostile `.spyglass/` cases; every `subprocess_every`-th also through the
    CLI in a child process. Returns the figures (counts and the failing cases)."""
    outside = make_outside(base)
    git_root = make_repo(base, "repo")
    plain_root = make_repo(base, "plain", git_repo=False)
    template_repo = make_repo(base, "template")
    CodeIntel(template_repo).index()
    template = (template_repo / STORE / "graph.db").read_bytes()
    copied = template
    before = checksum(outside)
    rnd = random.Random(seed)
    counts: Counter[str] = Counter()
    bad: list[str] = []
    longest = 0.0
    for case in cases(count, seed):
        root = git_root if case.number % git_every == 0 else plain_root
        populate(root, outside, case, template, copied, rnd)
        began = time.monotonic()
        try:
            with watchdog(HANG_SECONDS):
                outcome = run_entry(root, case.entry)
        except Hang:
            outcome = "hang"
        except Exception:  # noqa: BLE001 - counted, not hidden
            outcome = "traceback"
            bad.append(f"{case.describe()}: {traceback.format_exc()[-600:]}")
        took = time.monotonic() - began
        longest = max(longest, took)
        if took > SLOW_SECONDS:
            counts["slow"] += 1
            bad.append(f"{case.describe()}: took {took:.1f} s")
        counts[outcome] += 1
        counts["cases"] += 1
        if subprocess_every and case.number % subprocess_every == 0:
            populate(root, outside, case, template, copied, rnd)
            proc = subprocess.run([sys.executable, "-m", "spyglass", "-C", str(root), "index"],
                                  check=False, capture_output=True, text=True, timeout=60)
            counts["subprocess"] += 1
            if "Traceback" in proc.stderr or "internal error" in proc.stderr:
                counts["traceback"] += 1
                bad.append(f"{case.describe()} (subprocess): {proc.stderr[-600:]}")
        now = checksum(outside)
        if now != before:
            counts["outside_writes"] += 1
            bad.append(f"{case.describe()}: the outside folder changed")
            shutil.rmtree(outside)
            outside = make_outside(base)
            before = checksum(outside)
        if outcome == "hang":
            bad.append(f"{case.describe()}: hang")
        if log is not None and case.number % 100 == 99:
            log(f"{case.number + 1} cases: {dict(counts)}")
    return {"cases": counts["cases"], "ok": counts["ok"], "refused": counts["refused"],
            "wrong": counts["wrong"], "tracebacks": counts["traceback"],
            "hangs": counts["hang"], "outside_writes": counts["outside_writes"],
            "subprocess_runs": counts["subprocess"], "slow": counts["slow"], "longest_case_s": round(longest, 2),
            "failures": bad[:20]}
