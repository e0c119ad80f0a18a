"""Callers around a syntax error: certain where the error provably leaves the enclosing
definition whole (fixture c/callers_type_argument_error), flagged where it may not."""

from __future__ import annotations

from pathlib import Path

from fixture import parse_fixture

from spyglass.query.facade import CodeIntel

FIXTURE = Path(__file__).parent / "fixtures" / "c" / "callers_type_argument_error.fixture"


def test_an_error_without_braces_leaves_its_function_the_caller(tmp_path: Path) -> None:
    fx = parse_fixture(FIXTURE.read_text(encoding="utf-8"))
    fx.write(tmp_path)
    ci = CodeIntel(tmp_path)
    ci.index()
    assert fx.cursor
    path, line, col = fx.cursor
    result = ci.callers(path=path, line=line, column=col)
    flags = {r.start_line: r.uncertain for r in result.results}  # type: ignore[attr-defined]
    # a type as an argument (`va_arg(ap, char *)`, `SIZE_TEST("d", int)`): no brace in the
    # error, the function's braces stand, so the caller is proven
    assert flags[11] is False and flags[15] is False and flags[23] is False
    # an error holding braces may have moved the function's end: not proven
    assert flags[31] is True
    assert flags[39] is False
