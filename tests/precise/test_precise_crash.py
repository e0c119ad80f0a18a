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


def walker(named: str) -> str:
    """A stand-in scip-python: metadata, then each file's document as it goes (as
    scip-python writes them); a file holding the marker ends the run with scip-python's
    fatal-error print naming `named` (a format string: {cwd}, {path})."""
    head = scip_index("scip-python", "9.9.9", {})
    docs = {p: base64.b64encode(field(2, field(1, p.encode()) + b"".join(
        field(2, o) for o in occs))).decode() for p, occs in DOCS.items()}
    return (f"fs.writeFileSync(out, Buffer.from('{base64.b64encode(head).decode()}', "
            "'base64'));\n"
            f"const docs = {json.dumps(docs)};\n"
            "for (const path of Object.keys(docs).sort()) {\n"
            "  if (fs.readFileSync(path, 'utf8').includes('CRASH-HERE')) {\n"
            "    const named = " + json.dumps(named) + ".replace('{cwd}', process.cwd())"
            ".replace('{path}', path);\n"
            "    console.warn('\\n\\nExperienced Fatal Error While Indexing:', "
            "{currentFilepath: named, error: new Error('Debug Failure. False expression.')});\n"
            "    process.exit(1);\n  }\n"
            "  fs.appendFileSync(out, Buffer.from(docs[path], 'base64'));\n}\n")


def intel(make_repo: Callable[..., Path], tmp_path: Path, body: str) -> CodeIntel:
    need_sandbox()
    tools = fake_python_indexer(tmp_path / "tools", body)
    config = Config(precise=PreciseConfig(enabled="true", timeout_s=60, tools=str(tools)))
    return CodeIntel(make_repo(FILES), config=config)


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
