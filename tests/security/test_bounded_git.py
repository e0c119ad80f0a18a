"""Bounded git (docs/security.md, "Bounded git"): a FIFO git would open never hangs a
question, git never outlives its request or the server, `--diff` never reads a blob over
`max_file_bytes`, and a `.git` file or link into another repository is refused. Each
case has a positive control: plain git hangs on it, reads it, or follows it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import httpx2 as httpx
import pytest
from mcp import Client
from starlette.testclient import TestClient

from spyglass.index import gitcall
from spyglass.mcp.server import build_server
from spyglass.query.facade import CodeIntel
from spyglass.web.app import create_app

sys.path.insert(0, str(Path(__file__).parent))
from security.report import COUNT_KEY, record
from serve_harness import env_for, make_repo, run_cli, serving, write_config

ORIGIN = "http://127.0.0.1"
GIT_TIMEOUT = 3  # seconds: the host config's git_timeout_s in these tests
HANG = 2.0  # a plain git still running after this long is hung (the controls)
FILES = {"a.py": "def helper(x):\n    return x + 1\n",
         "tests/test_a.py": "from a import helper\n\n\ndef test_helper():\n"
                            "    assert helper(1)\n"}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", *args], cwd=root,
                   check=True, capture_output=True)


def plain_git_hangs(root: Path, *args: str) -> bool:
    """The control: plain git, killed with its group after HANG seconds."""
    proc = subprocess.Popen(["git", *args], cwd=root, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        proc.wait(HANG)
        return False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return True


def _root_fifo(root: Path) -> None:
    os.mkfifo(root / ".gitignore")


def _untracked_fifo(root: Path) -> None:
    (root / "newdir").mkdir()
    (root / "newdir" / "b.py").write_text("y = 1\n")
    os.mkfifo(root / "newdir" / ".gitignore")


def _in_git(rel: str) -> Callable[[Path], None]:
    def place(root: Path) -> None:
        path = root / ".git" / rel
        if rel == "packed-refs":
            git(root, "pack-refs", "--all")
        path.unlink(missing_ok=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(path)
    return place


def _excludes_file(root: Path) -> None:
    git(root, "config", "core.excludesFile", "my-excludes")  # git opens it from the work tree
    os.mkfifo(root / "my-excludes")


def _include_fifo(root: Path) -> Path:
    """A FIFO an include of the repository's config names, outside the repository."""
    fifo = root.parent / f"more-config-{root.name}"
    os.mkfifo(fifo)
    git(root, "config", "include.path", str(fifo))
    return fifo


PLACEMENTS: dict[str, Callable[[Path], None]] = {
    "root .gitignore": _root_fifo,
    "untracked folder's .gitignore": _untracked_fifo,
    ".git/info/exclude": _in_git("info/exclude"),
    ".git/index": _in_git("index"),
    ".git/objects/info/alternates": _in_git("objects/info/alternates"),
    ".git/packed-refs": _in_git("packed-refs"),
    ".git/shallow": _in_git("shallow"),
    "relative core.excludesFile": _excludes_file,
    "config include.path outside the repository": _include_fifo,
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private HOME whose host config sets a short git timeout (the backstop)."""
    home = tmp_path / "home"
    write_config(home, extra=f"git_timeout_s = {GIT_TIMEOUT}")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg"))
    yield home
    gitcall.set_timeout(gitcall.TIMEOUT)


def _armed(place: Callable[[Path], None]) -> Callable[[Path], None]:
    """The placement, with a work-tree edit that `tests --diff HEAD` answers."""
    def arm(root: Path) -> None:
        (root / "a.py").write_text("def helper(x):\n    return x + 2\n")
        place(root)
    return arm


def _no_git_running() -> bool:
    """No git process of this one still running, once server threads have let go."""
    deadline = time.monotonic() + 10
    while gitcall.running() and time.monotonic() < deadline:
        time.sleep(0.05)
    return gitcall.running() == 0


def _settled(text: str, placement: str) -> bool:
    """Refused with the one-line reason naming the FIFO, or (a neutralised excludes file)
    answered; never git's timeout."""
    if "did not finish" in text:
        return False
    if placement == "relative core.excludesFile":
        return "test_helper" in text
    return "FIFO" in text and "block" in text


def _mcp(root: Path, place: Callable[[Path], None]) -> str:
    async def go() -> str:
        built = build_server(root, environ={})
        async with Client(built.server, mode="legacy") as client:
            await client.call_tool("code_find_symbol", {"name": "helper"})
            place(root)  # the server is running when the FIFO appears
            result = await client.call_tool("code_suggest_tests", {"diff": "HEAD"})
            return json.dumps(result.structured_content) + " ".join(
                getattr(c, "text", "") for c in result.content)
    return anyio.run(go)


def _http(root: Path, place: Callable[[Path], None]) -> str:
    with TestClient(create_app(CodeIntel(root)), base_url=ORIGIN) as client:
        repo = client.app.state.web.repo_id  # type: ignore[attr-defined]
        assert client.get(f"/api/v1/code/repos/{repo}/symbols?q=helper").status_code == 200
        place(root)
        r = client.get(f"/api/v1/code/repos/{repo}/tests?diff=HEAD")
        assert r.status_code in (200, 503), r.text
        json.loads(r.text)  # JSON either way
        return r.text


@pytest.mark.parametrize("placement", list(PLACEMENTS))
def test_a_fifo_git_would_open_is_refused_not_waited_on(
        tmp_path: Path, home: Path, placement: str,
        record_property: Callable[[str, object], None]) -> None:
    place = PLACEMENTS[placement]
    control = make_repo(tmp_path / "control", FILES)
    place(control)
    assert plain_git_hangs(control, "status", "--porcelain"), "control: plain git must hang"
    outcomes = {}
    repo = make_repo(tmp_path / "cli", FILES)
    arm = _armed(place)
    arm(repo)
    began = time.process_time()
    done = run_cli(repo, home, "tests", "--diff", "HEAD", timeout=60)
    outcomes["cli"] = done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) <= 1, done.stderr  # one line, no traceback
    assert done.returncode == (0 if placement == "relative core.excludesFile" else 1)
    outcomes["mcp"] = _mcp(make_repo(tmp_path / "mcp", FILES), arm)
    outcomes["http"] = _http(make_repo(tmp_path / "http", FILES), arm)
    for surface, text in outcomes.items():
        assert _settled(text, placement), (surface, text)
        assert "Traceback" not in text
    assert _no_git_running(), [p.args[-3:] for p in gitcall._live.values()]  # type: ignore
    record_property(COUNT_KEY, ["bounded-git FIFOs", 1, len(outcomes), 0])
    print(f"{placement}: 3 surfaces settled, {time.process_time() - began:.2f} s CPU")


def _git_children(root: Path) -> list[int]:
    """Processes working in `root` (git's cwd is the repository)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.readlink(entry / "cwd") == str(root) and \
                        (entry / "comm").read_text().strip() == "git":
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _global_include_fifo(home: Path) -> Path:
    """A FIFO no pre-check reaches: one the user's own ~/.gitconfig includes (not the
    repository's doing; it stands for any file git opens that spyglass does not check)."""
    fifo = home / "global-more-config"
    os.mkfifo(fifo)
    (home / ".gitconfig").write_text(f"[include]\n\tpath = {fifo}\n")
    return fifo


def test_a_hung_git_is_killed_with_its_group_at_the_timeout(
        tmp_path: Path, home: Path, record_property: Callable[[str, object], None]) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    _global_include_fifo(home)
    assert plain_git_hangs(repo, "config", "--list"), "control: plain git must hang"
    done = run_cli(repo, home, "find", "helper", timeout=60)
    assert done.returncode == 1 and "did not finish within 3 s and was killed" in done.stderr
    assert _git_children(repo) == []  # killed with its process group, not left behind
    gitcall.set_timeout(GIT_TIMEOUT)
    gitcall._configs.clear()
    with pytest.raises(Exception, match="did not finish"):
        gitcall.run(repo, "rev-parse", "HEAD")
    assert _no_git_running() and _git_children(repo) == []
    record(record_property, kind="line", line="bounded git: a git hung on a FIFO no check "
           f"reaches is killed at git_timeout_s ({GIT_TIMEOUT} s), group and all, no orphan")


def test_stopping_the_server_kills_the_git_it_waits_on(tmp_path: Path) -> None:
    """A git blocked past any pre-check (timeout 600 s) while the server stops: gone."""
    repo = make_repo(tmp_path / "repo", FILES)
    home = tmp_path / "home"
    write_config(home, extra="git_timeout_s = 600")
    with serving(repo, home, "web", "--port", "0") as served:
        repo_id = httpx.get(served.url + "/api/v1/code/repos").json()["repos"][0]["repo_id"]
        _global_include_fifo(home)
        (repo / "a.py").write_text("def helper(x):\n    return x + 2\n")

        def ask() -> None:
            try:
                httpx.get(f"{served.url}/api/v1/code/repos/{repo_id}/tests?diff=HEAD",
                          timeout=60)
            except httpx.HTTPError:
                pass
        threading.Thread(target=ask, daemon=True).start()
        deadline = time.monotonic() + 30
        while not _git_children(repo) and time.monotonic() < deadline:
            time.sleep(0.05)
        hung = _git_children(repo)
        assert hung, "git should be blocked on the FIFO include"
        served.proc.send_signal(signal.SIGTERM)
        served.proc.wait(30)
    deadline = time.monotonic() + 10
    while _git_children(repo) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _git_children(repo) == [], "git outlived the server"


def _big_blob_repo(root: Path, size: int) -> Path:
    make_repo(root, {**FILES, "big.py": "x = 1\n"})
    with open(root / "big.py", "wb") as fh:
        fh.truncate(size)  # zeros: 1/1000 of that in .git
    git(root, "add", "-A")
    git(root, "commit", "-qm", "big")
    (root / "big.py").write_text("x = 2\n")
    git(root, "commit", "-qam", "small")
    (root / "a.py").write_text("def helper(x):\n    return x + 3\n")
    return root


MAXRSS = ("import sys; from spyglass.cli.main import main; code = main(sys.argv[1:]); "
          "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0]; "
          "print('MAXRSS', hwm.split()[1], file=sys.stderr); sys.exit(code)")  # this mm's
# peak (getrusage's ru_maxrss would carry the forking parent's)


def test_diff_never_reads_a_blob_over_max_file_bytes(
        tmp_path: Path, home: Path, record_property: Callable[[str, object], None]) -> None:
    size = 128 << 20
    repo = _big_blob_repo(tmp_path / "repo", size)
    sha = subprocess.run(["git", "rev-parse", "HEAD~1:big.py"], cwd=repo, capture_output=True,
                         text=True, check=True).stdout.strip()
    control = subprocess.run(["git", "cat-file", "blob", sha], cwd=repo, capture_output=True,
                             check=True)
    assert len(control.stdout) == size  # plain git hands over the whole blob
    del control
    peaks = []
    for command in ("tests", "blast-radius"):
        done = subprocess.run([sys.executable, "-c", MAXRSS, "-C", str(repo), command,
                               "--diff", "HEAD~1", "--json"], env=env_for(home),
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        assert f"is {size} bytes > max_file_bytes" in done.stdout, done.stdout[:2000]
        peak_mb = int(done.stderr.split("MAXRSS")[1].split()[0]) // 1024
        assert peak_mb < 200, f"{command}: {peak_mb} MB peak"
        peaks.append(peak_mb)

    async def mcp() -> str:
        async with Client(build_server(repo, environ={}).server, mode="legacy") as client:
            result = await client.call_tool("code_blast_radius", {"diff": "HEAD~1"})
            return json.dumps(result.structured_content)
    assert "> max_file_bytes" in anyio.run(mcp)
    with TestClient(create_app(CodeIntel(repo)), base_url=ORIGIN) as client:
        base = f"/api/v1/code/repos/{client.app.state.web.repo_id}"  # type: ignore[attr-defined]
        r = client.get(f"{base}/tests?diff=HEAD~1")
        assert r.status_code == 200 and "> max_file_bytes" in r.text
    record(record_property, kind="line", line=f"bounded git: --diff over a {size >> 20} MiB "
           f"blob: not read (CLI peak RSS {max(peaks)} MB), said in CLI, MCP and HTTP")


def _other_repo(base: Path) -> Path:
    other = make_repo(base / "other", {"theirs.py": "def their_secret():\n    return 1\n"})
    return other


def _gitfile(root: Path, other: Path) -> None:
    (root / ".git").write_text(f"gitdir: {other / '.git'}\n")


def _gitlink(root: Path, other: Path) -> None:
    os.symlink(other / ".git", root / ".git")


def _gitfile_bare(root: Path, other: Path) -> None:
    bare = other.parent / "other-bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(other), str(bare)], check=True,
                   capture_output=True)
    (root / ".git").write_text(f"gitdir: {bare}\n")


def _gitfile_worktree(root: Path, other: Path) -> None:
    git(other, "worktree", "add", "-q", str(other.parent / "other-wt"), "-b", "side")
    (root / ".git").write_text(f"gitdir: {other / '.git' / 'worktrees' / 'other-wt'}\n")


@pytest.mark.parametrize("make_link", [_gitfile, _gitlink, _gitfile_bare, _gitfile_worktree],
                         ids=["file", "symlink", "file-to-bare", "file-to-their-worktree"])
def test_a_dot_git_into_another_repository_is_refused(
        tmp_path: Path, home: Path, make_link: Callable[[Path, Path], None],
        record_property: Callable[[str, object], None]) -> None:
    other = _other_repo(tmp_path)
    root = tmp_path / "repo"
    root.mkdir()
    (root / "mine.py").write_text("def mine():\n    return 0\n")
    make_link(root, other)
    listed = subprocess.run(["git", "ls-files", "--with-tree=HEAD"], cwd=root,
                            capture_output=True, text=True, check=False)
    assert "theirs.py" in listed.stdout  # control: git reads the other repository
    outcomes = {}
    for args in (["find", "their_secret"], ["status"], ["index"]):
        done = run_cli(root, home, *args)
        assert done.returncode == 1 and "does not belong to this work tree" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        outcomes[" ".join(args)] = done.stdout + done.stderr
    served = subprocess.run([sys.executable, "-m", "spyglass", "web", "--port", "0"], cwd=root,
                            env=env_for(home), capture_output=True, text=True, timeout=60, check=False)
    assert served.returncode != 0 and "does not belong" in served.stderr
    mcp = subprocess.run([sys.executable, "-m", "spyglass", "serve"], cwd=root, input="",
                         env=env_for(home), capture_output=True, text=True, timeout=60, check=False)
    assert "does not belong" in mcp.stderr or mcp.returncode != 0
    for text in outcomes.values():
        assert "their_secret" not in text.replace("find their_secret", "")
    assert not (other / ".spyglass").exists()  # nothing created in the other repository
    record_property(COUNT_KEY, ["bounded-git .git into another repository", 1, 3, 0])


def test_linked_worktrees_and_submodules_still_belong(tmp_path: Path, home: Path) -> None:
    main_repo = make_repo(tmp_path / "main", FILES)
    git(main_repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
    sub = _other_repo(tmp_path / "subsrc")
    git(main_repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub),
        "vendored")
    separate = tmp_path / "separate"
    subprocess.run(["git", "init", "-q", f"--separate-git-dir={tmp_path / 'store.git'}",
                    str(separate)], check=True, capture_output=True)
    (separate / "s.py").write_text("def s():\n    return 0\n")
    git(separate, "add", "-A")
    git(separate, "commit", "-qm", "s")
    for root in (tmp_path / "wt", main_repo / "vendored", separate):
        done = run_cli(root, home, "status")
        assert done.returncode == 0, done.stderr


def test_bounded_reads_never_wait_on_a_fifo(tmp_path: Path) -> None:
    from spyglass.index.gitguard import read_small
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "big").write_bytes(b"x" * 10_000)
    assert read_small(tmp_path / "fifo") is None
    assert read_small(tmp_path / "big") == b"x" * 4096
    assert read_small(Path("/dev/zero")) is None


def test_a_cancelled_mcp_call_kills_its_git(tmp_path: Path, home: Path) -> None:
    """The client gives up on a call waiting on a hung git (timeout 60 s): git is gone."""
    write_config(home, extra="git_timeout_s = 60")
    repo = make_repo(tmp_path / "repo", FILES)

    seen: list[int] = []

    async def go() -> list[int]:
        built = build_server(repo, environ={})
        async with Client(built.server, mode="legacy") as client:
            await client.call_tool("code_find_symbol", {"name": "helper"})
            _global_include_fifo(home)
            (repo / "a.py").write_text("def helper(x):\n    return x + 5\n")

            async def ask() -> None:
                await client.call_tool("code_suggest_tests", {"diff": "HEAD"})
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(ask)
                deadline = time.monotonic() + 30
                while not seen and time.monotonic() < deadline:
                    await anyio.sleep(0.1)
                    seen.extend(_git_children(repo))  # the call waits on a blocked git
                tasks.cancel_scope.cancel()  # the client gives up
            deadline = time.monotonic() + 10
            while _git_children(repo) and time.monotonic() < deadline:
                await anyio.sleep(0.1)
            return _git_children(repo)
    assert anyio.run(go) == []
    assert seen, "git should have been blocked on the FIFO include"
