"""Write the coverage table (from every pack's manifest `[coverage]` table) into README.md
between its markers; with --check, exit 1 when the README's table is out of date."""

from __future__ import annotations

import sys
from pathlib import Path

from spyglass.query.coverage import markdown

README = Path(__file__).resolve().parent.parent / "README.md"
START, END = "<!-- coverage:start -->", "<!-- coverage:end -->"


def rewritten(text: str) -> str:
    """README text with the generated table between the markers."""
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    return f"{head}{START}\n{markdown()}{END}{tail}"


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    if START not in text or END not in text:
        print(f"coverage_table: {README} has no {START} / {END} markers", file=sys.stderr)
        return 2
    new = rewritten(text)
    if "--check" in argv:
        if new != text:
            print("coverage_table: README.md's table is out of date: run "
                  "`.venv/bin/python scripts/coverage_table.py`", file=sys.stderr)
            return 1
        return 0
    README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
