"""A pathological file (1.9 MB on one line, brackets nested ~950,000 deep, or broken code)
gets a bounded answer: diagnostics, structure and ast_query return (an error or a result
with a note) instead of running for minutes; files over max_file_bytes are refused with the
reason; the parser still works afterwards. See docs/security.md "Processes, secrets and
limits"."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from fixture import commit_all

from spyglass.config import Config, Limits
from spyglass.errors import LimitExceeded
from spyglass.query.facade import CodeIntel
from spyglass.syntax import budget, diagnostics
from spyglass.syntax.extract import extract
from spyglass.syntax.langpack import pack_for_path
from spyglass.syntax.parsing import syntax_errors

DEADLINE = 45.0  # generous: the bound is the budget, not this
NESTED = b"x = " + b"(" * 950_000 + b")" * 949_990 + b"\n"  # 1.9 MB, one line, unclosed


def _answer(call: Callable[[], object]) -> object:
    """Run `call` with a generous deadline; the answer (or the error it raised)."""
    out: list[object] = []

    def run() -> None:
        try:
            out.append(call())
        except Exception as exc:  # noqa: BLE001 - the error is the answer under test
            out.append(exc)
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(DEADLINE)
    assert out, "no answer: the parse was not bounded"
    return out[0]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "ok.py").write_text("def fine():\n    return 1\n")
    (root / "nested.py").write_bytes(NESTED)
    commit_all(root)
    return root


def test_a_deep_unclosed_nesting_is_answered_within_the_budget(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "PARSE_SECONDS", 1.0)
    ci = CodeIntel(repo)
    result = _answer(lambda: ci.diagnostics(["nested.py"]))
    assert not isinstance(result, Exception), result
    items = result.results  # type: ignore[attr-defined]
    assert 1 <= len(items) <= diagnostics.MAX_DIAGNOSTICS + 1
    assert all(i.path == "nested.py" for i in items)
    # the parse is fine or over budget; either way the answer says what it found or why not
    assert any(i.message.startswith(("syntax error", "not analysed")) for i in items)
    ok = _answer(lambda: ci.find_symbol("fine"))
    assert [r.path for r in ok.results] == ["ok.py"]  # type: ignore[attr-defined]


def test_queries_over_budget_keep_the_parse_errors_and_say_why(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "PARSE_SECONDS", 1.0)
    pack = pack_for_path("a.py")
    assert pack is not None
    data = b"x = " + b"(" * 64_000 + b"\n"  # parses in ~0.05 s; each query takes ~9 s
    facts = _answer(lambda: extract(pack, data))
    assert not isinstance(facts, Exception)
    diags = facts.diagnostics  # type: ignore[attr-defined]
    assert facts.definitions == () and facts.references == ()  # type: ignore[attr-defined]
    assert diags[-1].severity == "warning" and diags[-1].message.startswith("not analysed")
    assert "parse budget" in diags[-1].message
    assert any(d.message.startswith("syntax error") for d in diags[:-1])
    again = extract(pack, b"def after():\n    return 2\n")  # the cached parser was reset
    assert [d.name for d in again.definitions] == ["after"]


def test_a_parse_over_budget_is_refused_by_ast_query(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "PARSE_SECONDS", 0.01)
    pack = pack_for_path("a.py")
    assert pack is not None
    (warning,) = syntax_errors(pack, NESTED)
    assert warning.message.startswith("not analysed: parsing took longer than the 0.01s "
                                      "parse budget")
    ci = CodeIntel(repo)
    result = _answer(lambda: ci.ast_query("(identifier) @id", ["nested.py"]))
    assert isinstance(result, LimitExceeded) and "parse budget" in str(result)


def test_many_errors_are_capped_with_a_note() -> None:
    pack = pack_for_path("a.py")
    assert pack is not None
    found = syntax_errors(pack, b"x = )\n" * 400)
    assert len(found) == diagnostics.MAX_DIAGNOSTICS + 1
    assert found[-1].severity == "warning" and "the rest not reported" in found[-1].message


def test_the_error_walk_is_capped_in_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diagnostics, "MAX_WALK", 500)
    pack = pack_for_path("a.py")
    assert pack is not None
    found = syntax_errors(pack, b"x = 1\n" * 2000 + b"x = )\n")
    assert found[-1].message == "syntax errors after the first 500 nodes examined not reported"


def test_a_file_over_max_file_bytes_is_not_parsed_and_says_why(repo: Path,
                                                              tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[codeintel]\nmax_file_bytes = 100000\n")
    proc = subprocess.run([sys.executable, "-m", "spyglass", "-C", str(repo), "--config",
                           str(config), "diagnostics", "nested.py"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr  # answered: the file is reported as skipped
    assert "nested.py is 1899995 bytes; max_file_bytes is 100000" in proc.stdout
    assert "Traceback" not in proc.stderr and not proc.stderr.strip()


def test_an_index_with_a_pathological_file_completes(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "PARSE_SECONDS", 1.0)
    ci = CodeIntel(repo)
    snap = _answer(ci.index)
    assert not isinstance(snap, Exception), snap
    assert snap.state == "completed"  # type: ignore[attr-defined]
    assert [r.path for r in ci.find_symbol("fine").results] == ["ok.py"]  # type: ignore[attr-defined]


def test_structure_of_a_huge_file_is_truncated_at_the_match_limit(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "many.py").write_text("".join(f"def f{i}():\n    pass\n" for i in range(300)))
    commit_all(root)
    config = Config(limits=Limits(max_matches_per_request=40))
    result = _answer(lambda: CodeIntel(root, config=config).structure("many.py"))
    assert not isinstance(result, Exception), result
    assert result.truncated and len(result.results) == 40  # type: ignore[attr-defined]


def test_an_ast_query_over_a_deep_tree_is_cut_at_the_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "PARSE_SECONDS", 1.0)
    root = tmp_path / "repo"
    root.mkdir()
    (root / "deep.py").write_bytes(b"x = " + b"(" * 64_000 + b"\n")  # query ~9 s per pass
    commit_all(root)
    result = _answer(lambda: CodeIntel(root).ast_query("(identifier) @id", ["deep.py"]))
    if isinstance(result, LimitExceeded):  # the parse itself ran out of its budget
        assert str(result).startswith("querying took longer than the 1s parse budget")
    else:  # or the query's own time budget cut the answer, saying so
        assert not isinstance(result, Exception), result
        assert result.truncated  # type: ignore[attr-defined]
        assert any("budget" in n for n in result.coverage.limitations)  # type: ignore[attr-defined]
