"""An alias closure stops growing once its names have more sites than an answer can list:
the nearest uses are listed first, and the answer says that farther ones are not."""

from __future__ import annotations

from pathlib import Path

import pytest
from pgstore import store_backend  # noqa: F401 - the fixture, run on both stores

from spyglass.query import closure
from spyglass.query import symbols as sym
from spyglass.query.facade import CodeIntel

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite, then PostgreSQL

N = 120  # macros naming `f` (more than closure.BUDGET_CHECK_NAMES)


def _repo(make_repo: object) -> Path:
    header = "int f(int x);\n" + "".join(f"#define M{i}(x) f(x)\n" for i in range(N)) \
        + "".join(f"#define N{i}(x) M{i}(x)\n" for i in range(N))
    uses = "".join(f"\tM{i}(1);\n\tM{i}(2);\n" for i in range(N))
    files = {"lib.h": header, "lib.c": "#include \"lib.h\"\nint f(int x)\n{\n\treturn x;\n}\n",
             "main.c": f"#include \"lib.h\"\nvoid g(void)\n{{\n{uses}\tN0(3);\n}}\n"}
    return make_repo(files)  # type: ignore[operator, no-any-return]


def test_closure_stops_at_the_site_budget(make_repo: object) -> None:
    ci = CodeIntel(_repo(make_repo))
    ci.index()
    view = ci.view()
    f = [d for d in sym.find_defs(view, "f") if d.kind == "func"]
    whole = closure.of(view, f)
    assert {"M0", "N0"} <= set(whole.names)  # two hops: N0 → M0 → f
    cut = closure.of(view, f, site_budget=50)
    assert "M0" in cut.names and "N0" not in cut.names
    assert any("which have more than 50 sites" in n for n in cut.limitations)
    # a small closure is never cut
    small = closure.of(view, [d for d in sym.find_defs(view, "g")], site_budget=0)
    assert not any("sites" in n for n in small.limitations)
