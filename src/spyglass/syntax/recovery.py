"""Definitions read from the text of regions the grammar could not parse (manifest `recovered_definitions`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from spyglass.syntax.langpack import LanguagePack
from spyglass.types import Definition, Diagnostic


def regions(found: Iterable[Diagnostic], lines: int) -> list[tuple[int, int]]:
    """The line ranges (1-based, inclusive, merged) the grammar may have misread: each
    ERROR region, and from a MISSING node to the end of the file (a missing `)` or `}`
    makes what follows the body of the construct left open)."""
    spans = sorted((d.line, lines if d.message.startswith("missing ") else d.end_line)
                   for d in found if d.severity == "error")
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out and start <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def recovered(pack: LanguagePack, data: bytes, found: Sequence[Diagnostic],
              defs: Sequence[Definition]) -> list[Definition]:
    """Top-level definitions the pack's `recovered_definitions` patterns (kind → regex,
    group 1 the name, matched at a line's start) find in the `regions` of `found`, where
    the parsed definitions have none of that name on that line: a name the grammar lost
    is still found (its extent is its line: the body was not parsed)."""
    if not pack.recovery_patterns or not any(d.severity == "error" for d in found):
        return []
    starts = _line_starts(data)
    return read(pack, data, regions(found, len(starts)), defs, starts)


def read(pack: LanguagePack, data: bytes, spans: Sequence[tuple[int, int]],
         defs: Sequence[Definition] = (), starts: Sequence[int] | None = None
         ) -> list[Definition]:
    """The definitions the pack's recovery patterns find on the lines `spans` (1-based,
    inclusive) that `defs` lack (name and line)."""
    patterns = pack.recovery_patterns
    if not patterns or not spans:
        return []
    starts = starts if starts is not None else _line_starts(data)
    have = {(d.name, d.name_line) for d in defs}
    const_re = pack.manifest.get("const_pattern")
    out: list[Definition] = []
    for first, last in spans:
        lo = starts[first - 1]
        hi = starts[last] if last < len(starts) else len(data)
        for kind, pattern in patterns:
            for m in pattern.finditer(data, lo, hi):
                name = m.group(1).decode("utf-8", "replace")
                line = data.count(b"\n", 0, m.start(1)) + 1
                if (name, line) in have:
                    continue
                have.add((name, line))
                col = m.start(1) - starts[line - 1]
                k = "const" if kind == "var" and const_re and re.match(const_re, name) else kind
                out.append(Definition(name, name, k, line, line, line, col, -1))
    out.sort(key=lambda d: (d.start_line, d.name_col))
    return out


def _line_starts(data: bytes) -> list[int]:
    starts = [0]
    at = data.find(b"\n")
    while at != -1:
        starts.append(at + 1)
        at = data.find(b"\n", at + 1)
    return starts
