"""Change-impact fixtures: several files, later edits, and queries with their expected answers.

Format::

    #@ bump the pin          an earlier commit (history before the first one), its subject
    #h pkg/v.py              a file of that earlier commit (files persist into later ones)
    #- pkg/a.py              a file of the first commit (the one indexed)
    def f$0(): ...           `$0` marks a cursor; `$0` in a query becomes PATH:LINE
    #+ pkg/a.py              the file in a second commit, made after indexing
    #~ pkg/a.py              the file in the working tree only (uncommitted)
    #x pkg/a.py              the file deleted from the working tree
    #? blast-radius $0 --depth 2
    0 pkg.a.f                distance, symbol, `?` when uncertain; `| text` = evidence holds text
    files: pkg/a.py pkg/b.py affected files, by distance
    #? tests pkg/a.py
    tests/test_a.py::test_f reference     target, reason, `?` when uncertain
    $ pytest tests/test_a.py::test_f      the grouped command of a framework
    #? explore helper --budget 300
    pkg.a.helper             the first results, in order (a prefix of the answer)
    #? blast-radius nosuch
    error: no definition named           the error message holds this text

Every explore answer is also checked against its token budget and for source text.
"""

from __future__ import annotations

import json
import math
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from fixture import commit_all, write_files

from spyglass.errors import SpyglassError
from spyglass.query import changes
from spyglass.query.facade import CodeIntel
from spyglass.query.results import TestFile, TestTarget
from spyglass.types import ToolResult
from spyglass.wire import result_json


@dataclass
class Query:
    line: str
    expected: list[str] = field(default_factory=list)


@dataclass
class ImpactFixture:
    first: dict[str, str] = field(default_factory=dict)
    second: dict[str, str] = field(default_factory=dict)
    history: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    working: dict[str, str] = field(default_factory=dict)
    deleted: list[str] = field(default_factory=list)
    cursor: str | None = None
    queries: list[Query] = field(default_factory=list)


def parse(text: str) -> ImpactFixture:
    fx = ImpactFixture()
    target: dict[str, str] | None = None
    path = ""
    body: list[str] = []

    def flush() -> None:
        if target is not None:
            target[path] = "\n".join(body) + "\n"
    for raw in text.strip("\n").splitlines():
        head = raw[:3]
        if head == "#@ ":
            flush()
            target = None
            fx.history.append((raw[3:].strip(), {}))
        elif head == "#h ":
            flush()
            target = fx.history[-1][1]
            path, body = raw[3:].strip(), []
        elif head in ("#- ", "#+ ", "#~ "):
            flush()
            target = {"#- ": fx.first, "#+ ": fx.second, "#~ ": fx.working}[head]
            path, body = raw[3:].strip(), []
        elif head == "#x ":
            flush()
            target = None
            fx.deleted.append(raw[3:].strip())
        elif head == "#? ":
            flush()
            target = None
            fx.queries.append(Query(raw[3:].strip()))
        elif target is not None:
            if "$0" in raw:
                fx.cursor = f"{path}:{len(body) + 1}"
                raw = raw.replace("$0", "", 1)
            body.append(raw)
        elif fx.queries and raw.strip():
            fx.queries[-1].expected.append(raw.strip())
    flush()
    return fx


def build(fx: ImpactFixture, root: Path) -> CodeIntel:
    root.mkdir(parents=True, exist_ok=True)
    for message, earlier in fx.history:
        write_files(root, earlier)
        commit_all(root, message)
    for files in (fx.first,):
        write_files(root, files)
    commit_all(root, "first")
    ci = CodeIntel(root)
    ci.index()
    if fx.second:
        write_files(root, fx.second)
        commit_all(root, "second")
    write_files(root, fx.working)
    for path in fx.deleted:
        (root / path).unlink()
    return CodeIntel(root)


def run(ci: CodeIntel, line: str, cursor: str | None) -> tuple[list[str], ToolResult | None]:
    """Answer one query line as the lines the fixture format expects."""
    argv = shlex.split(line.replace("$0", cursor or "$0"))
    command, rest = argv[0], argv[1:]
    opts: dict[str, str] = {}
    args: list[str] = []
    while rest:
        word = rest.pop(0)
        if word.startswith("--"):
            opts[word[2:]] = rest.pop(0)
        else:
            args.append(word)
    try:
        if command == "explore":
            result = ci.explore(" ".join(args), int(opts.get("budget", "2000")),
                                opts.get("path"))
            return explore_lines(result), result
        depth = int(opts.get("depth", "3"))
        if command == "blast-radius":
            result = ci.blast_radius(args, opts.get("diff"), depth)
            return radius_lines(result), result
        result = ci.suggest_tests(args, opts.get("diff"), depth)
        with ci.lock:  # each test with its own evidence, as ranked before grouping by file
            targets = changes.test_plan(ci.answer(), args, opts.get("diff"), depth)[2].targets
        return test_lines(result, targets), result
    except SpyglassError as exc:
        return [f"error: {exc}"], None


def _extra(result: ToolResult, name: str) -> object:
    return dict(result.extra).get(name)


def radius_lines(result: ToolResult) -> list[str]:
    out = []
    for loc in result.results:
        distance = loc.evidence.split(":", 1)[0].removeprefix("distance ")  # type: ignore[attr-defined]
        mark = " ?" if loc.uncertain else ""  # type: ignore[attr-defined]
        out.append(f"{distance} {loc.symbol}{mark} | {loc.evidence}")  # type: ignore[attr-defined]
    files = _extra(result, "files") or ()
    out.append("files: " + " ".join(f.path for f in files))  # type: ignore[attr-defined]
    if result.truncated:
        out.append("truncated")
    return out


def test_lines(result: ToolResult, targets: tuple[TestTarget, ...]) -> list[str]:
    """Each test target with its reason and evidence, then the commands; the answer's test
    files must be the targets' files in their order, each with its targets' test ids."""
    out = []
    for t in targets:
        name = f"{t.path}::{t.symbol}" if t.symbol else t.path
        out.append(f"{name} {t.reason}{' ?' if t.uncertain else ''} | {t.evidence}")
    files = [f for f in result.results if isinstance(f, TestFile)]
    assert [f.path for f in files] == list(dict.fromkeys(t.path for t in targets))
    for f in files:
        assert f.tests == tuple(t.symbol for t in targets if t.path == f.path and t.symbol)
    for c in _extra(result, "commands") or ():  # type: ignore[attr-defined]
        out.append(f"$ {c.command}")
    return out


def explore_lines(result: ToolResult) -> list[str]:
    return [f"{loc.symbol} | {loc.evidence}" for loc in result.results]  # type: ignore[attr-defined]


def tokens(result: ToolResult) -> int:
    body = result_json(result)
    parts = {"results": body["results"], **{k: body[k] for k, _ in result.extra}}
    return sum(math.ceil(len(json.dumps(v, separators=(",", ":"), ensure_ascii=False)) / 4)
               for v in parts.values())


def compare(query: Query, actual: list[str], result: ToolResult | None) -> list[str]:
    """Mismatches between expected and actual lines ([] when they agree)."""
    problems: list[str] = []
    expected = query.expected
    if query.line.startswith("explore"):
        heads = [a.split(" | ")[0] for a in actual]
        if heads[:len(expected)] != [e.split(" | ")[0] for e in expected] and not (
                expected and expected[0].startswith("error:")):
            problems.append(f"first results {heads[:len(expected)]} != {expected}")
    if expected and expected[0].startswith("error:"):
        if not actual or not actual[0].startswith("error:") or \
                expected[0][6:].strip() not in actual[0]:
            problems.append(f"expected {expected[0]!r}, got {actual[:1]}")
        return problems
    if query.line.startswith("explore"):
        return problems
    heads = [a.split(" | ")[0] for a in actual]
    want = [e.split(" | ")[0] for e in expected]
    if not any(w.startswith("files:") for w in want):
        heads = [h for h in heads if not h.startswith("files:")]
    if heads != want:
        problems.append("lines differ:\n  expected:\n    " + "\n    ".join(want)
                        + "\n  actual:\n    " + "\n    ".join(heads))
    for e in expected:
        if " | " in e:
            head, needle = e.split(" | ", 1)
            line = next((a for a in actual if a.split(" | ")[0] == head), "")
            if needle not in line:
                problems.append(f"{head}: evidence lacks {needle!r}: {line}")
    return problems


def check(text: str, root: Path) -> None:
    fx = parse(text)
    ci = build(fx, root)
    problems: list[str] = []
    for q in fx.queries:
        actual, result = run(ci, q.line, fx.cursor)
        for p in compare(q, actual, result):
            problems.append(f"#? {q.line}\n{p}")
        if result is not None and q.line.startswith("explore"):
            budget = int(shlex.split(q.line).pop(shlex.split(q.line).index("--budget") + 1)) \
                if "--budget" in q.line else 2000
            used = tokens(result)
            if used > budget:
                problems.append(f"#? {q.line}\nanswer uses {used} tokens > budget {budget}")
            dumped = json.dumps(result_json(result))
            for body in list(fx.first.values()) + list(fx.working.values()):
                for src_line in body.splitlines():
                    s = src_line.strip()
                    if len(s) > 12 and s in dumped:
                        problems.append(f"#? {q.line}\nsource text in the answer: {s!r}")
    assert not problems, "\n\n".join(problems)
