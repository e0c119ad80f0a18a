"""Runs every fixture under tests/fixtures/: adding a case is adding a fixture file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from accounting_check import assert_accounted
from fixture import RELATION_WORDS, ROLE_WORDS, Expect, Fixture, parse_fixture

from spyglass.query.facade import CodeIntel

FIXTURES = sorted((Path(__file__).parent / "fixtures").rglob("*.fixture"))


def _expects(fx: Fixture, *first_words: str) -> list[Expect]:
    return [e for e in fx.expects if e.words and e.words[0] in first_words]


def check_references(fx: Fixture, ci: CodeIntel) -> None:
    assert fx.cursor, "references fixtures need a $0 cursor"
    path, line, col = fx.cursor
    result = ci.references(path=path, line=line, column=col)
    expects = _expects(fx, *ROLE_WORDS)
    want = {(e.path, e.line, e.words[0], bool(UNCERTAIN & set(e.words))) for e in expects}
    got = {(r.path, r.start_line, r.kind, r.uncertain) for r in result.results}  # type: ignore[attr-defined]
    assert got == want
    for r in result.results:
        if r.uncertain:  # type: ignore[attr-defined]
            assert r.evidence, "an uncertain result must say why"  # type: ignore[attr-defined]
    check_confidence(expects, result.results)
    check_unlisted(_expects(fx, "unlisted"), result.coverage.limitations)
    assert_accounted(ci, result, path, line, col, calls=False)
    # The exact-only parameter returns exactly the sites not marked uncertain.
    exact = ci.references(path=path, line=line, column=col, exact_only=True)
    assert {(r.path, r.start_line, r.kind) for r in exact.results} == {  # type: ignore[attr-defined]
        (p, ln, k) for p, ln, k, unsure in want if not unsure}
    assert not [n for n in exact.coverage.limitations if "not listed" in n]


# `unlisted`: a name-matched site on a parameter without a type annotation, left out of
# the answer but counted in its limitations (`unlisted caller`: in the callers answer too).
UNLISTED = re.compile(r"^(\d+) \w+\(s\) of `\.\w+` on parameters .* not listed.*\((.*)\)$")


def check_unlisted(expects: list[Expect], limitations: tuple[str, ...]) -> None:
    sites = {(e.path, e.line) for e in expects}
    count = 0
    shown: set[tuple[str, int]] = set()
    for note in limitations:
        m = UNLISTED.match(note)
        if m:
            count += int(m.group(1))
            for site in m.group(2).split(", "):
                if site != "...":
                    p, _, ln = site.rpartition(":")
                    shown.add((p, int(ln)))
    assert count == len(sites), limitations
    assert shown <= sites, limitations


# Words after a site's role: `uncertain` (any class), or the class itself. `inferred`: one
# binding guessed by a rule (a unique name, a receiver type); the evidence names the rule.
# `ambiguous`: several candidates (definitions, or a receiver of unknown type matched by
# name); the evidence names them.
UNCERTAIN = {"uncertain", "inferred", "ambiguous", "matched"}


def check_confidence(expects: list[Expect], results: tuple[object, ...]) -> None:
    by_site = {(r.path, r.start_line): r for r in results}  # type: ignore[attr-defined]
    for e in expects:
        r = by_site.get((e.path, e.line))
        assert r is not None
        evidence = r.evidence or ""  # type: ignore[attr-defined]
        if "inferred" in e.words:
            assert evidence.startswith("inferred"), (e, evidence)
        if "ambiguous" in e.words:
            assert "candidate" in evidence or "matched by name" in evidence, (e, evidence)
        if "matched" in e.words:  # ambiguous: a name-matched candidate
            assert "matched by name" in evidence, (e, evidence)


def check_callers(fx: Fixture, ci: CodeIntel) -> None:
    assert fx.cursor, "callers fixtures need a $0 cursor"
    path, line, col = fx.cursor
    result = ci.callers(path=path, line=line, column=col)
    want = {(e.path, e.line, e.words[1]) for e in _expects(fx, "caller")}
    got = {(r.path, r.start_line, r.symbol) for r in result.results}  # type: ignore[attr-defined]
    assert {(p, ln, s.split(".")[-1]) for p, ln, s in got} == {
        (p, ln, s.split(".")[-1]) for p, ln, s in want}, got
    check_unlisted([e for e in _expects(fx, "unlisted") if "caller" in e.words],
                   result.coverage.limitations)
    assert_accounted(ci, result, path, line, col, calls=True)


def _flags_hold(e: Expect, r: object) -> None:
    """The evidence of a callee or hierarchy row says what its marker's flags say."""
    evidence = r.evidence or ""  # type: ignore[attr-defined]
    if r.uncertain:  # type: ignore[attr-defined]
        assert evidence, "an uncertain result must say why"
    if "inferred" in e.words:
        assert "inferred" in evidence, (e, evidence)
    if "matched" in e.words:
        assert "matched by name" in evidence, (e, evidence)


def check_callees(fx: Fixture, ci: CodeIntel) -> None:
    """`callee [flags]` markers on the definitions the cursor's function calls: exactly
    those, uncertain where flagged; the exact-only answer drops the uncertain ones."""
    assert fx.cursor, "callees fixtures need a $0 cursor"
    path, line, col = fx.cursor
    result = ci.callees(path=path, line=line, column=col)
    expects = _expects(fx, "callee")
    want = {(e.path, e.line, bool(UNCERTAIN & set(e.words))) for e in expects}
    got = {(r.path, r.start_line, r.uncertain) for r in result.results}  # type: ignore[attr-defined]
    assert got == want, result.results
    by_site = {(r.path, r.start_line): r for r in result.results}  # type: ignore[attr-defined]
    for e in expects:
        _flags_hold(e, by_site[(e.path, e.line)])
    exact = ci.callees(path=path, line=line, column=col, exact_only=True)
    assert {(r.path, r.start_line) for r in exact.results} == {  # type: ignore[attr-defined]
        (p, ln) for p, ln, unsure in want if not unsure}


def check_hierarchy(fx: Fixture, ci: CodeIntel) -> None:
    """Relation markers (`supertype`, `subtype`, `overridden`, `overriding`) on the
    definitions related to the cursor's: exactly those, each row's evidence naming its
    relation first, uncertain where flagged (structural satisfaction)."""
    assert fx.cursor, "hierarchy fixtures need a $0 cursor"
    path, line, col = fx.cursor
    result = ci.type_hierarchy(path=path, line=line, column=col)
    expects = _expects(fx, *RELATION_WORDS)
    want = {(e.path, e.line, e.words[0], bool(UNCERTAIN & set(e.words))) for e in expects}
    got = {(r.path, r.start_line, r.evidence.split(":")[0], r.uncertain)  # type: ignore[attr-defined]
           for r in result.results}
    assert got == want, result.results
    by_site = {(r.path, r.start_line): r for r in result.results}  # type: ignore[attr-defined]
    for e in expects:
        _flags_hold(e, by_site[(e.path, e.line)])


def check_definitions(fx: Fixture, ci: CodeIntel) -> None:
    want = {(e.path, e.line, e.words[1], e.words[2]) for e in _expects(fx, "def")}
    got: set[tuple[str, int, str, str]] = set()
    for path in fx.files:
        for r in ci.structure(path).results:
            got.add((r.path, r.start_line if r.kind else 0, r.kind, r.symbol))  # type: ignore[attr-defined]
    # Compare on the definition's first line, kind and the qualified-name tail it states.
    for path, line, kind, qual in want:
        matches = [g for g in got if g[0] == path and g[2] == kind and (
            g[3] == qual or g[3].endswith("." + qual)) and g[1] == line]
        assert matches, f"missing definition {kind} {qual} at {path}:{line}; got {sorted(got)}"
    if "all" in fx.checks:
        assert len(got) == len(want), sorted(got)


def check_diagnostics(fx: Fixture, ci: CodeIntel) -> None:
    want = {(e.path, e.line) for e in _expects(fx, "error")}
    result = ci.diagnostics(list(fx.files))
    got = {(r.path, r.start_line) for r in result.results}  # type: ignore[attr-defined]
    assert want <= got, got
    assert all(p in fx.files for p, _ in got)


CHECKS = {"references": check_references, "callers": check_callers,
          "callees": check_callees, "hierarchy": check_hierarchy,
          "definitions": check_definitions, "diagnostics": check_diagnostics}


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(p.parents[1])) for p in FIXTURES])
def test_fixture(path: Path, tmp_path: Path) -> None:
    fx = parse_fixture(path.read_text(encoding="utf-8"))
    assert fx.checks, f"{path}: first line must be '#! CHECK ...'"
    fx.write(tmp_path)
    ci = CodeIntel(tmp_path)
    ci.index()
    for check in fx.checks:
        if check != "all":  # the parser refuses any other word: each one runs a check
            CHECKS[check](fx, ci)
