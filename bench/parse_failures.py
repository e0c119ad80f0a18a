"""Files the pinned grammars fail to parse, before and after the packs' rewrites, and the definitions recovered from what still fails.

For every file of a language pack under the given folders (or corpora of
~/.cache/spyglass/corpora named by folder): whether the grammar parses its bytes as
they are, whether it parses them after the pack's rewrites (`parse_blanks`,
`parse_separators`, syntax/parsing.py), and how many top-level definitions extraction
read from the text of the regions that still fail (`recovered_definitions`,
syntax/recovery.py; counted by wrapping the extractor's call, so the figure is exactly
what the index stores). Prints JSON, then a table.

    python bench/parse_failures.py rxjs-7.8.2 /path/to/a/typescript/library
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import spyglass.syntax.extract as extraction
from spyglass.syntax.langpack import pack_for_path
from spyglass.syntax.parsing import parse
from spyglass.types import Definition

CORPORA = Path.home() / ".cache" / "spyglass" / "corpora"
SKIP = frozenset({".git", ".spyglass", "node_modules"})


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()
                  and not SKIP.intersection(p.relative_to(folder).parts))


def measure(folder: Path) -> dict[str, Any]:
    """Per language: files, failing as written, failing after the rewrites, definitions
    recovered, and the first failing files with their first error."""
    recovered: list[int] = [0]
    original = vars(extraction)["recovered"]

    def counting(*args: Any) -> list[Definition]:
        out: list[Definition] = original(*args)
        recovered[0] += len(out)
        return out

    vars(extraction)["recovered"] = counting
    rows: dict[str, Counter[str]] = {}
    first: list[str] = []
    try:
        for path in _files(folder):
            pack = pack_for_path(str(path))
            if pack is None or path.stat().st_size > 2_000_000:
                continue
            data = path.read_bytes()
            row = rows.setdefault(pack.name, Counter())
            row["files"] += 1
            row["failing_as_written"] += parse(pack, data).root_node.has_error
            before = recovered[0]
            facts = extraction.extract(pack, data)
            row["recovered_definitions"] += recovered[0] - before
            errors = [d for d in facts.diagnostics if d.severity == "error"]
            row["failing"] += bool(errors)
            if errors and len(first) < 10:
                rel = path.relative_to(folder)
                first.append(f"{rel}:{errors[0].line} {errors[0].message}")
    finally:
        vars(extraction)["recovered"] = original
    return {"folder": str(folder), "languages": {k: dict(v) for k, v in sorted(rows.items())},
            "first_failing": first}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", help="folders, or corpus names under " + str(CORPORA))
    args = ap.parse_args(argv)
    results = []
    for name in args.folders:
        folder = Path(name) if Path(name).is_dir() else CORPORA / name
        if not folder.is_dir():
            print(f"no such folder or corpus: {name}", file=sys.stderr)
            return 2
        results.append(measure(folder))
    print(json.dumps(results, indent=1))
    print(f"\n{'folder':<40} {'language':<12} {'files':>7} {'as written':>11} {'failing':>8} "
          f"{'recovered defs':>15}")
    for r in results:
        for lang, row in r["languages"].items():
            print(f"{Path(r['folder']).name[:40]:<40} {lang:<12} {row.get('files', 0):>7} "
                  f"{row.get('failing_as_written', 0):>11} {row.get('failing', 0):>8} "
                  f"{row.get('recovered_definitions', 0):>15}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
