"""The git gateway: the only place spyglass starts git, hardened so that nothing a
repository configures is ever executed (docs/security.md, "Git")."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from spyglass.errors import GitRefused, IndexUnavailable
from spyglass.index import gitguard

# Plumbing only: none of these compares the working tree through git (so no clean filter,
# textconv or external diff can apply), and none fetches, prints through a pager or runs a
# hook. Porcelain (`diff`, `status`, `log`…) is refused, so are options that would read the
# work tree through filters.
COMMANDS = frozenset({"rev-parse", "symbolic-ref", "ls-tree", "cat-file", "ls-files",
                      "diff-tree", "diff-index", "merge-base", "rev-list", "config"})
REFUSED_OPTIONS = frozenset({"--filters", "--textconv", "--ext-diff", "-m", "--modified",
                             "--path", "--exec", "--upload-pack", "--edit", "-p", "--patch",
                             "--cc", "-c", "--output", "--no-index"})
PROTOCOLS = ("file", "git", "ssh", "http", "https", "ext", "fd", "ftp", "ftps")
# git's exec path and PATH: a path below a file can never exist, so no git child process
# (a lazy fetch, a remote helper, an upload-pack) can even be found; built-ins need none.
NO_EXEC = "/dev/null/spyglass-runs-no-program"
NO_PROTOCOL = "spyglass-allows-no-protocol"  # the only name GIT_ALLOW_PROTOCOL lets through
MAX_NEUTRALISED = 2000  # config sections to neutralise before a repository is refused
TIMEOUT = 120.0  # default seconds one git command may take (host config `git_timeout_s`)
FINISH_SECONDS = 2.0  # a batch process's grace after its input ends, then it is killed
CONFIG_TIMEOUT = 30.0  # reading config is instant unless an include is a FIFO
PARTIAL_HINT = ("spyglass never fetches — run `git fetch`/`git backfill` yourself")

STATIC = (
    ("core.fsmonitor", "false"), ("core.hooksPath", "/dev/null"), ("core.pager", "cat"),
    ("diff.external", ""), ("core.attributesFile", "/dev/null"), ("core.askPass", ""),
    ("credential.helper", ""), ("core.sshCommand", "false"), ("core.gitProxy", ""),
    ("core.alternateRefsCommand", ""), ("uploadpack.packObjectsHook", ""),
    ("gc.auto", "0"), ("maintenance.auto", "false"), ("core.untrackedCache", "false"),
    ("protocol.allow", "never"),
    *((f"protocol.{p}.allow", "never") for p in PROTOCOLS))


def partial_clone_error(what: str) -> GitRefused:
    return GitRefused(f"partial clone: {what} is not present locally; {PARTIAL_HINT}")


@dataclass(frozen=True, slots=True)
class Result:
    """One finished git command."""

    returncode: int
    stdout: bytes
    stderr: bytes

    def last_line(self) -> str:
        lines = self.stderr.decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else f"exit status {self.returncode}"


@dataclass(frozen=True, slots=True)
class RepoConfig:
    """What a repository's configuration names that git could run, and whether it is a
    partial clone; `pairs` neutralise every such name (command scope, read last)."""

    pairs: tuple[tuple[str, str], ...]
    promisor: bool
    object_format: str  # sha1, or sha256 (`extensions.objectFormat`)
    key: tuple[tuple[str, tuple[int, int, int] | None], ...]


_configs: dict[str, RepoConfig] = {}
_state: dict[str, str] = {}
_timeout = [TIMEOUT]
_live: dict[int, subprocess.Popen[bytes]] = {}  # git processes running, by pid (= pgid)
_owner: dict[int, int] = {}  # pid -> the thread that started it
_live_lock = threading.Lock()


def set_timeout(seconds: float) -> None:
    """How long one git command may run before its process group is killed."""
    _timeout[0] = seconds


def timeout() -> float:
    return _timeout[0]


def _start(args: list[str], **kwargs: object) -> subprocess.Popen[bytes]:
    """git in a session of its own (so its whole group can be killed), recorded until it
    is reaped; every git call is preceded by the checks of `gitguard`."""
    proc: subprocess.Popen[bytes] = subprocess.Popen(  # type: ignore[call-overload]
        args, start_new_session=True, **kwargs)
    with _live_lock:
        _live[proc.pid] = proc
        _owner[proc.pid] = threading.get_ident()
    return proc


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill git's process group and reap it (a timed-out, cancelled or abandoned call).
    Only while git is not reaped: its pid (the group's id) cannot be reused until then."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    _reap(proc)


def _reap(proc: subprocess.Popen[bytes]) -> None:
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    with _live_lock:
        _live.pop(proc.pid, None)
        _owner.pop(proc.pid, None)


def kill_all(thread: int | None = None) -> int:
    """Kill every git process still running — or those `thread` started (a request it
    served was cancelled) — so none is left blocked as an orphan; how many there were."""
    with _live_lock:
        procs = [p for pid, p in _live.items() if thread is None or _owner.get(pid) == thread]
    for proc in procs:
        _kill(proc)
    return len(procs)


def running() -> int:
    """How many git processes spyglass has running now (tests)."""
    with _live_lock:
        return sum(1 for p in _live.values() if p.poll() is None)


atexit.register(kill_all)


def git_binary() -> str:
    found = _state.get("git") or shutil.which("git")
    if not found:
        raise IndexUnavailable("git is not installed: spyglass needs it to read repositories")
    _state["git"] = os.path.realpath(found)
    return _state["git"]


def environment(pairs: Iterable[tuple[str, str]] = ()) -> dict[str, str]:
    """The environment of every git process: nothing inherited from GIT_*, no system
    config or attributes, no prompts, no transport, no lazy fetch, config pairs last."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GIT_") and k not in ("SSH_ASKPASS", "PAGER", "PATH")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_ATTR_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0",
               GIT_ASKPASS="", GIT_NO_LAZY_FETCH="1", GIT_ALLOW_PROTOCOL=NO_PROTOCOL,
               GIT_PROTOCOL_FROM_USER="0", GIT_OPTIONAL_LOCKS="0", GIT_PAGER="cat",
               PAGER="cat", GIT_SSH_COMMAND="false", GIT_SSH="false", GIT_EXEC_PATH=NO_EXEC,
               PATH=NO_EXEC, GIT_NO_REPLACE_OBJECTS="1", LC_ALL="C")
    pairs = list(pairs)
    for i, (k, v) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{i}"] = k
        env[f"GIT_CONFIG_VALUE_{i}"] = v
    env["GIT_CONFIG_COUNT"] = str(len(pairs))
    return env


def static_options() -> list[str]:
    """The `-c` options every git call carries, whatever the repository."""
    out: list[str] = []
    for key, value in STATIC:
        out += ["-c", f"{key}={value}"]
    return out


def argv(*args: str) -> list[str]:
    """The command line of a git call: the static hardening, then the command."""
    _check(args)
    out = [git_binary(), "--no-pager", "--no-replace-objects", *static_options(), *args[:1]]
    if args[0] in ("diff-tree", "diff-index"):
        out += ["--no-textconv", "--no-ext-diff", "--ignore-submodules=all"]
    return out + list(args[1:])


def _check(args: tuple[str, ...]) -> None:
    if not args or args[0] not in COMMANDS:
        raise ValueError(f"git {args[:1]}: not a command the git gateway runs")
    options = list(args[1:])
    for end in ("--end-of-options", "--"):  # what follows is data (revisions, paths)
        if end in options:
            options = options[:options.index(end)]
    bad = [a for a in options if _refused(a)]
    if bad or (args[0] == "diff-index" and "--cached" not in args):
        raise ValueError(f"git {args[0]} {' '.join(bad) or 'without --cached'}: would read the "
                         "work tree through git, run a program or write")
    if args[0] == "config" and (len(args) < 2 or args[1] not in ("--list", "--get")):
        raise ValueError("git config: the gateway only reads configuration")


def _refused(arg: str) -> bool:
    """A refused option, also abbreviated (git accepts unambiguous prefixes of long ones)."""
    name = arg.split("=", 1)[0]
    if name in REFUSED_OPTIONS:
        return True
    return name.startswith("--") and len(name) > 3 and any(
        r.startswith(name) for r in REFUSED_OPTIONS if r.startswith("--"))


def _spawn(root: Path, args: tuple[str, ...], pairs: Iterable[tuple[str, str]],
           input: bytes | None, limit: float | None = None) -> Result:
    seconds = timeout() if limit is None else min(limit, timeout())
    gitguard.check(root)
    proc = _start(argv(*args), cwd=root, env=environment(pairs),
                  stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = proc.communicate(input, timeout=seconds)
    except subprocess.TimeoutExpired:
        _kill(proc)
        raise IndexUnavailable(f"git {args[0]} did not finish within {seconds:g} s and was "
                               "killed (a FIFO or device it reads? a very large "
                               "repository? the host config's git_timeout_s sets the "
                               "limit)") from None
    except BaseException:  # cancelled (KeyboardInterrupt, a task's end): git goes too
        _kill(proc)
        raise
    _reap(proc)
    return Result(proc.returncode or 0, out, err)


# -- the repository's configuration ------------------------------------------------------------
def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _watched(root: Path) -> list[Path]:
    home = Path(os.environ.get("HOME", "/nonexistent"))
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    dot = root / ".git"
    out = [dot, dot / "config", dot / "config.worktree", dot / "HEAD", home / ".gitconfig",
           xdg / "git" / "config"]
    data = gitguard.read_small(dot)  # bounded, regular files only
    if data is not None:  # a linked worktree: `gitdir: …` (its HEAD)
        text = data.decode("utf-8", "replace").strip()
        if text.startswith("gitdir:"):
            target = Path(text[7:].strip())
            out.append((target if target.is_absolute() else root / target) / "HEAD")
    return out


def _regular(path: Path, base: Path) -> bool:
    """Whether a configured file is missing, a folder or a regular file (not a FIFO or a
    device)."""
    return gitguard.blocking(str(path if path.is_absolute() else base / path)) is None


def repo_config(root: Path) -> RepoConfig:
    """Scan every config source git would read in `root` (includes and includeIf
    followed) for names it could run: kept until one of those files changes."""
    cached = _configs.get(str(root))
    if cached is not None and all(_stat(Path(p)) == k for p, k in cached.key):
        return cached
    res = _spawn(root, ("config", "--list", "-z", "--show-origin", "--show-scope"), (), None,
                 CONFIG_TIMEOUT)
    if res.returncode not in (0, 1):  # 1: no config at all
        raise IndexUnavailable(f"git config failed: {res.last_line()}")
    fields = res.stdout.split(b"\0")
    names: dict[str, set[str]] = {s: set() for s in ("protocol", "remote", "filter", "diff",
                                                     "merge", "credential")}
    promisor = excludes_unsafe = False
    object_format = "sha1"
    files: set[Path] = set()
    for i in range(0, len(fields) - 2, 3):
        scope, origin, entry = fields[i], fields[i + 1], fields[i + 2]
        if scope == b"command":
            continue
        key_b, _, value_b = entry.partition(b"\n")
        key = key_b.decode("utf-8", "surrogateescape")
        value = value_b.decode("utf-8", "surrogateescape")
        base = root
        if origin.startswith(b"file:"):
            origin_path = root / os.fsdecode(origin[5:])
            files.add(origin_path)
            base = origin_path.parent
        section, _, rest = key.partition(".")
        sub, _, leaf = rest.rpartition(".")
        if leaf == "path" and section in ("include", "includeif"):
            target = Path(os.path.expanduser(value))
            files.add(target if target.is_absolute() else base / target)
        if key == "extensions.objectformat" and value.lower() == "sha256":
            object_format = "sha256"
        excludes = Path(os.path.expanduser(value))
        if key == "core.excludesfile" and not (_regular(excludes, base) and
                                               _regular(excludes, root)):
            excludes_unsafe = True  # a FIFO or device would hang `ls-files --others`; git
            # opens a relative one from the work tree, not from the config's folder
        if sub and section in names:
            names[section].add(sub)
        if (section == "remote" and leaf == "promisor" and value.lower() in
                ("", "true", "yes", "on", "1")) or key == "extensions.partialclone":
            promisor = True
    pairs: list[tuple[str, str]] = [("core.excludesFile", "")] if excludes_unsafe else []
    pairs += [(f"protocol.{n}.allow", "never") for n in sorted(names["protocol"])]
    for n in sorted(names["remote"]):
        pairs += [(f"remote.{n}.uploadpack", "git-upload-pack"),
                  (f"remote.{n}.receivepack", "git-receive-pack"), (f"remote.{n}.vcs", ""),
                  (f"remote.{n}.proxy", "")]
    for n in sorted(names["filter"]):
        pairs += [(f"filter.{n}.clean", ""), (f"filter.{n}.smudge", ""),
                  (f"filter.{n}.process", ""), (f"filter.{n}.required", "false")]
    for n in sorted(names["diff"]):
        pairs += [(f"diff.{n}.textconv", ""), (f"diff.{n}.command", "")]
    pairs += [(f"merge.{n}.driver", "") for n in sorted(names["merge"])]
    pairs += [(f"credential.{n}.helper", "") for n in sorted(names["credential"])]
    if len(pairs) > MAX_NEUTRALISED:
        raise GitRefused(f"the git configuration of {root} names {len(pairs)} drivers, remotes "
                         "and protocols; spyglass refuses to run git with it")
    watched = sorted({*map(str, _watched(root)), *map(str, files)})
    found = RepoConfig(tuple(pairs), promisor, object_format, tuple((p, _stat(Path(p))) for p in watched))
    _configs[str(root)] = found
    return found


# -- running commands ---------------------------------------------------------------------------
def call(root: Path, *args: str, input: bytes | None = None) -> Result:
    """Run one git command in `root`, fully hardened; never raises for its exit status."""
    return _spawn(root, args, repo_config(root).pairs, input)


def run(root: Path, *args: str, check: bool = True, input: bytes | None = None) -> bytes:
    """Run a read-only git command in `root` and return stdout; a failure is an
    IndexUnavailable naming git's reason (and its fix where git names one)."""
    res = call(root, *args, input=input)
    if check and res.returncode != 0:
        raise failure(args[0], res)
    return res.stdout


def failure(command: str, res: Result) -> IndexUnavailable:
    text = res.stderr.decode("utf-8", "replace")
    refused = refusal(text)
    if refused is not None:
        return refused
    last = res.last_line()
    hint = ""
    if any(w in last for w in ("bad object", "not a tree", "corrupt", "missing", "bad tree",
                               "unable to read", "not a git repository")):
        hint = " (the repository looks damaged: try `git fsck`)"
    return IndexUnavailable(f"git {command} failed: {last}{hint}")


def refusal(stderr: str) -> GitRefused | None:
    """Git's refusals that are not damage: dubious ownership, a missing promisor object."""
    if "detected dubious ownership" in stderr:
        where = stderr.split("repository at '", 1)[-1].split("'", 1)[0]
        return GitRefused(f"git refuses {where}: it is owned by another user (dubious "
                          f"ownership); if you trust it, run `git config --global --add "
                          f"safe.directory {where}`")
    if "promisor" in stderr:
        obj = stderr.split("could not fetch ", 1)[-1].split()[0] if "could not fetch " in \
            stderr else "an object"
        return partial_clone_error(f"object {obj}" if obj != "an object" else obj)
    return None


def batch(root: Path, *args: str) -> subprocess.Popen[bytes]:
    """A long-running hardened git process talking over pipes (`cat-file --batch`); end
    it with `finish`."""
    pairs = repo_config(root).pairs
    gitguard.check(root)
    return _start(argv(*args), cwd=root, env=environment(pairs), stdin=subprocess.PIPE,
                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def finish(proc: subprocess.Popen[bytes]) -> None:
    """End a batch process: its pipes closed, then its group killed if it lingers."""
    for pipe in (proc.stdin, proc.stdout):
        if pipe is not None:
            try:
                pipe.close()
            except OSError:
                pass
    try:
        proc.wait(timeout=FINISH_SECONDS)
    except subprocess.TimeoutExpired:
        pass
    _kill(proc)


def read_blob(stdout: object, size: int, max_bytes: int | None) -> bytes | None:
    """One blob's bytes from a `cat-file --batch` stream after its header, or None past
    `max_bytes` (then read through in 1 MiB pieces and dropped: memory stays bounded)."""
    assert hasattr(stdout, "read")
    if max_bytes is None or size <= max_bytes:
        data: bytes = stdout.read(size)
        stdout.read(1)
        return data
    left = size + 1
    while left > 0:
        chunk = stdout.read(min(left, 1 << 20))
        if not chunk:
            break
        left -= len(chunk)
    return None


class BlobReader:
    """Blobs asked one at a time (the include walk reads headers as it meets them) from
    one long-running `git cat-file --batch` process, started at the first ask; `close`
    ends it. git flushes each object as it is written (no `--buffer`)."""

    def __init__(self, root: Path, max_bytes: int | None = None) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self._proc: subprocess.Popen[bytes] | None = None

    def read(self, sha: str) -> bytes | None:
        """The blob's bytes, or None when git has no such blob (or it is over
        `max_bytes`)."""
        if self._proc is None:
            self._proc = batch(self.root, "cat-file", "--batch")
        assert self._proc.stdin is not None and self._proc.stdout is not None
        try:
            self._proc.stdin.write(sha.encode() + b"\n")
            self._proc.stdin.flush()
        except BrokenPipeError:
            return None
        parts = self._proc.stdout.readline().split()
        if len(parts) < 3 or parts[1] != b"blob":
            return None
        return read_blob(self._proc.stdout, int(parts[2]), self.max_bytes)

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            finish(proc)


def missing_objects(root: Path, commit: str) -> set[str]:
    """Objects of `commit`'s tree a partial clone does not hold (never fetched); empty
    for a repository that is not a partial clone."""
    if not repo_config(root).promisor:
        return set()
    out = run(root, "rev-list", "--objects", "--no-walk", "--missing=print", commit)
    return {line[1:].decode() for line in out.splitlines() if line.startswith(b"?")}
