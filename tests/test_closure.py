"""The alias closure is bounded whatever the code's shape, reports what its bounds cut, and
every fixture's queries finish."""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from fixture import Fixture, parse_fixture, write_files
from pgstore import store_backend  # noqa: F401 - the fixture, run on both stores

from spyglass.query import aliases, closure
from spyglass.query import symbols as sym
from spyglass.query.facade import CodeIntel
from spyglass.syntax.langpack import pack_for_path
from spyglass.types import CodeLocation, ToolResult

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite, then PostgreSQL

FIXTURES = Path(__file__).parent / "fixtures"
DEADLINE = 50.0  # seconds: generous; a runaway closure took minutes
METHODS = 30


def _finishes(call: Callable[[], ToolResult]) -> ToolResult:
    """`call`'s answer, failing (not hanging the suite) when it does not come in time."""
    box: list[ToolResult | BaseException] = []

    def run() -> None:
        try:
            box.append(call())
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            box.append(exc)
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(DEADLINE)
    assert box, "query still running: the closure is unbounded"
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]


def _index(fx: Fixture, root: Path) -> CodeIntel:
    fx.write(root)
    ci = CodeIntel(root)
    ci.index()
    return ci


def _builder_python() -> str:
    """A class whose every method returns the class, and one chain through all of them."""
    methods = "".join(f"    def m{i}(self) -> \"B\":\n        return self\n\n"
                      for i in range(METHODS))
    chain = "".join(f".m{i}()" for i in range(METHODS))
    return (f"class B:\n{methods}    def pu$0sh(self) -> None:\n        return None\n\n\n"
            f"def new() -> B:\n    return B()\n\n\ndef run() -> None:\n"
            f"    new(){chain}.push()\n")


def test_wide_fluent_builder_is_bounded(tmp_path: Path) -> None:
    fx = parse_fixture(f"#! references\n#- b.py\n{_builder_python()}")
    ci = _index(fx, tmp_path)
    path, line, col = fx.cursor or ("", 0, 0)
    chained = fx.files["b.py"].splitlines().index(f"    new(){''.join(f'.m{i}()' for i in range(METHODS))}.push()") + 1
    refs = _finishes(lambda: ci.references(path=path, line=line, column=col))
    assert [(r.path, r.start_line) for r in refs.results if isinstance(r, CodeLocation)] == [
        ("b.py", chained)]
    callers = _finishes(lambda: ci.callers(path=path, line=line, column=col))
    assert {r.symbol for r in callers.results if isinstance(r, CodeLocation)} == {"b.run"}
    blast = _finishes(lambda: ci.blast_radius([f"b.py:{line}"], depth=3))
    assert "b.run" in {r.symbol for r in blast.results if isinstance(r, CodeLocation)}
    with ci.lock:
        view = ci.view()
        names = closure.of(view, sym.find_defs(view, "B.push"))
    # Self-returning aliases are never expanded: the closure stays at the method's own
    # names (through `new`), the chains are found by probing instead.
    assert len(names) <= 4, sorted(names)
    assert names.probes


def test_closure_cap_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fx = parse_fixture((FIXTURES / "python/closure_star_chain.fixture").read_text())
    ci = _index(fx, tmp_path)
    path, line, col = fx.cursor or ("", 0, 0)
    full = ci.references(path=path, line=line, column=col)
    assert not [n for n in full.coverage.limitations if "alias closure" in n]
    monkeypatch.setattr(closure, "MAX_NAMES", 3)
    cut = ci.references(path=path, line=line, column=col)
    notes = [n for n in cut.coverage.limitations if "alias closure" in n]
    assert notes and "stopped at 3 names" in notes[0]
    assert len(cut.results) < len(full.results)  # what the cap cut is missing, and said so
    blast = ci.blast_radius([f"{path}:{line}"], depth=1)
    assert [n for n in blast.coverage.limitations if "stopped at 3 names" in n], blast.coverage.limitations


def test_closure_depth_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fx = parse_fixture((FIXTURES / "typescript/closure_star_chain.fixture").read_text())
    ci = _index(fx, tmp_path)
    path, line, col = fx.cursor or ("", 0, 0)
    monkeypatch.setattr(closure, "MAX_DEPTH", 2)
    cut = ci.references(path=path, line=line, column=col)
    assert [n for n in cut.coverage.limitations if "stopped after 2 alias hops" in n]
    monkeypatch.setattr(closure, "MAX_DEPTH", 16)
    whole = ci.references(path=path, line=line, column=col)
    assert len(whole.results) > len(cut.results)


def test_alias_cycle_terminates(tmp_path: Path) -> None:
    files = {f"ring/m{i}.py": f"from ring.m{(i + 1) % 6} import *  # noqa: F403\n"
             for i in range(6)}
    files["ring/m3.py"] += "\n\ndef tar$0get() -> int:\n    return 3\n"
    files["ring/__init__.py"] = ""
    files["use.py"] = "from ring.m0 import target\n\ntarget()\n"
    text = "#! references\n" + "".join(f"#- {p}\n{t}" for p, t in files.items())
    fx = parse_fixture(text)
    ci = _index(fx, tmp_path)
    path, line, col = fx.cursor or ("", 0, 0)
    refs = _finishes(lambda: ci.references(path=path, line=line, column=col))
    assert ("use.py", 3) in {(r.path, r.start_line) for r in refs.results
                             if isinstance(r, CodeLocation)}
    with ci.lock:
        view = ci.view()
        names = closure.of(view, sym.find_defs(view, "target"))
    assert {f"ring.m{i}.target" for i in range(6)} <= set(names)


def _askable(text: str) -> bool:
    return "$0" in text or re.search(
        r"^#- .*\.(py|go|ts|tsx|js)$", text, re.MULTILINE) is not None


def _sample() -> list[Path]:
    every = sorted(FIXTURES.rglob("*.fixture"))
    family = [p for p in every if p.name.startswith(("closure_", "refs_call_chain"))]
    # A fixture without a cursor is asked about its first file of a language below.
    rest = [p for p in every if p not in family and _askable(p.read_text(encoding="utf-8"))]
    return family + random.Random(3).sample(rest, 6)


@pytest.mark.parametrize("path", _sample(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_query_of_a_fixture_finishes(path: Path, tmp_path: Path) -> None:
    fx = parse_fixture(path.read_text(encoding="utf-8"))
    ci = _index(fx, tmp_path)
    if fx.cursor is None:
        first = next(r for p in fx.files if pack_for_path(p) is not None
                     for r in ci.structure(p).results)
        assert isinstance(first, CodeLocation)
        where: dict[str, object] = {"path": first.path, "line": first.start_line}
    else:
        where = dict(zip(("path", "line", "column"), fx.cursor, strict=True))
    target = f"{where['path']}:{where['line']}"
    for call in (lambda: ci.references(**where),  # type: ignore[arg-type]
                 lambda: ci.callers(**where),  # type: ignore[arg-type]
                 lambda: ci.blast_radius([target], depth=3),
                 lambda: ci.suggest_tests([target], depth=3),
                 lambda: ci.explore(str(where["path"]).rsplit("/", 1)[-1].split(".")[0])):
        assert isinstance(_finishes(call), ToolResult)


def test_module_alias_fan_out_stays_small(tmp_path: Path) -> None:
    """A module imported under a thousand modules' names is probed, not multiplied."""
    files = {"pkg/__init__.py": "", "pkg/models/__init__.py": "from pkg.models.base import Base\n",
             "pkg/models/base.py": "class Base:\n    def ru$0n(self) -> None:\n        return None\n",
             "app/__init__.py": ""}
    for i in range(40):
        files[f"app/m{i}.py"] = "from pkg import models\n\n\nclass M(models.Base):\n    pass\n"
    files["app/use.py"] = ("from app.m3 import models\n\n\ndef go(b: models.Base) -> None:\n"
                           "    b.run()\n")
    text = "#! references\n" + "".join(f"#- {p}\n{t}" for p, t in files.items())
    fx = parse_fixture(text)
    ci = _index(fx, tmp_path)
    path, line, col = fx.cursor or ("", 0, 0)
    refs = _finishes(lambda: ci.references(path=path, line=line, column=col))
    assert ("app/use.py", 5) in {(r.path, r.start_line) for r in refs.results
                                 if isinstance(r, CodeLocation)}
    with ci.lock:
        view = ci.view()
        names = closure.of(view, sym.find_defs(view, "Base.run"))
    assert len(names) < 40 * 3, len(names)  # 40 subclasses' own names, no alias products
    assert [p for p in names.probes if p[0].startswith("app.m") and p[0].endswith(".models.")]


def test_inherited_members_followed_one_by_one(tmp_path: Path) -> None:
    """Subclasses that own result-aliased members of their own (in one batch with the
    base's) still inherit the base's: every `Sub.a().val` is in the closure, and it stays
    small (one name per subclass and member, no products)."""
    depth = 12
    subs = "".join(f"class S{i}({'Base' if i == 0 else f'S{i - 1}'}):\n"
                   f"    def own{i}(self) -> R:\n        return R()\n\n\n"
                   for i in range(depth))
    text = ("#! references\n#- m.py\nclass R:\n    def v$0al(self) -> int:\n        return 1\n\n\n"
            "class Base:\n    def a(self) -> R:\n        return R()\n\n"
            "    def b(self) -> R:\n        return R()\n\n\n" + subs)
    ci = _index(parse_fixture(text), tmp_path)
    with ci.lock:
        view = ci.view()
        names = _finishes_value(lambda: closure.of(view, sym.find_defs(view, "R.val")))
    tails = {n.split("#")[-1].split(".", 1)[-1] if "#" in n else n.split(".", 1)[-1]
             for n in names}
    want = {f"S{i}.{m}.val" for i in range(depth) for m in ("a", "b")}
    want |= {f"S{j}.own{i}.val" for i in range(depth) for j in range(i + 1, depth)}
    assert want <= tails, sorted(want - tails)[:5]
    assert len(names) < 4 * len(want), len(names)


def _finishes_value(call: Callable[[], aliases.Closure]) -> aliases.Closure:
    """`call`'s closure, failing (not hanging the suite) when it does not come in time."""
    box: list[aliases.Closure] = []
    worker = threading.Thread(target=lambda: box.append(call()), daemon=True)
    worker.start()
    worker.join(DEADLINE)
    assert box, "closure still running: unbounded"
    return box[0]


def test_closure_cap_is_said_only_when_it_cut_a_used_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: "stopped at 5000 names" was on every method query of a 100-file repository;
    a cap that kept out only aliases nobody uses cut nothing."""
    files = {"pkg/__init__.py": "", "pkg/core.py": "class K:\n    pass\n",
             "use.py": "from pkg.core import K\n\n\nK()\n"}
    files.update({f"pkg/m{i}.py": "from pkg.core import K\n" for i in range(6)})
    root = tmp_path / "repo"
    write_files(root, files)
    ci = CodeIntel(root)
    ci.index()
    monkeypatch.setattr(closure, "MAX_NAMES", 3)
    quiet = ci.references(name="pkg.core.K")
    assert not [n for n in quiet.coverage.limitations if "alias closure" in n]
    (root / "late.py").write_text("from pkg.m5 import K\n\n\nK()\n")  # a kept-out name, used
    said = ci.references(name="pkg.core.K")
    assert [n for n in said.coverage.limitations if "stopped at 3 names" in n]
