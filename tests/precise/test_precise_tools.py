"""The real indexers (skipped when scripts/bootstrap.sh has not installed them): a
JavaScript/TypeScript repository without a tsconfig (scip-typescript would write one into
the read-only workspace; spyglass gives it its own), and a Python `src/` layout whose
tests import the package by name (scip-python resolves it through the host interpreter's
PYTHONPATH). Both answer from the facts afterwards."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from accounting_check import violations
from fake_tools import need_sandbox

from spyglass.config import Config, PreciseConfig
from spyglass.query import precise
from spyglass.query.facade import CodeIntel


def assert_accounted(ci: CodeIntel, result: object, path: str, line: int, col: int,
                     calls: bool) -> None:
    """The accounting invariant on an answer the facts decided: the tally sums, nothing
    is left to the last rule, one statement matches it. (bench/accuracy/invariant.py also
    compares each occurrence with the index's own decision, which the facts change by
    design — query/accounting.py `merged` — so those two checks are left out here.)"""
    found = [v for v in violations(ci, result, path, line, col, calls)  # type: ignore[arg-type]
             if not v.startswith("the verdicts ")
             and " listed site(s) not in the answer" not in v]
    assert not found, found


def _need(name: str) -> None:
    need_sandbox()
    if not [i for i in precise.installed(PreciseConfig()) if i.name == name]:
        pytest.skip(f"{name} is not installed (scripts/bootstrap.sh)")


def test_typescript_without_a_tsconfig(make_repo: Callable[..., Path]) -> None:
    _need("scip-typescript")
    root = make_repo({"lib/shape.js": "export function area(r) {\n  return r * r\n}\n",
                      "lib/use.js": "import { area } from './shape.js'\n\n"
                                    "export const a = area(2)\n"})
    ci = CodeIntel(root, config=Config(precise=PreciseConfig(enabled="true")))
    ci.index(precise="wait")
    status = ci.status().results[0]
    assert [(p.language, p.state, p.files) for p in status.precise] == \
        [("typescript", "completed", 2)]  # type: ignore[attr-defined]
    assert not (root / "tsconfig.json").exists()
    out = ci.callers(path="lib/shape.js", line=1)
    assert [(c.path, c.start_line, c.uncertain, c.evidence.startswith("precise: "
                                                                      "scip-typescript"))
            for c in out.results] == [("lib/use.js", 3, False, True)]  # type: ignore[attr-defined]


def test_python_src_layout(make_repo: Callable[..., Path]) -> None:
    _need("scip-python")
    root = make_repo({"src/pkg/__init__.py": "", "src/pkg/core.py": "def parse(x):\n"
                      "    return x\n",
                      "tests/test_core.py": "from pkg.core import parse\n\n\n"
                                            "def test_it():\n    assert parse(1) == 1\n"})
    ci = CodeIntel(root, config=Config(precise=PreciseConfig(enabled="true")))
    ci.index(precise="wait")
    out = ci.references(path="src/pkg/core.py", line=1)
    got = [(c.path, c.start_line, c.uncertain) for c in out.results]  # type: ignore[attr-defined]
    assert ("tests/test_core.py", 5, False) in got
    assert all(c.evidence.startswith("precise: scip-python") for c in out.results)  # type: ignore[attr-defined]


def test_python_later_commit_reruns_one_folder(make_repo: Callable[..., Path]) -> None:
    """scip-python limited to a folder (--target-only) writes paths relative to it; the
    narrowed re-run's documents land on the right files and answer like the full run's."""
    import json

    from fixture import commit_all

    from spyglass.index.store import connect
    _need("scip-python")
    files = {"app/__init__.py": "", "app/core.py": "def parse(x):\n    return x\n",
             "app/use.py": "from app.core import parse\n\nparse(1)\n",
             "jobs/__init__.py": "", "jobs/run.py": "from app.core import parse\n\n\n"
             "def job():\n    return parse(2)\n",
             **{f"misc/m{i}.py": f"V{i} = {i}\n" for i in range(4)}}
    root = make_repo(files)
    ci = CodeIntel(root, config=Config(precise=PreciseConfig(enabled="true")))
    ci.index(precise="wait")
    (root / "jobs" / "run.py").write_text(files["jobs/run.py"] + "\n\ndef again():\n"
                                          "    return parse(3)\n")
    commit_all(root, "edit")
    ci.index(precise="wait")
    status = ci.status().results[0].precise
    assert [(p.state, "re-ran jobs/" in p.error) for p in status] == [("completed", True)]
    conn = connect(root)
    try:
        rows = dict(conn.execute("SELECT path, occ FROM scip_docs WHERE snapshot = "
                                 "(SELECT max(snapshot) FROM scip_docs)").fetchall())
    finally:
        conn.close()
    assert {"jobs/run.py", "app/core.py"} <= set(rows)
    assert any("parse" in o[2] and o[0] == 8 for o in json.loads(rows["jobs/run.py"]))
    out = ci.references(path="app/core.py", line=1)
    got = [(c.path, c.start_line, c.uncertain) for c in out.results]  # type: ignore[attr-defined]
    assert ("jobs/run.py", 9, False) in got and ("app/use.py", 3, False) in got


LITERAL_FILES = {
    "tsconfig.json": '{"compilerOptions": {"strict": true, "noEmit": true}, '
                     '"include": ["src/**/*"]}\n',
    "src/obs.ts": "export class Observer {\n  start(): number { return 1 }\n}\n\n"
                  "export function observe(o: Observer) {\n  return o.start()\n}\n",
    # `change` is the object a function returns with no declared type: its property is the
    # literal's own (scip-typescript defines it, `start0:`), never Observer's.
    "src/diff.ts": "function findDiff(a: number) {\n  const start = a + 1\n"
                   "  return {start, end: a}\n}\n\nexport function apply(a: number) {\n"
                   "  let change = findDiff(a)\n  if (!change) change = {start: 0, end: 0}\n"
                   "  return change.start + change.end\n}\n",
}


def test_typescript_untyped_object_literal_property_refutes(
        make_repo: Callable[..., Path]) -> None:
    """prosemirror-view's `change.start` (the object `findDiff` returns) is not a use of
    another class's `start`: the index's name-matched site is dropped after the pass
    (`tests/precise/test_precise_pass.py` has the literal a type may type: kept)."""
    _need("scip-typescript")
    root = make_repo(LITERAL_FILES)
    ci = CodeIntel(root, config=Config(precise=PreciseConfig(enabled="true")))
    ci.index(precise="off")

    def got() -> dict[tuple[str, int], bool]:
        out = ci.references(path="src/obs.ts", line=2, column=3)
        assert_accounted(ci, out, "src/obs.ts", 2, 3, False)
        return {(c.path, c.start_line): c.uncertain for c in out.results}  # type: ignore[attr-defined]

    before = got()
    assert before.get(("src/diff.ts", 9)) is True, before
    assert [r.state for r in ci.precise_pass(None, "wait")] == ["completed"]
    after = got()
    assert ("src/diff.ts", 9) not in after, after
    assert after == {("src/obs.ts", 6): False}


def test_typescript_getter_read_by_destructuring_is_a_reference_not_a_call(
        make_repo: Callable[..., Path]) -> None:
    """tiptap's `const { state } = this` reads the getter `state` (a reference) but
    TypeScript's call hierarchy counts only a member access (`m.state`) as its call: the
    facts add the destructuring to the references, not to the callers."""
    _need("scip-typescript")
    root = make_repo({
        "tsconfig.json": LITERAL_FILES["tsconfig.json"],
        "src/mgr.ts": "export class Manager {\n  get state(): number {\n    return 1\n  }\n}\n",
        "src/use.ts": "import { Manager } from './mgr'\n\n"
                      "export function use(m: Manager) {\n  const { state } = m\n"
                      "  return m.state + state\n}\n"})
    ci = CodeIntel(root, config=Config(precise=PreciseConfig(enabled="true")))
    ci.index(precise="wait")
    refs = ci.references(path="src/mgr.ts", line=2, column=7)
    assert {(c.path, c.start_line, c.uncertain) for c in refs.results} >= {  # type: ignore[attr-defined]
        ("src/use.ts", 4, False), ("src/use.ts", 5, False)}
    calls = ci.callers(path="src/mgr.ts", line=2, column=7)
    assert_accounted(ci, refs, "src/mgr.ts", 2, 7, False)
    assert_accounted(ci, calls, "src/mgr.ts", 2, 7, True)
    assert [(c.path, c.start_line, c.uncertain) for c in calls.results] == [  # type: ignore[attr-defined]
        ("src/use.ts", 5, False)]


def test_typescript_member_of_a_type_a_class_implements_through_omit_is_kept(
        make_repo: Callable[..., Path]) -> None:
    """tanstack query-core's `class TimeoutManager implements Omit<TimeoutProvider,
    'name'>`: scip-typescript writes no relationship through `Omit`, yet TypeScript
    relates the members; a use of `TimeoutProvider`'s member (`this.provider.clear()`, a
    literal typed by it) is kept, not refuted, for `TimeoutManager.clear`."""
    _need("scip-typescript")
    root = make_repo({
        "tsconfig.json": LITERAL_FILES["tsconfig.json"],
        "src/tm.ts": "export type Provider = {\n  name: string\n  clear: (id: number) => void\n}\n\n"
                     "export const basic: Provider = {\n  name: 'basic',\n"
                     "  clear: (id) => console.log(id),\n}\n\n"
                     "export class Manager implements Omit<Provider, 'name'> {\n"
                     "  provider: Provider = basic\n\n  clear(id: number): void {\n"
                     "    this.provider.clear(id)\n  }\n}\n"})
    ci = CodeIntel(root, config=Config(precise=PreciseConfig(enabled="true")))
    ci.index(precise="off")

    def got() -> dict[tuple[str, int], bool]:
        out = ci.references(path="src/tm.ts", line=14, column=3)
        return {(c.path, c.start_line): c.uncertain for c in out.results}  # type: ignore[attr-defined]

    before = got()
    assert ("src/tm.ts", 15) in before, before
    ci.precise_pass(None, "wait")
    assert ("src/tm.ts", 15) in got()
