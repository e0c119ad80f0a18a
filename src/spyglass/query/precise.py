"""The precise pass (docs/precise.md): after a snapshot completes, each installed SCIP
indexer (scip-python, scip-typescript) runs under the restricted launcher — bubblewrap,
no network, the workspace read-only, niced, under a time and memory limit — writing into
a spyglass-owned temporary folder; its occurrences and relationships are imported into
the snapshot per file, keyed by content digest (index/scip.py), and the run's state,
duration, peak memory and failure are kept per language for `status`."""

from __future__ import annotations

import json
import os
import posixpath
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from spyglass.bridge.launcher import (
    LaunchError,
    LaunchSpec,
    detach_spyglass,
    launch,
    system_path,
)
from spyglass.config import Config, PreciseConfig
from spyglass.errors import BadInput, SpyglassError
from spyglass.index import scip, writer
from spyglass.index.store import Conn, log_event, utcnow
from spyglass.query import precise_delta, precise_java
from spyglass.query.precise_failure import failing_file

POLL = 0.25  # seconds between memory samples of a running indexer
Report = Callable[[str, dict[str, object]], None]


class PreciseFailed(SpyglassError):
    """`[precise] enabled = true` and a pass could not run or failed."""


@dataclass(frozen=True, slots=True)
class Indexer:
    """One precise indexer: the languages it covers, its script under the tools folder."""

    language: str  # the name status shows
    languages: tuple[str, ...]  # the language packs whose files it covers
    name: str  # the tool name its SCIP metadata carries
    package: str  # its npm package folder, relative to the tools folder
    script: str  # its entry point, relative to the package folder
    # The language's references span the hierarchy (TypeScript's server counts a use of a
    # base member for its overrides: SCIP relationships are followed upward) and its typing
    # is structural (another type's same-named member may be this one: an object literal
    # typed by a type alias has no relationship, so such an occurrence refutes nothing).
    # Pyright's references are per declaration: neither holds for scip-python.
    structural: bool = False
    # "node": an npm package under the tools folder; "jdk": spyglass's own program
    # (langs/java/SpyglassJavac.java) run by the host JDK (query/precise_java.py).
    runtime: str = "node"
    # Re-runs after a crash on a file the tool names (scip-python prints the file its walk
    # failed on, and writes each document as it goes), that file hidden: 0 for none.
    retries: int = 0
    # The tool can be limited to one folder (scip-python's --target-only): a later
    # snapshot re-runs only the folder its changes reach (query/precise_delta.py).
    narrows: bool = False

    def home(self, tools: Path) -> Path:
        return tools / self.package

    def available(self, tools: Path) -> bool:
        """Whether the indexer can run here: its entry point is installed (a JDK found)."""
        if self.runtime == "jdk":
            return precise_java.jdk_home() is not None
        return (self.home(tools) / self.script).is_file()

    def version(self, tools: Path) -> str:
        if self.runtime == "jdk":
            home = precise_java.jdk_home()
            return precise_java.version(home) if home else ""
        try:
            data = json.loads((self.home(tools) / "package.json").read_text("utf-8"))
        except (OSError, ValueError):
            return ""
        return str(data.get("version", "")) if isinstance(data, dict) else ""

    def env(self, root: Path) -> tuple[str, ...]:
        """scip-python asks the host's python3 (first on the launcher's PATH; never the
        repository's) for its search paths: a `src/` layout's folder is added to them."""
        if self.name == "scip-python" and (root / "src").is_dir():
            return (f"PYTHONPATH={root.resolve() / 'src'}",)
        return ()

    def prepare(self, conn: Conn, snapshot: int, out: Path, cfg: PreciseConfig
                ) -> tuple[str, ...]:
        """Inputs written to our folder before the run, and the extra read-only binds the
        run needs: the JDK program's file list (the snapshot's files of its languages)
        and its compiled classes (javac at first use, under the launcher)."""
        (out / "environment.json").write_text("[]\n", encoding="utf-8")
        if self.runtime != "jdk":
            return ()
        home = precise_java.jdk_home()
        if home is None:
            raise LaunchError("no JDK (javac and java) on PATH or in /usr/bin")
        marks = ",".join("?" * len(self.languages))
        paths = sorted(str(r[0]) for r in conn.execute(
            f"SELECT path FROM snapshot_files WHERE snapshot = ? AND language IN ({marks}) "
            "AND skipped IS NULL", (snapshot, *self.languages))
            if not str(r[0]).endswith("module-info.java") and "\n" not in str(r[0]))
        (out / "files.txt").write_text("".join(p + "\n" for p in paths), encoding="utf-8")
        compiled = precise_java.classes(home, cfg)
        return (*precise_java.binds(home), str(compiled))

    def command(self, tools: Path, out: Path, root: Path, cfg: PreciseConfig,
                target: str = "") -> tuple[str, ...]:
        """niced node (or java) running the indexer; every input it may read named by
        the host; `target`: the folder it is limited to (`narrows`)."""
        if self.runtime == "jdk":
            home = precise_java.jdk_home()
            if home is None:
                raise LaunchError("no JDK (javac and java) on PATH or in /usr/bin")
            return precise_java.command(home, precise_java.classes(home, cfg), root, out, cfg)
        node = ("nice", "-n", str(cfg.nice), "node", f"--max-old-space-size={cfg.memory_mb}",
                str(self.home(tools) / self.script), "index")
        if self.name == "scip-python":
            # --project-version: without it scip-python runs git (and 0.6.6 crashes);
            # --environment: the package list is ours (empty), so no interpreter is asked.
            only = ("--target-only", str(root.resolve() / target)) if target else ()
            return (*node, *only, "--project-name", "spyglass", "--project-version", "0",
                    "--environment", str(out / "environment.json"),
                    "--output", str(out / "index.scip"), "--quiet")
        project: tuple[str, ...] = ()
        if not (root / "tsconfig.json").is_file():
            # scip-typescript's --infer-tsconfig writes one into the workspace (read-only
            # here): ours, in our folder, names the workspace's JS/TS files instead.
            ws = str(root.resolve())
            folder = out / "project"
            folder.mkdir(exist_ok=True)
            (folder / "tsconfig.json").write_text(json.dumps({
                "compilerOptions": {"allowJs": True, "noEmit": True, "skipLibCheck": True,
                                    "types": []},
                "include": [f"{ws}/**/*"], "exclude": [f"{ws}/**/node_modules"]}),
                encoding="utf-8")
            project = (str(folder),)
        return (*node, "--cwd", str(root.resolve()), "--no-progress-bar",
                "--output", str(out / "index.scip"), *project)


INDEXERS = (
    Indexer("python", ("python",), "scip-python",
            "node_modules/@sourcegraph/scip-python", "index.js", retries=2,
            narrows=True),
    Indexer("typescript", ("typescript", "tsx", "javascript"), "scip-typescript",
            "scip-typescript/node_modules/@sourcegraph/scip-typescript", "dist/src/main.js",
            structural=True),
    Indexer("java", ("java",), "javac", "", "", runtime="jdk"),
)


def _path() -> str:
    """The children's PATH: node's folder and the system's, never the user's (a pyenv or
    venv shim would otherwise be the python3 scip-python asks for its search paths)."""
    return system_path("node")


def tools_dir(cfg: PreciseConfig) -> Path:
    return Path(cfg.tools) if cfg.tools else Path.home() / ".cache" / "spyglass" / "tools"


def installed(cfg: PreciseConfig) -> list[Indexer]:
    """The indexers whose entry point exists under the tools folder."""
    tools = tools_dir(cfg)
    return [i for i in INDEXERS if i.available(tools)]


@dataclass(frozen=True, slots=True)
class Run:
    """What became of one indexer's pass over one snapshot."""

    language: str
    tool: str  # "scip-python 0.6.6"
    state: str  # running | completed | partial | failed | timeout | missing
    files: int
    seconds: float
    peak_mb: float
    error: str


def _descendants_rss(pid: int) -> int:
    """Resident bytes of `pid` and every process below it (from /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        rss[int(entry)] = int(fields[21]) * page
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo += children.get(p, [])
    return total


def _covered(conn: Conn, snapshot: int, languages: tuple[str, ...]) -> int:
    marks = ",".join("?" * len(languages))
    row = conn.execute(f"SELECT count(*) FROM snapshot_files WHERE snapshot = ? AND language "
                       f"IN ({marks}) AND skipped IS NULL", (snapshot, *languages)).fetchone()
    return int(row[0])


def _record(conn: Conn, snapshot: int, run: Run) -> None:
    conn.execute("INSERT OR REPLACE INTO precise_runs VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (snapshot, run.language, run.tool, run.state, run.files, run.seconds,
                  run.peak_mb, run.error, utcnow()))


def running(store_root: Path) -> bool:
    """Whether a process holds the pass's lock now (a "running" row without it was cut
    short: its process died)."""
    import fcntl

    from spyglass.index.store import store_dir
    try:
        fd = os.open(store_dir(store_root) / "precise.lock", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def runs(conn: Conn, snapshot: int | None) -> list[Run]:
    """The newest pass per language at or before `snapshot` (what status shows)."""
    if snapshot is None:
        return []
    try:
        rows = conn.execute(
            "SELECT language, tool, state, files, seconds, peak_mb, error FROM precise_runs p "
            "WHERE snapshot = (SELECT max(snapshot) FROM precise_runs q WHERE q.language = "
            "p.language AND q.snapshot <= ?) ORDER BY language", (snapshot,)).fetchall()
    except sqlite3.OperationalError:
        return []
    return [Run(str(a), str(b), str(c), int(d), float(e), float(f), str(g))
            for a, b, c, d, e, f, g in rows]


def run_one(indexer: Indexer, root: Path, conn: Conn, snapshot: int,
            config: Config, report: Report, scratch: Path | None = None) -> Run:
    """Run one indexer over the workspace and import its output into `snapshot`. A tool
    that writes its index a document at a time keeps the documents written before a
    crash; one that names the file it crashed on (`Indexer.retries`) is re-run with that
    file hidden (seen empty), up to `retries` times within the time limit: the pass is
    then "partial", its facts kept, the files it failed on named."""
    cfg = config.precise
    tools = tools_dir(cfg)
    tool = f"{indexer.name} {indexer.version(tools)}".strip()
    out = Path(tempfile.mkdtemp(prefix="spyglass-precise-")) if scratch is None else scratch
    started = time.monotonic()
    deadline = started + cfg.timeout_s
    peak = [0]
    report("precise_started", {"language": indexer.language, "tool": tool})

    def done(state: str, files: int = 0, error: str = "") -> Run:
        run = Run(indexer.language, tool, state, files, round(time.monotonic() - started, 2),
                  round(peak[0] / 2**20, 1), error)
        _record(conn, snapshot, run)
        report("precise_" + ("completed" if state == "completed" else "failed"),
               {"language": run.language, "tool": tool, "state": state, "files": files,
                "seconds": run.seconds, "peak_mb": run.peak_mb, "error": error})
        return run

    try:
        plan = (precise_delta.target(conn, snapshot, indexer.language, indexer.languages,
                                     indexer.name) if indexer.narrows else None)
        if plan is not None and not plan[1]:  # nothing changed: the earlier facts stand
            return done("completed", _kept(conn, snapshot, indexer.name),
                        f"no file changed since snapshot {plan[0]}: its facts are kept")
        target = plan[1] if plan is not None else ""
        if target:
            report("precise_progress", {"language": indexer.language, "target": target,
                                        "since": plan[0] if plan else None})
        try:
            extra = indexer.prepare(conn, snapshot, out, cfg)
        except LaunchError as exc:
            return done("failed", error=f"cannot start {indexer.name}: {exc}")
        hidden: list[str] = []
        facts: dict[str, list[scip.Occurrence]] = {}
        rels: list[scip.Relation] = []
        name, errors, stamp = "", [], []
        folder = target  # this attempt's: a re-run after a crash narrows it
        while True:
            state, error, output = _attempt(  # a file outside the folder is not walked
                indexer, tools, out, root, cfg, extra,
                tuple(h for h in hidden if h.startswith(folder)), deadline, peak, report,
                folder)
            if state == "unstarted" and not hidden:
                return done("failed", error=error)
            if state == "unstarted":  # a re-run that cannot start keeps the facts so far
                errors.append(error)
                break
            result = out / "index.scip"
            if state == "completed" and not result.is_file():
                state, error = "failed", f"{indexer.name} wrote no index"
            data = result.read_bytes() if result.is_file() else b""
            result.unlink(missing_ok=True)
            try:
                got, docs, more = scip.parse_full(data if state == "completed"
                                                  else scip.complete(data))
            except BadInput as exc:
                if state == "completed":
                    state, error = "failed", f"{indexer.name} wrote a malformed index: {exc}"
                got, docs, more = "", {}, []
            if state == "completed" and not docs and not hidden:
                state, error = "failed", (f"{indexer.name} wrote a malformed index: no "
                                          "documents (not a SCIP index?)")
            name = name or (got if docs else "")
            stamp.append(scip.digest(data))
            for written, occs in docs.items():  # an earlier run saw more files: it stays
                path = _rebase(folder, written)
                if path is not None and path not in hidden:
                    facts.setdefault(path, occs)
            rels += more
            if state == "completed":
                break
            errors.append(error)
            failed = (failing_file(output, root) if state == "failed" and indexer.retries
                      else None)
            if (failed is None or failed in hidden or len(hidden) >= indexer.retries
                    or time.monotonic() >= deadline):
                break
            hidden.append(failed)
            if indexer.narrows:  # re-run only as far as the files still without facts
                folder = _retry_folder(conn, snapshot, indexer, folder, facts, hidden)
            report("precise_progress", {"language": indexer.language, "retry": len(hidden),
                                        "hidden": failed, "error": error, "target": folder})
        if not facts:
            return done(state, error=error)
        whole = state == "completed" and not hidden and not target
        try:
            kept, _ = scip.import_docs(root, conn, snapshot, (name, facts, rels),
                                       scip.digest("".join(stamp).encode()),
                                       config.limits.max_file_bytes, replaces=indexer.name,
                                       whole=whole)
        except BadInput as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            return done("failed", error=f"{indexer.name} wrote a malformed index: {exc}")
        if whole:
            return done("completed", kept)
        if state == "completed" and not hidden:
            return done("completed", _kept(conn, snapshot, indexer.name),
                        f"re-ran {target} ({kept} file(s)) after changes since snapshot "
                        f"{plan[0] if plan else ''}; the other files' facts are kept")
        lost = _covered(conn, snapshot, indexer.languages) - kept
        why = "; ".join(dict.fromkeys(errors))
        named = (f"failed on {', '.join(hidden)}, re-run without it"
                 f"{'' if state == 'completed' else ' (' + state + ': ' + error + ')'}"
                 if hidden else state)
        return done("partial", kept, f"{indexer.name} {named}: {why}; facts for {kept} "
                    f"file(s), {lost} without (files it failed on or had no names in)")
    finally:
        if scratch is None:
            shutil.rmtree(out, ignore_errors=True)


def _retry_folder(conn: Conn, snapshot: int, indexer: Indexer, folder: str,
                  facts: dict[str, list[scip.Occurrence]], hidden: list[str]) -> str:
    """The folder a re-run after a crash is limited to: the deepest one holding every
    file of the attempt's folder still without facts (the tool wrote the others before
    it crashed: their documents stand), else the attempt's own folder."""
    marks = ",".join("?" * len(indexer.languages))
    files = [str(r[0]) for r in conn.execute(
        f"SELECT path FROM snapshot_files WHERE snapshot = ? AND language IN ({marks}) "
        "AND skipped IS NULL", (snapshot, *indexer.languages))]
    scope = [p for p in files if p.startswith(folder)]
    left = [p for p in scope if p not in facts and p not in hidden]
    narrower = precise_delta.narrowest(left, files, share=1.0)  # any folder is less work
    return narrower if narrower is not None and narrower.startswith(folder) else folder


def _kept(conn: Conn, snapshot: int, tool: str) -> int:
    row = conn.execute("SELECT count(*) FROM scip_docs WHERE snapshot = ? AND tool LIKE ?",
                       (snapshot, tool + "%")).fetchone()
    return int(row[0]) if row else 0


def _rebase(target: str, path: str) -> str | None:
    """A document's workspace path: the tool writes it relative to its target folder."""
    if not target:
        return path
    out = posixpath.normpath(posixpath.join(target, path))
    return None if out.startswith(("../", "/")) or out in ("..", ".") else out


def _attempt(indexer: Indexer, tools: Path, out: Path, root: Path, cfg: PreciseConfig,
             extra: tuple[str, ...], hidden: tuple[str, ...], deadline: float,
             peak: list[int], report: Report, target: str = "") -> tuple[str, str, str]:
    """One run of the tool under the launcher, `hidden` files seen empty: (state —
    completed, failed, timeout or unstarted —, the reason of a failure, the tail of its
    error output). `peak` holds the highest resident size seen."""
    empty = out / "hidden.empty"  # what a hidden file shows: made anew for each run
    try:
        if hidden:
            empty.unlink(missing_ok=True)
            empty.write_bytes(b"")
        spec = LaunchSpec(indexer.command(tools, out, root, cfg, target), root,
                          env=("HOME=/tmp", f"PATH={_path()}", *indexer.env(root)),
                          binds=(str(tools), *extra), outputs=(str(out),), hidden=hidden,
                          empty=str(empty) if hidden else "")
        child = launch(spec)
    except (LaunchError, OSError) as exc:
        return "unstarted", f"cannot start {indexer.name}: {exc}", ""
    child.stdin.close()
    begun = time.monotonic()
    next_report = begun + 5.0
    while not child.wait(POLL):
        peak[0] = max(peak[0], _descendants_rss(child.pid))
        now = time.monotonic()
        if now >= deadline:
            child.kill()
            return "timeout", (f"{indexer.name} did not finish within {cfg.timeout_s} s "
                               "([precise] timeout_s)"), ""
        if peak[0] > cfg.memory_mb * 2**20 * 1.5:  # node's heap limit plus its own memory
            child.kill()
            return "failed", (f"{indexer.name} exceeded the memory limit ({cfg.memory_mb} "
                              "MB, [precise] memory_mb)"), ""
        if now >= next_report:
            next_report = now + 5.0
            report("precise_progress", {"language": indexer.language,
                                        "seconds": round(now - begun, 1),
                                        "rss_mb": round(peak[0] / 2**20, 1)})
    child.stdout.read()
    code = child.exit_code()
    text = child.stderr_tail.decode("utf-8", "replace")
    if code != 0:
        why = child.last_error() or "no message"
        return "failed", f"{indexer.name} exited with {code}: {why}", text
    return "completed", "", text


def wanted(config: Config, conn: Conn, snapshot: int) -> list[Indexer]:
    """The indexers this snapshot's pass runs: installed, and the snapshot has their files.
    `enabled = true` makes a missing indexer for a present language an error (recorded)."""
    cfg = config.precise
    if cfg.enabled == "false":
        return []
    present = [i for i in INDEXERS if _covered(conn, snapshot, i.languages)]
    have = installed(cfg)
    return [i for i in present if i in have or cfg.enabled == "true"]


def run_pass(root: Path, conn: Conn, snapshot: int, config: Config,
             job: int | None = None, only: list[Indexer] | None = None) -> list[Run]:
    """The pass over one snapshot: every wanted indexer in turn; events journaled.
    With `enabled = true` a failed indexer raises PreciseFailed after all have run."""
    def report(kind: str, detail: dict[str, object]) -> None:
        log_event(conn, snapshot, kind, json.dumps(detail), job=job)

    done: list[Run] = []
    have = installed(config.precise)
    for indexer in wanted(config, conn, snapshot) if only is None else only:
        if indexer not in have:
            where = ("no JDK (javac, java) on PATH or in /usr/bin" if indexer.runtime == "jdk"
                     else f"{indexer.name} is not installed under {tools_dir(config.precise)}")
            run = Run(indexer.language, indexer.name, "missing", 0, 0.0, 0.0,
                      f"{where} (scripts/bootstrap.sh installs it)")
            _record(conn, snapshot, run)
            report("precise_failed", {"language": run.language, "error": run.error})
            done.append(run)
            continue
        done.append(run_one(indexer, root, conn, snapshot, config, report))
    failed = [r for r in done if r.state not in ("completed", "partial")]
    if failed and config.precise.enabled == "true":
        raise PreciseFailed("precise pass failed ([precise] enabled = true): "
                            + "; ".join(f"{r.language}: {r.error}" for r in failed))
    return done


def _carry_forward(conn: Conn, snapshot: int) -> None:
    """Start the snapshot's facts from the newest earlier import: each tool's run replaces
    its own rows; a tool that fails leaves the earlier facts, which answer only for files
    whose content is unchanged (their digest is checked per answer)."""
    row = conn.execute("SELECT max(snapshot) FROM scip_docs WHERE snapshot < ?",
                       (snapshot,)).fetchone()
    if row is None or row[0] is None:
        return
    prev = int(row[0])
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT OR IGNORE INTO scip_docs SELECT ?, path, tool, digest, occ, import "
                 "FROM scip_docs WHERE snapshot = ?", (snapshot, prev))
    conn.execute("INSERT OR IGNORE INTO scip_rels SELECT ?, tool, symbol, related, bits "
                 "FROM scip_rels WHERE snapshot = ?", (snapshot, prev))
    conn.execute("COMMIT")


def pass_over(store_root: Path, root: Path, config: Config, snapshot: int,
              job: int | None = None) -> list[Run]:
    """The pass over `snapshot` unless one ran (or runs) already: one pass per store at a
    time (a lock file); languages whose pass completed for this snapshot are not re-run."""
    import fcntl

    from spyglass.index.store import connect, store_dir
    if config.precise.enabled == "false":
        return []
    folder_fd = writer.store_folder(store_dir(store_root), create=True)
    try:  # through the one writer: a committed link or FIFO there is replaced, never used
        fd = writer.open_kept(folder_fd, "precise.lock", where=str(store_dir(store_root)))
    finally:
        os.close(folder_fd)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if config.precise.enabled == "true"
                                             else fcntl.LOCK_NB))
        except BlockingIOError:
            return []  # another process runs the pass; status shows it
        conn = connect(store_root)
        try:
            done = {str(r[0]) for r in conn.execute(
                "SELECT language FROM precise_runs WHERE snapshot = ? AND state IN "
                "('completed', 'partial')",
                (snapshot,))}
            todo = [i for i in wanted(config, conn, snapshot) if i.language not in done]
            if not todo:
                return []
            _carry_forward(conn, snapshot)
            for i in todo:
                _record(conn, snapshot, Run(i.language, i.name, "running", 0, 0.0, 0.0, ""))
            return run_pass(root, conn, snapshot, config, job, only=todo)
        finally:
            conn.close()
    finally:
        os.close(fd)


def detach(start: Path, snapshot: int, config_path: Path | None) -> int:
    """Start the pass in a detached spyglass process (the CLI's `index` returns at once):
    `spyglass index --precise-only` in its own session, with no terminal; its indexers
    still run under the launcher. Returns its pid."""
    args = ["index", "-C", str(start), "--precise-only", "--snapshot", str(snapshot)]
    if config_path is not None:
        args += ["--config", str(config_path)]
    return detach_spyglass(args, start)
