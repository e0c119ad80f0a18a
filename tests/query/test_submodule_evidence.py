"""A submodule reached as an attribute of a package that does not bind it: the evidence
names the package file, the side effect that binds it, and the type checkers' view
(query/submodules.py; the fixture python/refs_submodule_unbound checks the flags)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pgstore import store_backend  # noqa: F401 - the fixture, run on both stores

from spyglass.query.facade import CodeIntel
from spyglass.query.submodules import SIDE_EFFECT
from spyglass.types import CodeLocation

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite, then PostgreSQL

FILES = {
    "shop/__init__.py": "from .models import Item\n",
    "shop/models.py": "from .jar import Jar\n\n\nclass Item:\n    pass\n",
    "shop/jar.py": "class Jar:\n    pass\n\n\ndef make():\n    return 1\n",
    "tests/test_side.py": "import shop\nfrom shop.jar import make\n\nshop.jar.Jar()\n",
    "tests/test_own.py": "import shop\nimport shop.jar\n\nshop.jar.Jar()\n",
    "tests/test_alone.py": "import shop\n\nshop.jar.Jar()\n",
}


def _evidence(make_repo: Callable[..., Path], files: dict[str, str]) -> dict[str, str]:
    ci = CodeIntel(make_repo(files))
    ci.index()
    result = ci.references(path="shop/jar.py", line=1, column=7)
    sites = [r for r in result.results if isinstance(r, CodeLocation)]
    return {r.path: r.evidence for r in sites if r.path.startswith("tests/")}


def test_evidence_names_the_package_and_the_side_effect(
        make_repo: Callable[..., Path]) -> None:
    got = _evidence(make_repo, FILES)
    side = got["tests/test_side.py"]
    assert side.startswith("inferred")
    assert "`jar` is not bound by shop/__init__.py" in side
    assert SIDE_EFFECT in side
    assert "`from shop.jar import …` here" in side
    assert "imported by shop/models.py" in side
    assert "type checkers report an unknown attribute" in side
    alone = got["tests/test_alone.py"]
    assert "here" not in alone and "imported by shop/models.py" in alone
    assert got["tests/test_own.py"] == ""  # `import shop.jar` binds it: exact


def test_a_package_binding_the_submodule_makes_the_site_exact(
        make_repo: Callable[..., Path]) -> None:
    files = dict(FILES, **{"shop/__init__.py": "from . import jar\nfrom .models import Item\n"})
    got = _evidence(make_repo, files)
    assert set(got.values()) == {""}, got
