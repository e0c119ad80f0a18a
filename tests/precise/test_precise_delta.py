"""A later snapshot's precise pass (docs/precise.md, "A later commit"): a tool that can be
limited to a folder (scip-python's --target-only) re-runs only the folder the changed
files and the files importing them (transitively) lie in; the other files' facts are
kept; nothing changed keeps every fact; an added file, a changed configuration, or a
change reaching past one folder re-runs the whole workspace."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from fake_tools import fake_python_indexer, need_sandbox
from fixture import commit_all

from spyglass.config import Config, PreciseConfig
from spyglass.index.store import connect
from spyglass.query.facade import CodeIntel
from spyglass.query.precise_delta import _module_name

FILES = {
    "pkg/__init__.py": "",
    "pkg/a_base.py": "class Base:\n    pass\n",
    "pkg/c_use.py": "from pkg.a_base import Base\n\nBase()\n",
    "pkg/sub/__init__.py": "",
    "pkg/sub/leaf.py": "x = 1\n",
    "pkg/sub/twig.py": "from .leaf import x\n",
    "pkg/sub/far.py": "y = 2\n",
    "top.py": "import os\n",
    "tools/gen.py": "z = 3\n",
    **{f"tools/t{i}.py": f"t = {i}\n" for i in range(6)},  # pkg/ holds under half the files
}
# A stand-in scip-python: one document per .py file under its target (the workspace, or
# --target-only's folder), its path relative to that target as scip-python writes it,
# one occurrence whose symbol names the target the run was limited to.
BODY = """
const path = require('path');
const t = args.indexOf('--target-only');
const target = t >= 0 ? args[t + 1] : process.cwd();
const tag = path.relative(process.cwd(), target) || '.';
const enc = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80;
  out.push(b); } while (n); return Buffer.from(out); };
const fld = (no, buf) => Buffer.concat([enc(no << 3 | 2), enc(buf.length), buf]);
const chunks = [fld(1, fld(2, Buffer.concat([fld(1, Buffer.from('scip-python')),
                                           fld(2, Buffer.from('9.9.9'))])))];
const walk = (dir) => { for (const e of fs.readdirSync(dir, {withFileTypes: true})) {
  const p = path.join(dir, e.name);
  if (e.isDirectory() && !e.name.startsWith('.')) walk(p);
  else if (e.name.endsWith('.py')) {
    const occ = Buffer.concat([fld(1, Buffer.from([0, 0, 1])),
                               fld(2, Buffer.from('scip-python python x 0 ran:' + tag + ' f.'))]);
    chunks.push(fld(2, Buffer.concat([fld(1, Buffer.from(path.relative(target, p))),
                                      fld(2, occ)])));
  } } };
walk(target);
fs.writeFileSync(out, Buffer.concat(chunks));
"""


def setup(make_repo: Callable[..., Path], tmp_path: Path) -> CodeIntel:
    need_sandbox()
    tools = fake_python_indexer(tmp_path / "tools", BODY)
    config = Config(precise=PreciseConfig(enabled="true", timeout_s=60, tools=str(tools)))
    ci = CodeIntel(make_repo(FILES), config=config)
    ci.index(precise="wait")
    return ci


def ran(ci: CodeIntel) -> dict[str, str]:
    """Per document of the newest snapshot: the target of the run that made it."""
    conn = connect(ci.root)
    try:
        snap = conn.execute("SELECT max(snapshot) FROM scip_docs").fetchone()[0]
        return {str(p): json.loads(o)[0][2].split("ran:")[1].split(" ")[0]
                for p, o in conn.execute("SELECT path, occ FROM scip_docs WHERE snapshot = ?",
                                         (snap,))}
    finally:
        conn.close()


def commit(ci: CodeIntel, edits: dict[str, str]) -> list[tuple[str, str]]:
    for path, text in edits.items():
        (ci.root / path).parent.mkdir(parents=True, exist_ok=True)
        (ci.root / path).write_text(text)
    commit_all(ci.root, "edit")
    ci.index(precise="off")
    return [(r.state, r.error) for r in ci.precise_pass(None, "wait")]


def test_a_change_reaching_one_folder_reruns_that_folder_only(
        make_repo: Callable[..., Path], tmp_path: Path) -> None:
    ci = setup(make_repo, tmp_path)
    assert set(ran(ci).values()) == {"."}
    # leaf.py changed; twig.py imports it: pkg/sub/ re-runs (far.py with it), the rest
    # keeps the first run's facts.
    runs = commit(ci, {"pkg/sub/leaf.py": "x = 10\n"})
    assert runs[0][0] == "completed" and "re-ran pkg/sub/" in runs[0][1], runs
    assert ran(ci) == {p: "pkg/sub" if p.startswith("pkg/sub/") else "." for p in FILES}
    # a_base.py changed; c_use.py imports it: pkg/ re-runs, top.py and tools/ do not.
    commit(ci, {"pkg/a_base.py": "class Base:\n    x = 1\n"})
    assert ran(ci) == {p: "pkg" if p.startswith("pkg/") else "." for p in FILES}
    out = ci.status().results[0].precise
    assert [(p.state, p.files) for p in out] == [("completed", len(FILES))]


def test_nothing_changed_keeps_the_facts(make_repo: Callable[..., Path],
                                         tmp_path: Path) -> None:
    ci = setup(make_repo, tmp_path)
    runs = commit(ci, {"README.md": "a file no tool reads\n"})
    assert runs == [("completed", runs[0][1])] and "no file changed" in runs[0][1]
    assert set(ran(ci).values()) == {"."} and len(ran(ci)) == len(FILES)


def test_a_whole_run_when_the_change_is_not_one_folders(
        make_repo: Callable[..., Path], tmp_path: Path) -> None:
    ci = setup(make_repo, tmp_path)
    for edits in ({"top.py": "import sys\n"},  # the workspace's own folder
                  {"pkg/sub/leaf.py": "x = 3\n", "tools/gen.py": "z = 4\n"},  # two folders
                  {"pkg/sub/new.py": "w = 1\n"},  # a file added
                  {"pyproject.toml": "[tool.pyright]\n"}):  # the tool's configuration
        runs = commit(ci, edits)
        assert runs == [("completed", "")], (edits, runs)
        assert set(ran(ci).values()) == {"."}, edits


def test_the_name_an_import_uses() -> None:
    assert _module_name("a/b/c.py") == "c"
    assert _module_name("a/b/__init__.py") == "b"
    assert _module_name("a/b/c.pyi") == "c"
    assert _module_name("__init__.py") == "__init__"
