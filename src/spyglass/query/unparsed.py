"""Files the grammar could not wholly parse: counted per language, with the construct, for `status` and every answer's coverage."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from spyglass.query.results import DiagnosticItem
from spyglass.query.view import View

SQL = ("SELECT f.language, f.path, g.line, g.end_line, g.col, g.message "
       "FROM {diags} g JOIN temp.vfiles f ON f.unit = g.unit WHERE g.severity = 'error'")
MAX_LISTED = 10  # files named, each by its first syntax error


@dataclass(frozen=True, slots=True)
class Unparsed:
    """Syntax errors of the analysed files: per language (files, errors), and the first
    error of the first files (the construct the grammar stopped at)."""

    files: Counter[str]
    errors: Counter[str]
    first: tuple[DiagnosticItem, ...]

    @property
    def total_files(self) -> int:
        return sum(self.files.values())

    def limitation(self) -> str:
        """The coverage limitation naming them ("" when every file parsed)."""
        if not self.files:
            return ""
        langs = ", ".join(f"{lang} {n}" for lang, n in sorted(self.files.items()))
        first = "; ".join(f"{d.path}:{d.start_line} {d.message}" for d in self.first[:2])
        return (f"{self.total_files} analysed file(s) with syntax errors ({langs}; first: "
                f"{first}): their sites are read with the grammar's error recovery and "
                f"their top-level definitions from the text (`status` lists them)")


def of_view(view: View, paths: Iterable[str] | None = None) -> Unparsed:
    """The syntax errors of the view's analysed files (of `paths` only, when given);
    computed once per state of the view for the whole view."""
    key = view.state_key
    memo = view.memo.get("unparsed")
    if memo is not None and memo[0] == key and isinstance(memo[1], list):
        rows: list[tuple[object, ...]] = memo[1]
    else:
        rows = sorted(view.each(SQL), key=lambda r: (str(r[1]), int(str(r[2]))))
        view.memo["unparsed"] = (key, rows)
    wanted = None if paths is None else set(paths)
    files: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    first: list[DiagnosticItem] = []
    seen: set[str] = set()
    for lang, path, line, end, col, message in rows:
        p = str(path)
        if wanted is not None and p not in wanted:
            continue
        errors[str(lang)] += 1
        if p in seen:
            continue
        seen.add(p)
        files[str(lang)] += 1
        if len(first) < MAX_LISTED:
            first.append(DiagnosticItem(path=p, start_line=int(str(line)),
                                        end_line=int(str(end)), column=int(str(col)) + 1,
                                        severity="error", message=str(message)))
    return Unparsed(files, errors, tuple(first))
