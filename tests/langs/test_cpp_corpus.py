"""A real C++ project: CLI11's headers (Debian libcli11-dev, header-only, fetched by
`scripts/bootstrap.sh --corpora`) indexed, with hand-checked sites."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from corpora import reads
from test_lang_corpora import call_sites as _callers
from test_lang_corpora import defs_by_full, indexed_copy, run
from test_lang_corpora import sites as _sites

from spyglass.query.facade import CodeIntel

Corpus = Callable[[str], Path]


@pytest.fixture(scope="module")
def cli11(tmp_path_factory: pytest.TempPathFactory, corpus: Corpus) -> CodeIntel:
    """The CLI11 headers (`CLI/*.hpp`) as a git repository of their own, indexed once."""
    return indexed_copy(tmp_path_factory, corpus, "cli11")


@reads("cli11")
def test_every_header_parses_into_namespaced_classes(corpus: Corpus) -> None:
    rows = run(corpus("cli11"), (".hpp",))
    assert len(rows) == 15
    full = defs_by_full(rows)
    # App.hpp:69 `class App {` and Option.hpp:237 `class Option : public OptionBase<Option>`
    # inside `namespace CLI {`; Split.hpp:67 a function of `namespace detail` in CLI.
    assert full["CLI.App"] == "class"
    assert full["CLI.Option"] == "class"
    assert full["CLI.App.add_subcommand"] == "method"
    assert full["CLI.Timer.title_"] == "field"
    assert full["CLI.detail.split_names"] == "func"
    assert full["CLI"] == "module"


@reads("cli11")
def test_callers_across_headers(cli11: CodeIntel) -> None:
    # Split.hpp:80 `std::vector<std::string> flags = split_names(str);` in
    # get_default_flag_values (the same namespace).
    got = cli11.callers(path="CLI/Split.hpp", line=67, column=33)
    assert ("CLI/Split.hpp", 80, "CLI.detail.get_default_flag_values") in _callers(got)
    # App.hpp:1749 `const std::string &get_name() const`: Formatter.hpp:122 calls it on a
    # `const CLI::App *subc` lambda parameter, in Formatter::make_usage.
    got = cli11.callers(path="CLI/App.hpp", line=1749, column=24)
    assert ("CLI/Formatter.hpp", 122, "CLI.Formatter.make_usage") in _callers(got)


@reads("cli11")
def test_qualified_call_from_another_header(cli11: CodeIntel) -> None:
    # Config.hpp:241 `items_buffer = detail::split_up(...)` reaches StringTools.hpp's
    # `CLI::detail::split_up`, and App.hpp uses it too.
    found = cli11.find_symbol("split_up")
    assert [(r.path, r.start_line, r.kind) for r in found.results] == [  # type: ignore[attr-defined]
        ("CLI/StringTools.hpp", 346, "func")]
    sites = _sites(cli11.references(name="CLI.detail.split_up"))
    assert ("CLI/Config.hpp", 241) in sites
    assert ("CLI/App.hpp", 1244) in sites
