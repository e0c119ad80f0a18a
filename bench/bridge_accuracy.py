"""Accuracy and latency of the precise layer: references and callers on the accuracy corpora
with the language-server bridge off (index only) and on, against the stored oracle answers
(bench/accuracy/README.md). Not part of the test suite.

    python bench/bridge_accuracy.py                      # flask requests httpx, budget 2000 ms
    python bench/bridge_accuracy.py --budget 10000 flask
    python bench/bridge_accuracy.py --execution host trpc
    python bench/bridge_accuracy.py --scip flask         # a scip-python import, no server
    python bench/bridge_accuracy.py pycryptodome         # C: clangd (compile_commands.json)
    python bench/bridge_accuracy.py nanobind             # C++: the same clangd
    python bench/bridge_accuracy.py --warm-up both idna  # without / with the warm-up

Per corpus: P/R of the default answer (`all`) and of the certain results (`exact`), bridge off
vs on; p50/p95 latency per question (index only vs bridged, warm server); the cold start (the
server launched, initialised, done indexing and warmed up); how many answers fell back to the
index."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from accuracy.compare import _Lines, _score, fetch_corpus, load_oracle, prepare_root
from accuracy.corpora import CORPORA, fetch_module
from accuracy.oracle import GOPLS_HOME, TOOLS

from spyglass.bridge import manager
from spyglass.bridge.lsp import LspClient
from spyglass.config import Config, Limits, LspServer
from spyglass.query.facade import CodeIntel
from spyglass.query.view import View
from spyglass.types import ToolResult

VENV_BIN = Path(sys.executable).parent


def prepare(name: str) -> tuple[Path, Path, tuple[str, ...], tuple[str, ...]]:
    """A private git copy of the corpus: (root, folder to delete, server env, binds). Go
    corpora sit under GOPATH/src/<import path>, gopls in GOPATH mode as for the oracle."""
    corpus = CORPORA[name]
    if corpus.language != "go":
        root = prepare_root(name)
        return root, root.parent, (), ()
    work = Path(tempfile.mkdtemp(prefix=f"spyglass-bridge-{name}-"))
    gopath = work / "gopath"
    root = gopath / "src" / corpus.go_import_path
    shutil.copytree(fetch_corpus(name), root, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", ".spyglass"))
    for rel, text in corpus.config:
        (root / rel).write_text(text)
    fetch_module().make_git_repo(root)
    goroot = GOPLS_HOME / "usr" / "lib" / "go-1.24"
    # HOME: go needs a build cache; in the sandbox $HOME is a private tmpfs.
    env = ("HOME", "GO111MODULE=off", f"GOPATH={gopath}:/usr/share/gocode", "GOPROXY=off",
           "GOTOOLCHAIN=local", f"GOROOT={goroot}", f"PATH={goroot / 'bin'}:/usr/bin:/bin")
    return root, work, env, (str(gopath), str(TOOLS))


def server_for(language: str, execution: str, env: tuple[str, ...] = (),
               binds: tuple[str, ...] = ()) -> LspServer:
    host = execution == "host"
    if language == "python":
        return LspServer("python", (str(VENV_BIN / "basedpyright-langserver"), "--stdio"), (),
                         execution, host, "basedpyright")
    if language == "typescript":
        tsc = TOOLS / "node_modules" / ".bin" / "tsc"
        return LspServer("typescript", (str(tsc), "--lsp", "--stdio"), (), execution, host,
                         "tsc", (str(TOOLS),))
    if language in ("c", "cpp"):  # as the oracle runs it (bench/accuracy/oracle.py): clangd
        return LspServer("c", ("clangd", "--background-index", "--log=error", "-j=2"), (),
                         execution, host, "clangd")
    gopls = GOPLS_HOME / "usr" / "bin" / "gopls"
    return LspServer("go", (str(gopls) if gopls.exists() else "gopls",), env, execution, host,
                     "gopls", binds)


class Timed:
    """The facade as compare._score sees it, with a budget and a stopwatch per question."""

    def __init__(self, ci: CodeIntel, budget: int) -> None:
        self.ci, self.budget = ci, budget
        self.times: list[float] = []
        self.fallbacks = 0
        self.why: dict[str, int] = {}  # fallbacks by reason
        self.emptied: list[str] = []  # questions where the server refuted every index site
        self.kept = 0  # the server found nothing while the index had certain sites
        self.doubted = 0  # the server denied most certain sites (the doubt rule)
        self.odd: list[str] = []  # which questions those were
        self.kept_targets: set[tuple[str, str, int]] = set()  # (refs|calls, path, line)
        self.live = self.total = 0

    def _timed(self, fn: Any, **kw: Any) -> ToolResult:
        start = time.perf_counter()
        out: ToolResult = fn(**kw, lsp_budget_ms=self.budget)
        self.times.append((time.perf_counter() - start) * 1000)
        notes = out.coverage.limitations
        down = [n for n in notes if " not used: " in n]
        self.fallbacks += bool(down)
        for n in down[:1]:  # why: past the budget, busy with an earlier question, starting
            why = n.split(" not used: ", 1)[1].split(";", 1)[0]
            why = "no answer within the budget" if why.startswith("no answer within") else why
            self.why[why] = self.why.get(why, 0) + 1
        odd = [n for n in notes if "found no sites for the target" in n
               or "its view of the workspace looks incomplete" in n]
        self.kept += any("found no sites for the target" in n for n in odd)
        self.doubted += any("its view of the workspace looks incomplete" in n for n in odd)
        if odd:
            question = "calls" if fn.__name__ == "callers" else "refs"
            self.kept_targets.add((question, str(kw.get("path")), int(kw.get("line") or 0)))
        if odd and len(self.odd) < 20:
            self.odd.append(f"{fn.__name__} {kw.get('path')}:{kw.get('line')}: {odd[0]}")
        if any(": 0 site(s) confirmed (live-lsp), " in n and ", 0 index site(s) refuted" not in n
               for n in notes) and len(self.emptied) < 40:  # the server denied every site
            self.emptied.append(f"{fn.__name__} {kw.get('path')}:{kw.get('line')}")
        self.total += len(out.results)
        self.live += sum(1 for r in out.results if getattr(r, "source", "") == "live-lsp")
        return out

    def references(self, **kw: Any) -> ToolResult:
        return self._timed(self.ci.references, **kw)

    def callers(self, **kw: Any) -> ToolResult:
        return self._timed(self.ci.callers, **kw)

    def view(self) -> View:
        return self.ci.view()


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_scip(name: str) -> dict[str, Any]:
    """P/R of the index alone vs the index with a scip-python import (no server)."""
    corpus = CORPORA[name]
    doc = load_oracle(name)
    root, work, _, _ = prepare(name)
    tool = TOOLS / "node_modules" / ".bin" / "scip-python"
    try:
        ci = CodeIntel(root, config=Config())
        ci.index()
        lines = _Lines(root)
        off = Timed(ci, 0)
        scores_off = _score(off, corpus, doc, lines)  # type: ignore[arg-type]
        out_file = work / "index.scip"
        start = time.perf_counter()
        subprocess.run([str(tool), "index", "--project-name", name, "--output", str(out_file),
                        "."], cwd=root, check=True, capture_output=True, timeout=1800)
        generated = time.perf_counter() - start
        scip_tool, kept, _ = ci.import_scip(out_file)
        on = Timed(ci, 0)
        scores_on = _score(on, corpus, doc, lines)  # type: ignore[arg-type]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out: dict[str, Any] = {"corpus": name, "scip": scip_tool, "documents": kept,
                           "scip_python_s": round(generated, 1),
                           "latency_ms": {k: {"p50": round(pct(t.times, 0.5), 1),
                                              "p95": round(pct(t.times, 0.95), 1)}
                                          for k, t in (("index", off), ("scip", on))},
                           "scores": {}}
    for key, s in scores_on.scores.items():
        if key[1] != "resolved":
            o = scores_off.scores[key]
            out["scores"]["/".join(key)] = {"off": [round(o.precision, 4), round(o.recall, 4)],
                                            "on": [round(s.precision, 4), round(s.recall, 4)],
                                            "sites": s.tp + s.fn}
    return out


def run(name: str, budget: int, execution: str, max_matches: int,
        settings: str = "{}") -> dict[str, Any]:
    corpus = CORPORA[name]
    doc = load_oracle(name)
    root, work, env, binds = prepare(name)
    try:
        server = replace(server_for(corpus.language, execution, env, binds),
                         settings=settings)
        limits = Limits(max_matches_per_request=max_matches)
        ci = CodeIntel(root, config=Config(lsp=(server,), lsp_budget_ms=budget,
                                           limits=limits))
        ci.index()
        lines = _Lines(root)
        off = Timed(ci, 0)
        scores_off = _score(off, corpus, doc, lines)  # type: ignore[arg-type]
        bridge = ci.escalator.bridges()[0]
        start = time.perf_counter()
        client = bridge.client(600.0)
        cold = time.perf_counter() - start
        if settings != "{}" and isinstance(client, LspClient):  # a background analysis
            client.wait_idle(quiet=15.0, limit=900.0)  # (diagnosticMode = "workspace")
        analysed = time.perf_counter() - start
        on = Timed(ci, budget)
        scores_on = _score(on, corpus, doc, lines)  # type: ignore[arg-type]
        status = bridge.status()
        fp_kept = fp_all = 0  # false positives (default answer), and those the bridge kept
        fp_other: list[str] = []  # the others, for reading
        fn_other: list[str] = []  # the false negatives, for reading
        for example in scores_on.examples:
            q, miss, rest = example.split(" ", 2)
            if miss == "fn" and len(fn_other) < 40:
                fn_other.append(example)
            if miss != "fp":
                continue
            fp_all += 1
            where = rest.split(") at ", 1)[0].rsplit("(", 1)[-1]
            path, _, line = where.rpartition(":")
            kept = (q, path, int(line)) in on.kept_targets
            fp_kept += kept
            if not kept and len(fp_other) < 40:
                fp_other.append(example)
    finally:
        manager.stop_all()
        shutil.rmtree(work, ignore_errors=True)
    out: dict[str, Any] = {"corpus": name, "language": corpus.language, "oracle": doc["oracle"],
                           "server": status.version, "execution": execution, "budget_ms": budget,
                           "max_matches": max_matches,
                           "targets": len(doc["targets"]), "cold_start_s": round(cold, 2),
                           "analysed_s": round(analysed, 2),
                           "questions": len(on.times), "fallbacks": on.fallbacks,
                           "fallback_why": on.why,
                           "kept_empty": on.kept, "doubted": on.doubted, "kept_why": on.odd,
                           "fp_sites": fp_all, "fp_sites_kept_as_index": fp_kept,
                           "fp_other": fp_other, "fn_other": fn_other,
                           "all_refuted": on.emptied,
                           "live_lsp_share": round(on.live / on.total, 3) if on.total else 0.0,
                           "latency_ms": {k: {"p50": round(pct(t.times, 0.5), 1),
                                              "p95": round(pct(t.times, 0.95), 1)}
                                          for k, t in (("index", off), ("bridge", on))},
                           "scores": {}}
    for (q, view), s in scores_on.scores.items():
        if view == "resolved":
            continue
        o = scores_off.scores[(q, view)]
        out["scores"][f"{q}/{view}"] = {"off": [round(o.precision, 4), round(o.recall, 4)],
                                        "on": [round(s.precision, 4), round(s.recall, 4)],
                                        "sites": s.tp + s.fn}
    return out


def render(rows: list[dict[str, Any]]) -> str:
    out = [(f"{'corpus':<10}{'question':<12}{'sites':>6}{'P off':>8}{'R off':>8}{'P on':>8}"
            f"{'R on':>8}")]
    for r in rows:
        for key, s in r["scores"].items():
            out.append(f"{r['corpus']:<10}{key:<12}{s['sites']:>6}{s['off'][0]:>8.3f}"
                       f"{s['off'][1]:>8.3f}{s['on'][0]:>8.3f}{s['on'][1]:>8.3f}")
    out.append("")
    out.append(f"{'corpus':<10}{'server':<22}{'cold s':>8}{'idx p50':>9}{'idx p95':>9}"
               f"{'lsp p50':>9}{'lsp p95':>9}{'fallback':>9}{'live':>7}")
    for r in rows:
        lat = r["latency_ms"]
        out.append(f"{r['corpus']:<10}{(r['server'] or '?'):<22}{r['cold_start_s']:>8.1f}"
                   f"{lat['index']['p50']:>9.0f}{lat['index']['p95']:>9.0f}"
                   f"{lat['bridge']['p50']:>9.0f}{lat['bridge']['p95']:>9.0f}"
                   f"{r['fallbacks']:>5}/{r['questions']:<3}{r['live_lsp_share']:>7.2f}")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", default=["flask", "requests", "httpx"])
    parser.add_argument("--budget", type=int, default=2000, help="lsp_budget_ms (default 2000)")
    parser.add_argument("--execution", choices=("sandbox", "host"), default="sandbox")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--max-matches", type=int, default=Limits().max_matches_per_request,
                        help="max_matches_per_request (idna: one target has 11,932 sites)")
    parser.add_argument("--warm-up", choices=("on", "off", "both"), default="on",
                        help="the bridge's warm-up before `ready` (both: each corpus "
                        "without, then with, in the same run)")
    parser.add_argument("--settings", default="{}", help="the server's settings as JSON, "
                        "by section, e.g. '{\"basedpyright\": {\"analysis\": "
                        "{\"diagnosticMode\": \"workspace\"}}}'")
    parser.add_argument("--scip", action="store_true", help="Python: a scip-python import "
                        "instead of a server")
    args = parser.parse_args()
    if args.scip:
        print(json.dumps([run_scip(n) for n in args.names], indent=1))
        return 0
    rows = []
    variants = ("off", "on") if args.warm_up == "both" else (args.warm_up,)
    for name in args.names:
        for warm in variants:
            manager.WARM_UP = warm == "on"
            rows.append(run(name, args.budget, args.execution, args.max_matches,
                            args.settings) | {"warm_up": warm, "settings": args.settings})
            print(json.dumps(rows[-1]) if args.json else f"{name} done", file=sys.stderr,
                  flush=True)
    print(json.dumps(rows, indent=1) if args.json else render(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
