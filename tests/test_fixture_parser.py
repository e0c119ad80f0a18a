"""The fixture parser itself: a fixture that would assert nothing is an error, not a pass."""

from __future__ import annotations

import pytest
from fixture import CHECK_WORDS, FLAG_WORDS, FixtureError, parse_fixture
from test_fixtures import CHECKS, UNCERTAIN

GOOD = """
#! references callers
#- pkg/a.py
def hel$0per(): ...
#- pkg/b.py
from pkg.a import helper
helper()
# <- call
"""


def test_a_well_formed_fixture_parses() -> None:
    fx = parse_fixture(GOOD)
    assert fx.checks == ("references", "callers")
    assert set(fx.files) == {"pkg/a.py", "pkg/b.py"}
    assert fx.cursor == ("pkg/a.py", 1, 8)
    assert [(e.path, e.line, e.words) for e in fx.expects] == [("pkg/b.py", 2, ("call",))]


@pytest.mark.parametrize("first", ["#! referencse", "#! references caller", "#! definitions al"])
def test_an_unknown_check_word_is_an_error(first: str) -> None:
    text = GOOD.replace("#! references callers", first)
    with pytest.raises(FixtureError, match="unknown check word") as info:
        parse_fixture(text)
    assert "line 2" in str(info.value)  # GOOD starts with one blank line


def test_a_missing_or_empty_check_line_is_an_error() -> None:
    with pytest.raises(FixtureError, match="starts with '#! CHECK"):
        parse_fixture(GOOD.replace("#! references callers\n", ""))
    with pytest.raises(FixtureError, match="names no check"):
        parse_fixture(GOOD.replace("#! references callers", "#! all"))


def test_text_before_the_first_file_is_an_error() -> None:
    text = GOOD.replace("#- pkg/a.py\n", "def stray(): ...\n#- pkg/a.py\n", 1)
    with pytest.raises(FixtureError, match=r"line 3: text before the first '#- path'"):
        parse_fixture(text)
    with pytest.raises(FixtureError, match="names no file"):
        parse_fixture(GOOD.replace("#- pkg/a.py", "#- ", 1))


def test_blank_lines_before_the_first_file_are_allowed() -> None:
    fx = parse_fixture(GOOD.replace("#- pkg/a.py", "\n\n#- pkg/a.py", 1))
    assert set(fx.files) == {"pkg/a.py", "pkg/b.py"}


def test_every_check_word_has_a_check() -> None:
    assert set(CHECKS) | {"all"} == CHECK_WORDS


@pytest.mark.parametrize(("marker", "message"), [
    ("# <- cal", "a marker starts with one of"),
    ("# <- call uncertian", "unknown marker flag"),
    ("# <- def func", "'def' needs 2 more word"),
    ("# <-", "a marker starts with one of"),
])
def test_a_marker_with_unknown_words_is_an_error(marker: str, message: str) -> None:
    with pytest.raises(FixtureError, match=message) as info:
        parse_fixture(GOOD.replace("# <- call", marker))
    assert "line 8" in str(info.value)


def test_marker_flags_include_those_the_checks_read() -> None:
    assert UNCERTAIN <= FLAG_WORDS
