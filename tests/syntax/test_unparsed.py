"""Files the grammar cannot wholly parse: counted in `status` and coverage, their top-level definitions still found."""

from __future__ import annotations

from pathlib import Path

from fixture import commit_all, write_files

from spyglass.query.facade import CodeIntel

LEFT_OPEN = """export function broken(x: number {
  return x

export const kept = 1
export class Later { run(): void {} }
"""
FINE = "export const fine = 1\n"


def _indexed(tmp_path: Path) -> CodeIntel:
    write_files(tmp_path, {"src/left_open.ts": LEFT_OPEN, "src/fine.ts": FINE,
                           "src/ok.py": "def ok():\n    return 1\n"})
    commit_all(tmp_path)
    ci = CodeIntel(tmp_path)
    ci.index()
    return ci


def test_status_counts_files_with_syntax_errors(tmp_path: Path) -> None:
    report = _indexed(tmp_path).status().results[0]
    by_lang = {c.language: c for c in report.languages}  # type: ignore[attr-defined]
    assert by_lang["typescript"].files == 2
    assert by_lang["typescript"].unparsed_files == 1
    assert by_lang["typescript"].syntax_errors >= 1
    assert by_lang["python"].unparsed_files == 0
    first = report.parse_errors  # type: ignore[attr-defined]
    assert [(d.path, d.start_line) for d in first] == [("src/left_open.ts", 1)]
    assert "missing )" in first[0].message


def test_a_definition_past_the_error_is_found(tmp_path: Path) -> None:
    ci = _indexed(tmp_path)
    found = ci.find_symbol("kept").results
    assert [(r.path, r.start_line) for r in found] == [("src/left_open.ts", 4)]  # type: ignore[attr-defined]
    limitation = [m for m in ci.find_symbol("fine").coverage.limitations if "syntax errors" in m]
    assert limitation and "src/left_open.ts:1" in limitation[0]


def test_coverage_of_paths_names_only_theirs(tmp_path: Path) -> None:
    ci = _indexed(tmp_path)
    assert not [m for m in ci.structure("src/fine.ts").coverage.limitations
                if "syntax errors" in m]
    assert [m for m in ci.structure("src/left_open.ts").coverage.limitations
            if "syntax errors" in m]
