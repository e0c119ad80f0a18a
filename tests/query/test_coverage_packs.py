"""A skipped file of a supported language (an oversized C header) is skipped for its
reason, never reported as a language without a pack."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from pgstore import store_backend  # noqa: F401 - the fixture, run on both stores

from spyglass.config import load_config
from spyglass.query.facade import CodeIntel

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite, then PostgreSQL


def test_oversized_c_file_is_not_an_unsupported_language(
        make_repo: Callable[..., Path]) -> None:
    root = make_repo({"lib.c": "int f(void)\n{\n\treturn 0;\n}\n",
                      "big.h": "#define X 1\n" * 200})
    config = load_config(repo_root=root)
    config = replace(config, limits=replace(config.limits, max_file_bytes=1024))
    ci = CodeIntel(root, config=config)
    ci.index()
    cov = ci.references(name="f", lsp_budget_ms=0).coverage  # type: ignore[attr-defined]
    assert not any("C is not supported" in n for n in cov.limitations)
    assert any(s.path == "big.h" and s.reason.startswith("oversized") for s in cov.skipped)
