"""Each kind of workspace change is overlaid on the baseline: answers follow the files on
disk, the change is named by kind, and no persisted row changes."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from gitutil import commit, defs, git, init, ref_sites, store_digest, write

from spyglass.query.facade import CodeIntel

BASE = {
    ".gitignore": "secret_*.py\n",
    "pkg/__init__.py": "",
    "pkg/core.py": "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n",
    "app.py": "from pkg.core import alpha\n\n\ndef main():\n    return alpha()\n",
}
CACHED, LIVE = "cached-index", "text-fallback"


@dataclass
class Case:
    """A change to the workspace and what queries and the overlay report must say after."""

    change: Callable[[Path], None]
    present: dict[str, tuple[str, str]]
    absent: tuple[str, ...] = ()
    kinds: dict[str, tuple[str, ...]] = field(default_factory=dict)
    alpha_refs: set[tuple[str, int]] | None = None
    renamed: tuple[tuple[str, str], ...] = ()


def _commit(root: Path) -> None:
    write(root, {"pkg/core.py": BASE["pkg/core.py"] + "\n\ndef gamma():\n    return alpha()\n"})
    commit(root)


def _stage(root: Path) -> None:
    write(root, {"extra.py": "def staged_fn():\n    pass\n"})
    git(root, "add", "extra.py")


def _unstaged(root: Path) -> None:
    write(root, {"app.py": BASE["app.py"] + "\n\ndef helper():\n    return alpha()\n"})


def _untracked(root: Path) -> None:
    write(root, {"tools/new.py": "from pkg.core import alpha\n\n\ndef fresh():\n"
                                 "    return alpha()\n",
                 "secret_x.py": "def hidden():\n    pass\n"})


def _delete(root: Path) -> None:
    (root / "pkg/core.py").unlink()


def _git_mv(root: Path) -> None:
    git(root, "mv", "pkg/core.py", "pkg/base.py")


def _plain_mv(root: Path) -> None:
    shutil.move(root / "pkg/core.py", root / "pkg/base.py")


CASES = {
    "commit": Case(_commit, {"gamma": ("pkg/core.py", LIVE), "alpha": ("pkg/core.py", LIVE),
                             "main": ("app.py", CACHED)},
                   kinds={"committed": ("pkg/core.py",)},
                   alpha_refs={("app.py", 1), ("app.py", 5), ("pkg/core.py", 10)}),
    "stage": Case(_stage, {"staged_fn": ("extra.py", LIVE), "alpha": ("pkg/core.py", CACHED)},
                  kinds={"staged": ("extra.py",)}),
    "unstaged edit": Case(_unstaged, {"helper": ("app.py", LIVE), "main": ("app.py", LIVE),
                                      "alpha": ("pkg/core.py", CACHED)},
                          kinds={"unstaged": ("app.py",)},
                          alpha_refs={("app.py", 1), ("app.py", 5), ("app.py", 9)}),
    "untracked file": Case(_untracked, {"fresh": ("tools/new.py", LIVE),
                                        "alpha": ("pkg/core.py", CACHED)},
                           absent=("hidden",), kinds={"untracked": ("tools/new.py",)},
                           alpha_refs={("app.py", 1), ("app.py", 5), ("tools/new.py", 1),
                                       ("tools/new.py", 5)}),
    "deletion": Case(_delete, {"main": ("app.py", CACHED)}, absent=("alpha", "beta"),
                     kinds={"deleted": ("pkg/core.py",)}),
    "rename (git mv)": Case(_git_mv, {"alpha": ("pkg/base.py", LIVE)},
                            kinds={"staged": ("pkg/base.py",), "deleted": ("pkg/core.py",)},
                            renamed=(("pkg/core.py", "pkg/base.py"),)),
    "rename (mv)": Case(_plain_mv, {"alpha": ("pkg/base.py", LIVE)},
                        kinds={"untracked": ("pkg/base.py",), "deleted": ("pkg/core.py",)}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_change_kind(tmp_path: Path, name: str) -> None:
    case = CASES[name]
    root = tmp_path / "repo"
    base = init(root, BASE)
    ci = CodeIntel(root)
    ci.index()
    before = store_digest(root)
    seen = defs(ci)
    assert seen["alpha"] == ("pkg/core.py", CACHED) and seen["main"] == ("app.py", CACHED)
    assert ref_sites(ci, "alpha") == {("app.py", 1), ("app.py", 5)}
    assert not ci.view().overlay().changed

    case.change(root)
    seen = defs(ci)
    for symbol, where in case.present.items():
        assert seen.get(symbol) == where, (symbol, seen)
    for symbol in case.absent:
        assert symbol not in seen
    if case.alpha_refs is not None:
        assert ref_sites(ci, "alpha") == case.alpha_refs
    report = ci.view().overlay()
    assert report.base == base
    assert {k: p for k, p in report.kinds if p} == case.kinds
    assert report.renamed == case.renamed
    assert ci.provenance().workspace_digest == report.digest != ""
    assert store_digest(root) == before  # the overlay never touches persisted rows


def test_a_fresh_process_sees_the_same_projection(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, BASE)
    CodeIntel(root).index()
    for case in ("unstaged edit", "untracked file"):
        CASES[case].change(root)
    first, second = CodeIntel(root), CodeIntel(root)
    assert first.provenance().workspace_digest is None  # no answer yet
    assert defs(first) == defs(second)
    assert first.provenance().workspace_digest == second.provenance().workspace_digest


def test_reverting_an_edit_returns_to_the_baseline(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root, BASE)
    ci = CodeIntel(root)
    ci.index()
    clean = ci.find_symbol("alpha")
    _unstaged(root)
    assert defs(ci)["main"] == ("app.py", LIVE)
    write(root, {"app.py": BASE["app.py"]})
    assert defs(ci)["main"] == ("app.py", CACHED)
    assert ci.find_symbol("alpha").provenance == clean.provenance
