"""Change impact on Python: chains, cycles, depth, uncertainty, test mapping, commands, budget."""

from __future__ import annotations

from pathlib import Path

import pytest
from impact_fixture import check

LIBRARY = '''
#- pyproject.toml
[tool.pytest.ini_options]
testpaths = ["tests"]
#- pkg/__init__.py
#- pkg/a.py
def f():
    return 1$0


class K:
    def m(self):
        return 2
#- pkg/b.py
from pkg.a import f, K


def g():
    return f() + 1


def h(x):
    return x.m()
#- pkg/c.py
from pkg.b import g


def top():
    return g()
#- tests/test_c.py
from pkg.c import top


def test_top():
    assert top() == 2


class TestTop:
    def test_again(self):
        assert top()
'''

CASES = {
    "chain by distance, evidence names each edge": LIBRARY + '''
#? blast-radius $0
0 pkg.a.f | distance 0: changed (target pkg/a.py:2; lines 2)
1 pkg.b.g | pkg.b.g calls pkg.a.f at pkg/b.py:5
2 pkg.c.top | pkg.c.top calls pkg.b.g at pkg/c.py:5; pkg.b.g calls pkg.a.f at pkg/b.py:5
3 test_c.test_top | test_c.test_top calls pkg.c.top at tests/test_c.py:5
3 test_c.TestTop.test_again
files: pkg/a.py pkg/b.py pkg/c.py tests/test_c.py
''',
    "depth limits the walk": LIBRARY + '''
#? blast-radius pkg.a.f --depth 1
0 pkg.a.f
1 pkg.b.g
#? blast-radius pkg.a.f --depth 0
0 pkg.a.f
#? blast-radius pkg.a.f --depth 11
error: depth must be between 0 and 10
''',
    "name-matched edges are uncertain and say why": LIBRARY + '''
#? blast-radius pkg/a.py:7
0 pkg.a.K.m
1 pkg.b.h ? | name match: receiver type unknown; 1 definition(s) named 'm'
''',
    "tests by reference, with node ids and one pytest command": LIBRARY + '''
#? tests pkg/a.py:2
tests/test_c.py::test_top reference
tests/test_c.py::TestTop.test_again reference | test_c.TestTop.test_again calls pkg.c.top
$ pytest tests/test_c.py::test_top tests/test_c.py::TestTop::test_again
''',
    "cycles end": '''
#- pkg/__init__.py
#- pkg/loop.py
def ping(n):
    return pong(n - 1) if n else 0


def pong(n):
    return ping(n)
#- pkg/user.py
from pkg.loop import ping


def run():
    return ping(3)
#? blast-radius pkg.loop.ping --depth 10
0 pkg.loop.ping
1 pkg.loop.pong
1 pkg.user.run
''',
    "inferred bindings and subclasses": '''
#- shapes.py
class Shape:
    def area(self):
        return 0


class Square(Shape):
    def side(self):
        return self.area()
#- use.py
from shapes import Square


def total(items):
    s = Square()
    return s.area()
#? blast-radius shapes.Shape.area --depth 2
0 shapes.Shape.area
1 shapes.Square.side
1 use.total | use.total calls shapes.Shape.area at use.py:6
#? blast-radius shapes.Shape --depth 1
0 shapes.Shape
0 shapes.Shape.area
1 shapes.Square | shapes.Square subclasses shapes.Shape at shapes.py:6
1 shapes.Square.side
1 use.total
''',
    "tests by naming convention and by package": '''
#- lib/parser.py
def parse(text):
    return text.split()
#- lib/other.py
def other():
    return 1
#- lib/test_local.py
def test_local():
    pass
#- tests/test_parser.py
def test_nothing_imported():
    pass
#- tests/parser_test.py
def test_more():
    pass
#? tests lib/parser.py
tests/parser_test.py convention ?
tests/test_parser.py convention ? | naming convention: lib/parser.py ↔ tests/test_parser.py
lib/test_local.py package ? | same package as lib/parser.py
$ pytest tests/parser_test.py tests/test_parser.py lib/test_local.py
''',
    # A test using the changed symbol itself ranks first; after it, naming conventions and
    # transitive users by weight (a convention match outweighs a chain of two edges).
    "tests using the changed symbol directly rank before convention and transitive ones": '''
#- lib/__init__.py
#- lib/parser.py
def parse(text):
    return text.split()


def words(text):
    return len(parse(text))
#- lib/report.py
from lib.parser import words


def summary(text):
    return words(text)
#- tests/test_parser.py
def test_nothing_imported():
    pass
#- tests/test_report.py
from lib.report import summary


def test_summary():
    assert summary("a b") == 2
#- tests/test_words.py
from lib.parser import words


def test_words():
    assert words("a b") == 2
#? tests lib/parser.py:6
tests/test_words.py::test_words reference | distance 1
tests/test_parser.py convention ? | naming convention: lib/parser.py ↔ tests/test_parser.py
tests/test_report.py::test_summary reference | distance 2
$ pytest tests/test_words.py::test_words tests/test_parser.py tests/test_report.py::test_summary
#? tests lib/parser.py:1
tests/test_parser.py convention ? | naming convention: lib/parser.py ↔ tests/test_parser.py
tests/test_words.py::test_words reference | distance 2
tests/test_report.py::test_summary reference | distance 3
$ pytest tests/test_parser.py tests/test_words.py::test_words tests/test_report.py::test_summary
''',
    # A test file named for a word of the changed file's name, which no naming convention
    # pairs (`http_headers.py`, `test_headers.py`): listed by the shared word, a file
    # named for that word alone first, a shorter form of a word counting too (`header`, at
    # least 5 letters: not `head`); one sharing no word (test_lib_cookies.py) is not.
    "test files sharing a word of the changed file's name": '''
#- lib/http_headers.py
def fold(name):
    return name.lower()
#- tests/test_headers.py
CASES = ["a", "b"]
#- tests/test_headers_extra.py
CASES = ["c"]
#- tests/test_lib_cookies.py
CASES = ["d"]
#- tests/test_header.py
CASES = ["e"]
#- tests/test_head.py
CASES = ["f"]
#? tests lib/http_headers.py
tests/test_header.py name ? | file names share the word 'headers' ('header'): lib/http_headers.py and tests/test_header.py
tests/test_headers.py name ? | file names share the word 'headers': lib/http_headers.py and tests/test_headers.py
tests/test_headers_extra.py name ?
$ pytest tests/test_header.py tests/test_headers.py tests/test_headers_extra.py
''',
    # A module import swapped for another bound to the same name is a dependency swap:
    # the tests importing either package rank first; `from a import x` becoming
    # `from b import x` moves a name, not a package, and says nothing of a's importers.
    "a swapped module import, and a moved name that is none": '''
#- lib/codec.py
import json
from lib.old_helpers import quote


def dump(v):
    return quote(json.dumps(v))
#- lib/old_helpers.py
def quote(s):
    return s
#- lib/new_helpers.py
def quote(s):
    return s
#- tests/test_config.py
import simplejson


def test_load():
    assert simplejson.loads("1") == 1
#- tests/test_helpers.py
from lib.old_helpers import quote


def test_quote():
    assert quote("a") == "a"
#~ lib/codec.py
import simplejson as json
from lib.new_helpers import quote


def dump(v):
    return quote(json.dumps(v))
#? tests lib/codec.py
tests/test_config.py import ? | lib/codec.py swaps its import of 'json' for 'simplejson'
$ pytest tests/test_config.py
''',
    # A definition standing in for one defined outside the repository (a method overriding
    # an outside base class's, a function of a module named like the outside module it
    # imports from) has no definition to walk to: test files naming the outside one (a
    # test pinning the upstream code the change adapts) rank with the uncertain direct
    # users. An outside method not overridden, a same-named function of a module with
    # another name, and a test naming only the base class say nothing of the change.
    "tests naming the outside definition a changed one stands in for": '''
#- aio/__init__.py
#- aio/parsers.py
from upstream.parsers import Parser, helper


class AioParser(Parser):
    async def parse(self, data):
        return helper(data)$0


async def create(kind):
    return AioParser()
#- tests/test_patches.py
import pytest
from upstream.parsers import Parser, create
from upstream.other import Parser as OtherParser

PINNED = [create, OtherParser.parse]


@pytest.mark.parametrize("obj", [Parser.parse, Parser.close])
def test_pinned(obj):
    assert obj


def test_unrelated():
    assert Parser.close


def test_parse_pinned():
    assert Parser.parse
#- tests/test_other.py
from upstream.misc import create
from upstream.parsers import Parser


def test_misc():
    assert create and Parser.close and Parser
#~ aio/parsers.py
from upstream.parsers import Parser, helper


class AioParser(Parser):
    async def parse(self, data):
        return helper(data) or data


async def create(kind):
    return AioParser(kind)
#? tests $0
tests/test_patches.py::test_parse_pinned upstream ? | tests/test_patches.py:18 names upstream.parsers.Parser.parse, which the changed aio.parsers.AioParser.parse stands in for
$ pytest tests/test_patches.py::test_parse_pinned
#? tests aio/parsers.py:10-11
tests/test_patches.py upstream ? | tests/test_patches.py:2 names upstream.parsers.create, which the changed aio.parsers.create stands in for
$ pytest tests/test_patches.py
''',
    "pytest fixtures in conftest reach tests by parameter name": '''
#- app.py
def make():
    return {"ok": True}
#- tests/conftest.py
import pytest
from app import make


@pytest.fixture
def client():
    return make()
#- tests/test_api.py
def test_get(client):
    assert client.get("ok")


def test_other():
    assert True
#? tests app.make
tests/test_api.py::test_get fixture ? | test_get uses fixture 'client'
$ pytest tests/test_api.py::test_get
''',
    "workspace changes by default, with removed definitions": '''
#- svc.py
def keep():
    return 1


def gone():
    return 2
#- main.py
from svc import gone, keep


def run():
    return gone() + keep()
#~ svc.py
def keep():
    return 1
#? blast-radius
0 svc.gone | definition removed
1 main.run | main.run calls svc.gone at main.py:5
''',
    "a deleted file: its definitions' users": '''
#- old.py
def legacy():
    return 1
#- user.py
from old import legacy


def call():
    return legacy()
#x old.py
#? blast-radius
0 old.legacy | deleted; definition removed
1 user.call | user.call calls old.legacy at user.py:5
#? blast-radius old.py
0 old.legacy
1 user.call
''',
    "no changes: empty, with a note": '''
#- a.py
def f():
    return 1
#? blast-radius
''',
    "explore cites diagnostics, never source": '''
#- broken.py
def parse_header(data):
    return data.split(":")


def parse_body(data):
    return [x for x in data if (]
#? explore parse --budget 500
''',
    "a diff range: changed lines only": '''
#- m.py
def one():
    return 1


def two():
    return 2
#- use.py
from m import one, two


def a():
    return one()


def b():
    return two()
#+ m.py
def one():
    return 1


def two():
    return 22
#? blast-radius --diff HEAD~1
0 m.two | changed in git diff HEAD~1
1 use.b
#? blast-radius --diff no-such-rev
error: --diff 'no-such-rev' does not resolve
#? blast-radius --diff --output=x
error: --diff wants a git revision
''',
    "module-level changes list importing files, flagged": '''
#- conf.py
import os

LIMIT = 3
#- reader.py
import conf


def read():
    return conf.LIMIT
#~ conf.py
import os
import sys

LIMIT = 3
#? blast-radius
0 conf
1 reader ? | module-level change
''',
    "same-file rule: the other definitions of a changed file are said to share it, not to change": '''
#- calc/__init__.py
#- calc/ops.py
def add(a, b):
    return a + b


def mul(a, b):
    return a * b
#- tests/test_calc.py
from calc.ops import add, mul


def test_add():
    assert add(1, 2) == 3


def test_mul():
    assert mul(2, 3) == 6
#~ calc/ops.py
def add(a, b):
    return b + a


def mul(a, b):
    return a * b
#? tests
tests/test_calc.py::test_add reference | calc.ops.add changed
tests/test_calc.py::test_mul same-file | calc.ops.mul is in a changed file (calc/ops.py
$ pytest tests/test_calc.py::test_add tests/test_calc.py::test_mul
''',
    "bad input": LIBRARY + '''
#? blast-radius nosuch_symbol
error: no definition named 'nosuch_symbol'
#? tests ../outside.py
error: outside the repository root
#? blast-radius pkg/missing.py
error: no such file
#? blast-radius pkg/a.py:9-3
error: START <= END
''',
    "explore: names, centrality, budget, no source": LIBRARY + '''
#? explore top --budget 400
pkg.c.top
#? explore pkg/b.py --budget 300
pkg.b.g
#? explore function f in a --budget 250
pkg.a.f
#? explore g --budget 100
error: budget must be between
''',
}


@pytest.mark.parametrize("name", list(CASES))
def test_python_impact(name: str, tmp_path: Path) -> None:
    check(CASES[name], tmp_path / "repo")


def test_explore_cites_callers_at_the_call_and_callees_at_their_definition(
        tmp_path: Path) -> None:
    from impact_fixture import build, parse

    ci = build(parse(LIBRARY), tmp_path / "repo")
    symbols = dict(ci.explore("g", budget=2000).extra)["symbols"]
    (g,) = [s for s in symbols if s.symbol == "pkg.b.g"]  # type: ignore[attr-defined]
    assert [(c.path, c.line) for c in g.callees] == [("pkg/a.py", 1)]
    assert ("pkg/c.py", 5) in {(c.path, c.line) for c in g.callers}
