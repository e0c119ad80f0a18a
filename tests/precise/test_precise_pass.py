"""The precise pass (docs/precise.md) with a stand-in indexer under the real launcher:
its facts decide references and callers (confirm, add, drop and count, through the
relationships of overriding members); each failure (tool missing, crash, timeout,
malformed output) leaves the index's answer with a limitation naming the reason, and
`[precise] enabled = true` turns it into an error; status shows each language's pass."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fake_tools import (
    fake_python_indexer,
    need_sandbox,
    occurrence,
    relationship,
    scip_index,
    writes,
)

from spyglass.config import Config, PreciseConfig
from spyglass.query.facade import CodeIntel
from spyglass.query.precise import PreciseFailed

FILES = {
    "pkg/__init__.py": "",
    "pkg/base.py": ("class Base:\n    def run(self):\n        return 1\n\n\n"
                    "class Child(Base):\n    def run(self):\n        return 2\n"),
    "pkg/use.py": ("from pkg.base import Base, Child\n\n\n"
                   "def go(b: Base):\n    return b.run()\n\n\n"
                   "def direct():\n    return Child().run()\n\n\n"
                   "def other(x: Child):\n    return x.run()\n\n\n"
                   "def alias():\n    handler = getattr(Child(), 'r' + 'un')\n"
                   "    return handler().run()\n"),
}
BASE_RUN = "scip-python python pkg 0 `pkg.base`/Base#run()."
CHILD_RUN = "scip-python python pkg 0 `pkg.base`/Child#run()."
OTHER_RUN = "scip-python python pkg 0 `pkg.other`/Other#run()."
# What the stand-in reports: the two definitions, Child.run implementing Base.run, a use
# of Base.run (b.run, line 5), of Child.run (line 9), and one the index cannot see (the
# handler's result, line 18); x.run (line 13), which the index answers from the
# annotation, the facts resolve to another class's run: they refute it.
def good(tool: str = "scip-python") -> bytes:
    return scip_index(tool, "9.9.9", FACTS, SYMBOLS)


FACTS = {
    "pkg/base.py": [occurrence(1, 8, BASE_RUN, True, 3), occurrence(6, 8, CHILD_RUN, True, 3)],
    "pkg/use.py": [occurrence(4, 13, BASE_RUN, width=3), occurrence(8, 19, CHILD_RUN, width=3),
                   occurrence(12, 13, OTHER_RUN, width=3), occurrence(17, 21, CHILD_RUN, width=3)],
    "pkg/__init__.py": [],
}
SYMBOLS = {"pkg/base.py": [relationship(CHILD_RUN, BASE_RUN)]}
GOOD = good()


def intel(make_repo: Callable[..., Path], tmp_path: Path, body: str,
          enabled: str = "auto", timeout_s: int = 60) -> CodeIntel:
    need_sandbox()
    tools = fake_python_indexer(tmp_path / "tools", body)
    config = Config(precise=PreciseConfig(enabled=enabled, timeout_s=timeout_s,
                                          tools=str(tools)))
    return CodeIntel(make_repo(FILES), config=config)


def sites(result: object) -> list[tuple[str, int, bool]]:
    return sorted((c.path, c.start_line, c.uncertain) for c in result.results)  # type: ignore[attr-defined]


@pytest.mark.parametrize("tool", ["scip-python", "scip-typescript"])
def test_the_pass_decides_references_and_callers(make_repo: Callable[..., Path],
                                                 tmp_path: Path, tool: str) -> None:
    """scip-python: references per declaration (pyright's); a tool whose language's
    references span the hierarchy (scip-typescript) adds b.run through Child.run's
    relationship to Base.run."""
    ci = intel(make_repo, tmp_path, writes(good(tool)))
    ci.index(precise="off")
    before = ci.references(path="pkg/base.py", line=7)
    assert ("pkg/use.py", 13) in [s[:2] for s in sites(before)]
    assert ("pkg/use.py", 18, False) not in sites(before)
    runs = ci.precise_pass(None, "wait")
    assert [(r.language, r.state, r.files) for r in runs] == [("python", "completed", 3)]
    after = ci.references(path="pkg/base.py", line=7)
    # Child().run and the handler's: certain; x.run gone (Other.run, a member another
    # class declares, related to neither run: not the target, structurally or not);
    # b.run through the hierarchy under scip-typescript.
    lines = [5, 9, 18] if tool == "scip-typescript" else [9, 18]
    assert sites(after) == [("pkg/use.py", n, False) for n in lines]
    assert all(f"{tool} 9.9.9" in c.evidence for c in after.results)
    note = next(n for n in after.coverage.limitations if n.startswith("precise facts"))
    dropped = len([s for s in sites(before) if s[1] not in lines])
    assert f"{dropped} refuted and dropped" in note and dropped >= 1
    assert 13 not in [s[1] for s in sites(after)]
    callers = ci.callers(path="pkg/base.py", line=7)
    expected = [(5, "pkg.use.go", False), (9, "pkg.use.direct", False),
                (18, "pkg.use.alias", False)]
    assert [(c.start_line, c.symbol, c.uncertain) for c in callers.results] == \
        [e for e in expected if e[0] in lines]
    # Base.run's own references are not widened to its overrides' uses.
    base = ci.references(path="pkg/base.py", line=2)
    assert [s[1] for s in sites(base) if not s[2]] == [5]
    if tool == "scip-python":
        assert [s[1] for s in sites(base)] == [5]


def test_a_file_changed_since_the_pass_keeps_the_index_answer(
        make_repo: Callable[..., Path], tmp_path: Path) -> None:
    ci = intel(make_repo, tmp_path, writes(GOOD))
    ci.index(precise="wait")
    use = ci.root / "pkg" / "use.py"
    use.write_text(use.read_text() + "\n# edited after the pass\n")
    out = ci.references(path="pkg/base.py", line=7)
    assert ("pkg/use.py", 13) in [s[:2] for s in sites(out)]
    assert not any(c.evidence.startswith("precise") for c in out.results)
    assert any("changed since the precise facts were made" in n and "pkg/use.py" in n
               for n in out.coverage.limitations)


FAILURES = [
    ("crash", "process.stderr.write('TypeError: cannot read indexOf\\n'); process.exit(3);",
     "failed", "exited with 3: TypeError: cannot read indexOf"),
    ("timeout", "setTimeout(() => {}, 60000);", "timeout", "did not finish within 1 s"),
    ("malformed", "fs.writeFileSync(out, Buffer.from([0xff, 0xff, 0xff]));", "failed",
     "wrote a malformed index"),
    ("nothing", "", "failed", "wrote no index"),
]


@pytest.mark.parametrize(("case", "body", "state", "reason"), FAILURES,
                         ids=[f[0] for f in FAILURES])
def test_a_failed_pass_leaves_the_index_answer_with_a_limitation(
        make_repo: Callable[..., Path], tmp_path: Path, case: str, body: str, state: str,
        reason: str) -> None:
    ci = intel(make_repo, tmp_path, body, timeout_s=1)
    ci.index(precise="off")
    before = sites(ci.references(path="pkg/base.py", line=7))
    runs = ci.precise_pass(None, "wait")
    assert [(r.state, reason in r.error) for r in runs] == [(state, True)], runs
    out = ci.references(path="pkg/base.py", line=7)
    assert sites(out) == before
    assert any(n.startswith(f"precise pass (python, scip-python 9.9.9) {state}")
               and reason in n and "files without fresh precise facts answer from the index" in n
               for n in out.coverage.limitations)
    status = ci.status().results[0]
    assert [(p.language, p.state, reason in p.error) for p in status.precise] == \
        [("python", state, True)]


def test_enabled_true_makes_a_failure_an_error(make_repo: Callable[..., Path],
                                               tmp_path: Path) -> None:
    ci = intel(make_repo, tmp_path, "process.exit(3);", enabled="true")
    with pytest.raises(PreciseFailed, match="python: scip-python exited with 3"):
        ci.index(precise="wait")


def test_a_missing_tool_is_skipped_under_auto_and_an_error_when_required(
        make_repo: Callable[..., Path], tmp_path: Path) -> None:
    empty = tmp_path / "no-tools"
    empty.mkdir()
    ci = CodeIntel(make_repo(FILES), config=Config(precise=PreciseConfig(tools=str(empty))))
    ci.index(precise="wait")
    assert ci.status().results[0].precise == ()  # auto: nothing to run, nothing claimed
    ci.config = Config(precise=PreciseConfig(enabled="true", tools=str(empty)))
    with pytest.raises(PreciseFailed, match="scip-python is not installed under"):
        ci.precise_pass(None, "wait")
    assert [(p.state, p.tool) for p in ci.status().results[0].precise] == \
        [("missing", "scip-python")]


def test_enabled_false_runs_nothing(make_repo: Callable[..., Path], tmp_path: Path) -> None:
    ci = intel(make_repo, tmp_path, writes(GOOD), enabled="false")
    ci.index(precise="wait")
    assert ci.status().results[0].precise == ()
    assert all(c.uncertain or not c.evidence.startswith("precise")
               for c in ci.references(path="pkg/base.py", line=7).results)


def test_a_second_tools_import_reaches_a_running_answerer(
        make_repo: Callable[..., Path], tmp_path: Path) -> None:
    """One pass imports per language into the same snapshot: a long-lived facade (a
    server) answers from the second import as soon as it lands."""
    from spyglass.index import scip
    from spyglass.index.store import connect, latest_complete
    ci = intel(make_repo, tmp_path, writes(GOOD))
    ci.index(precise="wait")
    assert [s[1] for s in sites(ci.references(path="pkg/base.py", line=7))] == [9, 18]
    other = scip_index("other-tool", "1.0", {
        "pkg/base.py": [occurrence(6, 8, CHILD_RUN, True, 3)],
        "pkg/use.py": [occurrence(12, 13, CHILD_RUN, width=3)]})
    (tmp_path / "other.scip").write_bytes(other)
    conn = connect(ci.root)
    try:
        snap = latest_complete(conn)
        assert snap is not None
        scip.import_scip(ci.root, conn, snap.id, tmp_path / "other.scip", 1 << 20,
                         replaces="other-tool")
    finally:
        conn.close()
    out = ci.references(path="pkg/base.py", line=7)
    assert ("pkg/use.py", 13, False) in sites(out)
    assert any("other-tool 1.0" in c.evidence for c in out.results if c.start_line == 13)


CALLER_FILES = {
    "pkg/__init__.py": "",
    "pkg/v.py": ("import typing\n\n\nclass V:\n    @property\n    def post(self) -> int:\n"
                 "        return 1\n\n    @typing.overload\n    def f(self, a: int) -> int: ...\n\n"
                 "    @typing.overload\n    def f(self, a: str) -> str: ...\n\n"
                 "    def f(self, a):\n        return a\n"),
    "pkg/use.py": ("def use(v):\n    x = v.post\n    return v.f(x)\n"),
}
POST = "scip-python python pkg 0 `pkg.v`/V#post()."
F = "scip-python python pkg 0 `pkg.v`/V#f()."
# pyright: `v.post` reads the property (its getter runs: a call), `v.f(x)` calls f; the
# three `def f` lines are one symbol (the overloads), the last one its definition.
CALLER_FACTS = {
    "pkg/v.py": [occurrence(5, 8, POST, True, 4), occurrence(9, 8, F, width=1),
                 occurrence(12, 8, F, width=1), occurrence(14, 8, F, True, 1)],
    "pkg/use.py": [occurrence(1, 10, POST, width=4), occurrence(2, 13, F, width=1)],
    "pkg/__init__.py": [],
}


def test_callers_from_the_facts_count_getter_reads_and_not_overload_declarations(
        make_repo: Callable[..., Path], tmp_path: Path) -> None:
    need_sandbox()
    tools = fake_python_indexer(tmp_path / "tools",
                                writes(scip_index("scip-python", "9.9.9", CALLER_FACTS)))
    ci = CodeIntel(make_repo(CALLER_FILES),
                   config=Config(precise=PreciseConfig(enabled="auto", tools=str(tools),
                                                       timeout_s=60)))
    ci.index(precise="off")
    assert [r.state for r in ci.precise_pass(None, "wait")] == ["completed"]
    post = ci.callers(path="pkg/v.py", line=6, column=9)
    assert [(c.path, c.start_line, c.symbol, c.uncertain) for c in post.results] == [
        ("pkg/use.py", 2, "pkg.use.use", False)]
    f = ci.callers(path="pkg/v.py", line=15, column=9)
    assert [(c.path, c.start_line, c.uncertain) for c in f.results] == [
        ("pkg/use.py", 3, False)]
    # The index matches `v.f(x)` by name (v has no type); the facts make V.f certain.
    callees = ci.callees(path="pkg/use.py", line=1, column=5)
    assert ("pkg/v.py", 15, False) in [(c.path, c.start_line, c.uncertain)
                                       for c in callees.results]
    assert any(n.startswith("precise facts (scip-python 9.9.9)")
               for n in callees.coverage.limitations)


LOCAL_FILES = {
    "setup.py": "",  # the stand-in is scip-python's: the snapshot has a Python file
    "src/base.ts": "export class Base {\n  run(): number { return 1 }\n}\n",
    "src/use.ts": ("import { Base } from './base'\n\nexport function go(change, obj) {\n"
                   "  change.run()\n  obj.run(change.run)\n\n  return new Base().run()\n}\n"),
}
RUN_TS = "scip-typescript npm pkg 0 src/`base.ts`/Base#run()."
LOCAL_FACTS = {
    "src/base.ts": [occurrence(1, 2, RUN_TS, True, 3)],
    "src/use.ts": [occurrence(3, 9, "local 1", width=3),  # change.run: an anonymous member
                   occurrence(4, 17, "local 1", width=3),  # obj.run unresolved beside it
                   occurrence(6, 20, RUN_TS, width=3)],
}


@pytest.mark.parametrize("tool", ["scip-python", "scip-typescript"])
def test_a_member_access_resolved_to_a_local_refutes_the_site(
        make_repo: Callable[..., Path], tmp_path: Path, tool: str) -> None:
    """`change.run` bound by the tool to a local (a member of an anonymous type, which
    is never a declared member's reference, structural typing or not) drops the index's
    site; a line where another use of the name is unresolved (`obj.run`) keeps it."""
    need_sandbox()
    tools = fake_python_indexer(tmp_path / "tools", writes(scip_index(tool, "9.9.9",
                                                                      LOCAL_FACTS)))
    ci = CodeIntel(make_repo(LOCAL_FILES), config=Config(precise=PreciseConfig(
        enabled="auto", timeout_s=60, tools=str(tools))))
    ci.index(precise="off")
    before = sites(ci.references(path="src/base.ts", line=2))
    assert {s[1] for s in before if s[0] == "src/use.ts"} == {4, 5, 7}, before
    ci.precise_pass(None, "wait")
    after = sites(ci.references(path="src/base.ts", line=2))
    assert [s for s in after if s[1] == 5] == [s for s in before if s[1] == 5]
    assert [s for s in after if s[1] != 5] == [("src/use.ts", 7, False)]


SIBLING_RUN = "scip-python python pkg 0 `pkg.other`/Sibling#run()."
OBJECT_RUN = "scip-python python pkg 0 `pkg.other`/handlers.run()."


LITERAL_RUN = "scip-python python pkg 0 `pkg.other`/run0:"  # an object literal's property


@pytest.mark.parametrize(("symbol", "symbols"), [
    (OBJECT_RUN, {}),  # an object's own member: an object literal typed by Child's type
    (SIBLING_RUN, {"pkg/other.py": [relationship(SIBLING_RUN, BASE_RUN)]}),  # Base's too
    # a literal's property the facts use but do not define (`satisfies T`: may be T's)
    (LITERAL_RUN, {}),
], ids=["object-member", "sibling-override", "literal-not-defined"])
def test_under_structural_typing_a_member_that_may_be_the_target_refutes_nothing(
        make_repo: Callable[..., Path], tmp_path: Path, symbol: str,
        symbols: dict[str, list[bytes]]) -> None:
    facts = {**FACTS, "pkg/use.py": [*FACTS["pkg/use.py"][:2], occurrence(12, 13, symbol, width=3),
                                     FACTS["pkg/use.py"][3]],
             "pkg/other.py": []}
    ci = intel(make_repo, tmp_path, writes(scip_index("scip-typescript", "9.9.9", facts,
                                                      {**SYMBOLS, **symbols})))
    ci.index(precise="off")
    before = [s for s in sites(ci.references(path="pkg/base.py", line=7)) if s[1] == 13]
    assert before
    ci.precise_pass(None, "wait")
    after = ci.references(path="pkg/base.py", line=7)
    assert [s for s in sites(after) if s[1] == 13] == before
    assert any("0 refuted and dropped" in n for n in after.coverage.limitations)


def test_under_structural_typing_a_literal_property_the_facts_define_refutes(
        make_repo: Callable[..., Path], tmp_path: Path) -> None:
    """scip-typescript names the property of a literal a type types by that type's
    member; one it defines under its own name (`run0:`, the object an untyped function
    returns) is no declared member's: `x.run` resolved to it drops the index's site."""
    facts = {**FACTS, "pkg/use.py": [*FACTS["pkg/use.py"][:2],
                                     occurrence(12, 13, LITERAL_RUN, width=3),
                                     FACTS["pkg/use.py"][3]],
             "pkg/__init__.py": [occurrence(0, 0, LITERAL_RUN, True, 3)]}
    ci = intel(make_repo, tmp_path, writes(scip_index("scip-typescript", "9.9.9", facts,
                                                      SYMBOLS)))
    ci.index(precise="off")
    assert [s for s in sites(ci.references(path="pkg/base.py", line=7)) if s[1] == 13]
    ci.precise_pass(None, "wait")
    after = ci.references(path="pkg/base.py", line=7)
    assert [s for s in sites(after) if s[1] == 13] == []
    assert any("1 refuted and dropped" in n for n in after.coverage.limitations)
