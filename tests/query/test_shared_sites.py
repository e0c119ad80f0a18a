"""Same-named definitions with one full name (a C macro defined in several headers) have
the same closure names, so their sites are read once and paired with each definition."""

from __future__ import annotations

from pathlib import Path

import pytest
from pgstore import store_backend  # noqa: F401 - the fixture, run on both stores

from spyglass.query import closure
from spyglass.query import symbols as sym
from spyglass.query.facade import CodeIntel

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite, then PostgreSQL


def _repo(make_repo: object) -> Path:
    files = {"a/log.h": "#define LOG(x) out(x)\n", "b/log.h": "#define LOG(x) out(x)\n",
             "main.c": "#include \"a/log.h\"\nvoid f(void)\n{\n\tLOG(1);\n\tLOG(2);\n}\n"}
    return make_repo(files)  # type: ignore[operator, no-any-return]


def test_same_named_definitions_share_one_site_read(make_repo: object,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    ci = CodeIntel(_repo(make_repo))
    ci.index()
    view = ci.view()
    first, second = sorted(sym.find_defs(view, "LOG"), key=lambda d: d.path)
    assert first.full == second.full and first.path != second.path
    reads: list[int] = []
    real = closure._site_rows

    def counted(*args: object) -> object:
        reads.append(1)
        return real(*args)  # type: ignore[arg-type]
    monkeypatch.setattr(closure, "_site_rows", counted)
    got = [closure.sites(view, closure.of(view, [d]), 10) for d in (first, second)]
    assert len(reads) == 1  # one read for both definitions
    assert got[0].rows == got[1].rows and {(r.path, r.line) for r in got[0].rows} >= {
        ("main.c", 4), ("main.c", 5)}
    # each site is paired with its own closure's definition
    assert all(ds == (first,) for _, ds in got[0].sites)
    assert all(ds == (second,) for _, ds in got[1].sites)
    # another bound is another read
    closure.sites(view, closure.of(view, [first]), 1)
    assert len(reads) == 2
    # the answer lists each site once, uncertain between the two definitions
    found = ci.references(name="LOG", lsp_budget_ms=0).results
    lines = [(r.path, r.start_line) for r in found]  # type: ignore[attr-defined]
    assert ("main.c", 4) in lines and ("main.c", 5) in lines and len(lines) == len(set(lines))
