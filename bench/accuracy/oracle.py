"""Ask an oracle language server for references and incoming calls of sampled targets."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from accuracy.corpora import AccuracyCorpus, write_compile_commands
from accuracy.lsp import LspClient, LspError, settle, uri
from accuracy.sample import SEED, Target

REPO = Path(__file__).resolve().parents[2]
TOOLS = Path.home() / ".cache" / "spyglass" / "tools"
WORK = Path.home() / ".cache" / "spyglass" / "accuracy"
# gopls 0.16.1 and Go 1.24 unpacked from Debian trixie by get_gopls.sh; else the system's.
GOPLS_HOME = TOOLS / "gopls"


def _version(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return out.strip().splitlines()[0] if out.strip() else "unknown"


def prepare(corpus: AccuracyCorpus, source: Path) -> tuple[Path, list[str], dict[str, str], str]:
    """A private copy of the corpus with the oracle's config: (root, command, env, version)."""
    WORK.mkdir(parents=True, exist_ok=True)
    env: dict[str, str] = {}
    if corpus.language == "go":
        gopath = WORK / f"gopath-{corpus.name}"
        root = gopath / "src" / corpus.go_import_path
        env = {"GO111MODULE": "off", "GOPATH": f"{gopath}:/usr/share/gocode", "GOPROXY": "off",
               "GOTOOLCHAIN": "local"}
        goroot = GOPLS_HOME / "usr" / "lib" / "go-1.24"
        if (goroot / "bin" / "go").exists():
            env |= {"GOROOT": str(goroot), "PATH": f"{goroot / 'bin'}:{os.environ['PATH']}"}
    else:
        root = WORK / corpus.name
    _copy(source, root)
    for rel, text in corpus.config:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    write_compile_commands(corpus, root)
    if corpus.language in ("c", "cpp"):  # Debian's clangd, with a background index of every file
        return (root, ["clangd", "--background-index", "--log=error", "-j=2"], env,
                _version(["clangd", "--version"]))
    if corpus.language == "python":
        exe = Path(sys.executable).parent
        return (root, [str(exe / "basedpyright-langserver"), "--stdio"], env,
                _version([str(exe / "basedpyright"), "--version"]))
    if corpus.language == "go":
        gopls = GOPLS_HOME / "usr" / "bin" / "gopls"
        if gopls.exists():
            return root, [str(gopls)], env, _version([str(gopls), "version"]).replace(
                "golang.org/x/tools/gopls v", "gopls ")
        return root, ["gopls"], env, "gopls " + _version(
            ["dpkg-query", "-W", "-f", "${Version}", "gopls"])
    tsc = TOOLS / "node_modules" / ".bin" / "tsc"
    return root, [str(tsc), "--lsp", "--stdio"], env, "typescript " + _version(
        [str(tsc), "-v"]).removeprefix("Version ")


def _copy(source: Path, dest: Path) -> None:
    if dest.exists():
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".git", ".spyglass"))


def _stable(ask: Any, *args: Any) -> Any:
    """Re-ask until two consecutive answers agree (first answers may be incomplete): the
    product's rule (spyglass.bridge.lsp.settle), with no deadline but each ask's own."""
    return settle(lambda left: ask(*args), deadline=time.monotonic() + 3600)


def _start(cmd: list[str], root: Path, env: dict[str, str]) -> LspClient:
    client = LspClient(cmd, root, env)
    client.initialize()
    if cmd[0] == "clangd":  # its background index starts with the first opened file
        first = next(iter(sorted(p for p in root.rglob("*") if p.suffix in
                                 (".c", ".cpp", ".cc", ".cxx"))), None)
        if first is not None:
            client.open(first)
        time.sleep(5)
        client.wait_idle(quiet=10.0, limit=1800)
    else:
        client.wait_idle(quiet=2.0, limit=180)
    return client


def place_calls(refs: list[list[Any]], calls: list[list[Any]]) -> list[list[Any]]:
    """clangd 14's incoming calls, each range moved to the file it is in.

    clangd reports a call's ranges in the file of its caller's *item*, which is not the
    call's file when the caller is declared elsewhere: a function whose name a header's
    macro renames (`#define f _crypt_f`: the item is the macro's header) or a `main` that
    several units define (one USR: the item is one of them). A call is a reference too, so
    a range that is no reference site of its file, and whose line and column are those of
    exactly one reference site of another file, is that site (bench/accuracy/README.md)."""
    sites = {(str(p), int(ln), int(c)) for p, ln, c in refs}
    out: list[list[Any]] = []
    for p, ln, c in calls:
        if (p, ln, c) not in sites:
            moved = [s for s in sites if s[1:] == (ln, c) and s[0] != p]
            if len(moved) == 1:
                p = moved[0][0]
        out.append([p, ln, c])
    return sorted(out)


def units_naming(root: Path, name: str) -> list[Path]:
    """The translation units of the copy's compile_commands.json whose text spells `name`
    as a word (C, C++; none for other languages).

    clangd 14 answers a symbol's references from its background index and, for each open
    file, from that file's own parse, which replaces the background index's entries for the
    file. Its background index keeps no references of a symbol whose first declaration is in
    the unit's main file (a unit that declares `void f(…);` itself and calls it: hiredis's
    `net.c` and `ssl.c` with `__redisSetError`), so those references come only from the unit
    opened. The oracle opens every unit that spells the target's name before asking, and
    closes them after, so an answer does not depend on which files earlier targets left
    open (bench/accuracy/README.md "C")."""
    commands = root / "compile_commands.json"
    if not commands.exists():
        return []
    word = re.compile(rf"\b{re.escape(name)}\b")
    out: list[Path] = []
    for entry in json.loads(commands.read_text()):
        path = root / entry["file"]
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if word.search(text):
            out.append(path)
    return out


def _from_a_unit(client: LspClient, root: Path, t: Target, units: list[Path]
                 ) -> list[tuple[str, int, int]]:
    """The target's references asked from its first use in a unit that clangd itself links
    to the target's declaration (`textDocument/definition`), or none. A header opened as
    its own main file is parsed without its includer's context (`typedef struct {…} T` in
    libxcrypt's alg-gost3411-2012-hmac.h: asked there, clangd lists 1 of T's 6 uses, asked
    from a unit's use, all 6), so the oracle asks from both and keeps every site."""
    word = re.compile(rf"\b{re.escape(t.name)}\b")
    for unit in units:
        for n, text in enumerate(unit.read_text(encoding="utf-8", errors="replace")
                                 .splitlines()):
            m = word.search(text)
            if m is None:
                continue
            col = len(text[:m.start()].encode("utf-16-le")) // 2
            targets = _stable(client.definition, unit, n, col)
            if any(p == t.path and ln == t.line for p, ln, _ in targets):
                return list(_stable(client.references, unit, n, col))
            break  # the unit's first use: it decides for the unit
    return []


def ask_oracle(corpus: AccuracyCorpus, source: Path, targets: list[Target],
               log: Any = print) -> dict[str, Any]:
    """Run the oracle over the targets and return the oracle document (JSON-able).

    A target the oracle cannot answer (a file outside its build, a server crash) is dropped
    and listed under ``dropped``; a crashed server is restarted. Java has no server: the
    JDK compiler answers every target at once (accuracy/javac.py)."""
    if corpus.language == "java":
        from accuracy import javac
        root = WORK / corpus.name
        _copy(source, root)
        return javac.ask(corpus, root, targets, log)
    root, cmd, env, version = prepare(corpus, source)
    client = _start(cmd, root, env)
    rows: list[dict[str, Any]] = []
    dropped: list[str] = []
    try:
        for i, t in enumerate(targets):
            path = root / t.path
            units = units_naming(root, t.name)
            try:
                for unit in units:
                    client.open(unit)
                for unit in units:  # served once the unit is parsed and its index updated
                    client.request("textDocument/documentSymbol",
                                   {"textDocument": {"uri": uri(unit)}}, 600)
                client.open(path)
                refs = _stable(client.references, path, t.line - 1, t.col)
                if units and path not in units:  # a header: also from a unit's own use
                    refs = sorted({*refs, *_from_a_unit(client, root, t, units)})
                # None: the server has no call hierarchy item for the target, so it
                # cannot say who calls it ("no item" is not "no callers"): not scored.
                calls = _stable(client.call_hierarchy, path, t.line - 1, t.col)
                if units:  # each target's answer from its own units only (units_naming)
                    for opened in (*units, path):
                        client.close_document(opened)
            except (LspError, OSError) as exc:
                log(f"  {t.path}:{t.line} {t.name}: dropped, oracle error {exc}")
                dropped.append(f"{t.path}:{t.line} {t.name}")
                if client.proc.poll() is not None or isinstance(exc, OSError):
                    client.close()
                    client = _start(cmd, root, env)
                continue
            sites = None if calls is None else [[p, ln, c] for p, ln, c, _ in calls]
            placed = place_calls([list(r) for r in refs], sites) \
                if corpus.language == "c" and sites is not None else sites
            if corpus.language == "c" and placed:  # a call is a reference too
                refs = sorted({*map(tuple, refs), *(tuple(c) for c in placed)})
            rows.append({"path": t.path, "line": t.line, "col": t.col, "name": t.name,
                         "kind": t.kind, "group": t.group,
                         "refs": [list(r) for r in refs], "calls": placed})
            log(f"  [{i + 1}/{len(targets)}] {t.path}:{t.line} {t.name}: "
                f"{len(refs)} refs, {'no call item' if calls is None else len(calls)} calls")
    finally:
        client.close()
    return _document(corpus, version, dropped, rows)


def _document(corpus: AccuracyCorpus, version: str, dropped: list[str],
              rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"corpus": corpus.name, "language": corpus.language, "oracle": version,
            "date": dt.date.today().isoformat(), "sample_rule": f"bench/accuracy/sample.py v1 "
            f"seed {SEED}", "dropped": dropped, "targets": rows}


def mark_call_items(corpus: AccuracyCorpus, source: Path, doc: dict[str, Any],
                    log: Any = print) -> int:
    """Ask the oracle again, for each stored target with no incoming calls, whether it has
    a call hierarchy item at all; a target without one gets ``calls: null`` (the server
    cannot say who calls it). For answers stored before the oracle told the two apart.
    Returns how many targets were marked."""
    empty = [t for t in doc["targets"] if t.get("calls") == []]
    if corpus.language == "java" or not empty:
        return 0
    root, cmd, env, _ = prepare(corpus, source)
    client = _start(cmd, root, env)
    marked = 0
    try:
        for t in empty:
            path = root / t["path"]
            client.open(path)
            if _stable(client.call_hierarchy, path, t["line"] - 1, t["col"]) is None:
                t["calls"] = None
                marked += 1
                log(f"  {t['path']}:{t['line']} {t['name']}: no call hierarchy item")
    finally:
        client.close()
    return marked
