"""A precise tool that crashes on one file (docs/precise.md, "When a tool fails on a
file"): the documents it wrote before the crash are kept; the file it names is hidden
(seen empty) in a bounded re-run whose facts answer for the rest; the run is "partial"
and its limitation names the file; a crash naming no file (or one outside the
workspace) keeps the documents written and is not re-run."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path

from fake_tools import fake_python_indexer, field, need_sandbox, occurrence, scip_index

from spyglass.config import Config, PreciseConfig
from spyglass.query.facade import CodeIntel

FILES = {
    "pkg/__init__.py": "",
    "pkg/a_base.py": "class Base:\n    def run(self):\n        return 1\n",
    "pkg/b_broken.py": "# CRASH-HERE\nfrom pkg.a_base import Base\n\n\nBase().run()\n",
    "pkg/c_use.py": ("from pkg.a_base import Base\n\n\ndef go():\n"
                     "    handler = getattr(Base(), 'r' + 'un')\n    return handler().run()\n"),
}
RUN = "scip-python python pkg 0 `pkg.a_base`/Base#run()."
DOCS = {  # one document per file, in the order the stand-in walks them
    "pkg/a_base.py": [occurrence(1, 8, RUN, True, 3)],
    "pkg/b_broken.py": [occurrence(4, 7, RUN, width=3)],
    "pkg/c_use.py": [occurrence(5, 21, RUN, width=3)],
}


def walker(named: str, listed: dict[str, list[bytes]] | None = None) -> str:
    """A stand-in scip-python: metadata, then each file's document as it goes (as
    scip-python writes them); a file holding the marker ends the run with scip-python's
    fatal-error print naming `named` (a format string: {cwd}, {path})."""
    head = scip_index("scip-python", "9.9.9", {})
    def doc(path: str, occs: list[bytes]) -> str:
        return base64.b64encode(field(2, field(1, path.encode()) + b"".join(
            field(2, o) for o in occs))).decode()

    docs = {p: doc(p, occs) for p, occs in (listed or DOCS).items()}
    for p, occs in (listed or DOCS).items():  # as written by a run limited to a folder holding p
        parts = p.split("/")
        for i in range(1, len(parts)):
            docs[p + ":" + "/".join(parts[:i])] = doc("/".join(parts[i:]), occs)
    return (f"fs.writeFileSync(out, Buffer.from('{base64.b64encode(head).decode()}', "
            "'base64'));\n"
            f"const docs = {json.dumps(docs)};\n"
            # --target-only: only the files under it, their paths relative to it
            "const t = args.indexOf('--target-only');\n"
            "const rel = t >= 0 ? require('path').relative(process.cwd(), args[t + 1]) : '';\n"
            "for (const path of Object.keys(docs).sort()) {\n"
            "  if (path.includes(':') || (rel && !path.startsWith(rel + '/'))) continue;\n"
            "  if (fs.readFileSync(path, 'utf8').includes('CRASH-HERE')) {\n"
            "    const named = " + json.dumps(named) + ".replace('{cwd}', process.cwd())"
            ".replace('{path}', path);\n"
            "    console.warn('\\n\\nExperienced Fatal Error While Indexing:', "
            "{currentFilepath: named, error: new Error('Debug Failure. False expression.')});\n"
            "    process.exit(1);\n  }\n"
            "  fs.appendFileSync(out, Buffer.from(rel ? docs[path + ':' + rel] : docs[path], "
            "'base64'));\n}\n")


def intel(make_repo: Callable[..., Path], tmp_path: Path, body: str,
          files: dict[str, str] | None = None) -> CodeIntel:
    need_sandbox()
    tools = fake_python_indexer(tmp_path / "tools", body)
    config = Config(precise=PreciseConfig(enabled="true", timeout_s=60, tools=str(tools)))
    return CodeIntel(make_repo(files or FILES), config=config)


def certain(ci: CodeIntel) -> list[tuple[str, int]]:
    out = ci.references(path="pkg/a_base.py", line=2)
    return sorted((c.path, c.start_line) for c in out.results
                  if not c.uncertain and "scip-python" in c.evidence)


def test_a_crash_on_one_file_reruns_without_it_and_keeps_the_rest(
        make_repo: Callable[..., Path], tmp_path: Path) -> None:
    ci = intel(make_repo, tmp_path, walker("{cwd}/{path}"))
    ci.index(precise="off")
    runs = ci.precise_pass(None, "wait")
    assert [(r.state, r.files) for r in runs] == [("partial", 2)], runs
    assert "failed on pkg/b_broken.py, re-run without it" in runs[0].error
    assert "Debug Failure" in runs[0].error
    # The re-run's facts: the site only the facts know (line 6 of c_use.py) is added,
    # certain; the file the tool failed on keeps the index's answer.
    assert certain(ci) == [("pkg/c_use.py", 6)]
    out = ci.references(path="pkg/a_base.py", line=2)
    assert ("pkg/b_broken.py", 5) in [(c.path, c.start_line) for c in out.results]
    assert any(n.startswith("precise pass (python, scip-python 9.9.9) partial")
               and "pkg/b_broken.py" in n for n in out.coverage.limitations)
    status = ci.status().results[0]
    assert [(p.state, p.files) for p in status.precise] == [("partial", 2)]
    assert ci.precise_pass(None, "wait") == []  # a partial pass is not run again


def test_a_crash_naming_no_workspace_file_keeps_what_was_written(
        make_repo: Callable[..., Path], tmp_path: Path) -> None:
    """No re-run when the named file is outside the workspace (or none is named): the
    documents written before the crash are the facts."""
    for named in ("/etc/passwd", "{cwd}/../{path}", "no file"):
        ci = intel(make_repo, tmp_path / named.replace("/", "_"), walker(named))
        ci.index(precise="off")
        runs = ci.precise_pass(None, "wait")
        assert [(r.state, r.files) for r in runs] == [("partial", 1)], (named, runs)
        assert "re-run" not in runs[0].error and "facts for 1 file(s)" in runs[0].error
        assert certain(ci) == []  # c_use.py came after the crash: no facts


# pkg/ beside a folder the tool writes first (lib/, more files than pkg/): a crash in pkg/
# leaves only pkg/'s files without facts.
LIB = {f"lib/m{i}.py": f"V{i} = {i}\n" for i in range(5)}
LIB_DOCS = {**{p: [occurrence(0, 0, f"scip-python python pkg 0 `lib.m{i}`/V{i}.", True, 2)]
               for i, p in enumerate(LIB)}, **DOCS}


def events(ci: CodeIntel, kind: str) -> list[dict[str, object]]:
    from spyglass.index.store import connect
    conn = connect(ci.root)
    try:
        return [json.loads(d) for (d,) in conn.execute(
            "SELECT detail FROM events WHERE kind = ? ORDER BY rowid", (kind,))]
    finally:
        conn.close()


def test_the_rerun_after_a_crash_covers_only_the_files_left_without_facts(
        make_repo: Callable[..., Path], tmp_path: Path) -> None:
    """Django's case: the tool wrote lib/'s documents, then crashed in pkg/: the re-run
    is limited to pkg/ (scip-python's --target-only), lib/'s documents stand."""
    ci = intel(make_repo, tmp_path, walker("{cwd}/{path}", LIB_DOCS), {**FILES, **LIB})
    ci.index(precise="off")
    runs = ci.precise_pass(None, "wait")
    assert [(r.state, r.files) for r in runs] == [("partial", 7)], runs
    retry = [e for e in events(ci, "precise_progress") if "retry" in e]
    assert [(e["retry"], e["target"]) for e in retry] == [(1, "pkg/")]
    assert certain(ci) == [("pkg/c_use.py", 6)]


def test_the_commit_after_a_partial_pass_reruns_only_what_it_left_without_facts(
        make_repo: Callable[..., Path], tmp_path: Path) -> None:
    """After a partial pass the next commit reuses its facts for unchanged files (lib/)
    and re-runs the folder holding the changed files and those it left without facts:
    here the crashing file fixed, so the pass completes."""
    from fixture import commit_all
    ci = intel(make_repo, tmp_path, walker("{cwd}/{path}", LIB_DOCS), {**FILES, **LIB})
    ci.index(precise="off")
    assert [r.state for r in ci.precise_pass(None, "wait")] == ["partial"]
    (ci.root / "pkg" / "b_broken.py").write_text(FILES["pkg/b_broken.py"].replace(
        "# CRASH-HERE", "# fixed"))
    commit_all(ci.root, "fix")
    ci.index(precise="off")
    runs = ci.precise_pass(None, "wait")
    assert [(r.state, r.files) for r in runs] == [("completed", 8)], runs
    assert "re-ran pkg/" in runs[0].error
    assert certain(ci) == [("pkg/b_broken.py", 5), ("pkg/c_use.py", 6)]
