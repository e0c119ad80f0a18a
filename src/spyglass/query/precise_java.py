"""The Java precise pass's program (docs/precise.md): spyglass's own SpyglassJavac.java
(shipped in the Java language pack) compiled with the host JDK's javac at first use into a
spyglass-owned cache — under the restricted launcher like every child — then run by the
host JDK's java over the workspace's Java files, writing a SCIP index."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

from spyglass.bridge.launcher import (
    LaunchError,
    LaunchSpec,
    find_binary,
    launch,
    system_path,
)
from spyglass.config import PreciseConfig

SOURCE = Path(__file__).resolve().parent.parent / "langs" / "java" / "SpyglassJavac.java"
MAIN = "SpyglassJavac"
COMPILE_TIMEOUT_S = 300.0


def jdk_home() -> Path | None:
    """The host JDK's home (javac and java side by side), found on the user's PATH or in
    /usr/bin — never a repository's; None without a JDK."""
    try:
        found = find_binary("javac", system_path("javac"))
    except LaunchError:
        return None
    home = Path(os.path.realpath(found)).parent.parent
    ok = all((home / "bin" / n).is_file() and os.access(home / "bin" / n, os.X_OK)
             for n in ("java", "javac"))
    return home if ok and SOURCE.is_file() else None


def version(home: Path) -> str:
    """The JDK's version from its `release` file (no process run): "17.0.21.1"."""
    try:
        for line in (home / "release").read_text("utf-8", "replace").splitlines():
            if line.startswith("JAVA_VERSION="):
                return line.partition("=")[2].strip().strip('"')
    except OSError:
        pass
    return "unknown"


def binds(home: Path) -> tuple[str, ...]:
    """What the sandbox shows of the JDK: its home, and the folders its configuration
    links point into (Debian links conf/ to /etc/java-N-openjdk)."""
    out = {str(home)}
    conf = home / "conf"
    if conf.is_dir():
        for p in conf.rglob("*"):
            if p.is_symlink():
                out.add(str(Path(os.path.realpath(p)).parent))
    return tuple(sorted(out))


def cache_root() -> Path:
    return Path.home() / ".cache" / "spyglass" / "precise" / "javac"


def classes(home: Path, cfg: PreciseConfig, cache: Path | None = None) -> Path:
    """The folder of the compiled program (compiled now when absent: keyed by the source's
    digest and the JDK's version, written to a temporary sibling and renamed in place).
    LaunchError when javac cannot compile it."""
    source = SOURCE.read_bytes()
    key = hashlib.sha1(source + version(home).encode()).hexdigest()[:16]
    base = cache_root() if cache is None else cache
    target = base / key
    if (target / f"{MAIN}.class").is_file():
        return target
    base.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".compile-", dir=base))
    try:
        spec = LaunchSpec(("nice", "-n", str(cfg.nice), str(home / "bin" / "javac"),
                           "-proc:none", "-implicit:none", "-nowarn", "-encoding", "UTF-8",
                           "-d", str(work), str(SOURCE)),
                          SOURCE.parent, env=("HOME=/tmp", f"PATH={system_path('nice')}"),
                          binds=binds(home), outputs=(str(work),))
        child = launch(spec)
        child.stdin.close()
        deadline = time.monotonic() + COMPILE_TIMEOUT_S
        while not child.wait(0.25):
            if time.monotonic() > deadline:
                child.kill()
                raise LaunchError(f"javac did not compile {SOURCE.name} within "
                                  f"{COMPILE_TIMEOUT_S:.0f} s")
        child.stdout.read()
        code = child.exit_code()
        if code != 0 or not (work / f"{MAIN}.class").is_file():
            raise LaunchError(f"javac could not compile {SOURCE.name} (exit {code}): "
                              f"{child.last_error() or 'no message'}")
        try:
            work.rename(target)
        except OSError:  # another process compiled it first
            if not (target / f"{MAIN}.class").is_file():
                raise
        return target
    finally:
        shutil.rmtree(work, ignore_errors=True)


def command(home: Path, compiled: Path, root: Path, out: Path, cfg: PreciseConfig
            ) -> tuple[str, ...]:
    """niced java running the program over the files listed in OUT/files.txt; the heap
    bounded by `[precise] memory_mb`."""
    return ("nice", "-n", str(cfg.nice), str(home / "bin" / "java"),
            f"-Xmx{cfg.memory_mb}m", "-XX:+UseSerialGC", "-XX:-UsePerfData",
            "-Xshare:auto", "-cp", str(compiled), MAIN, str(root.resolve()),
            str(out / "files.txt"), str(out / "index.scip"), version(home))
