"""Data-file evidence: test files whose string literals name a changed file that is not source."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from spyglass.index import confined

MAX_DATA_FILES = 50  # changed data files looked for at most (the rest: not looked for)
MAX_TESTS = 2000  # test files read at most
MIN_NAME = 4  # a shorter file name (`a`, `x.c`) says too little


@dataclass(frozen=True, slots=True)
class Naming:
    """A test file naming a changed data file in a string literal, at `line`."""

    test: str
    data: str
    line: int
    literal: str  # the literal's text up to the file name (`testdata/fixtures.ttar`)


def _pattern(names: list[str]) -> re.Pattern[bytes]:
    """A quoted string ending with one of `names`, after the start or a `/` or `\\`."""
    alts = b"|".join(re.escape(n.encode("utf-8", "surrogateescape")) for n in names)
    return re.compile(rb"[\"'`]((?:[^\"'`\n\r]*[/\\])?(" + alts + rb"))[\"'`]")


def naming_tests(root: Path, data: list[str], tests: list[str], max_bytes: int
                 ) -> tuple[list[Naming], list[str]]:
    """Test files naming each changed data file (its file name ends a string literal:
    `"testdata/fixtures.ttar"`, `join("data", "x.json")`), and notes on the bounds hit.
    Files are read confined to the root, at most `max_bytes` each; nothing is run."""
    by_name: dict[str, list[str]] = {}
    for path in data[:MAX_DATA_FILES]:
        name = path.rpartition("/")[2]
        if len(name) >= MIN_NAME:
            by_name.setdefault(name, []).append(path)
    notes = []
    if len(data) > MAX_DATA_FILES:
        notes.append(f"data files: {len(data) - MAX_DATA_FILES} changed data files past the "
                     f"first {MAX_DATA_FILES} not looked for in tests")
    if not by_name:
        return [], notes
    if len(tests) > MAX_TESTS:
        notes.append(f"data files: looked for in the first {MAX_TESTS} of {len(tests)} test "
                     "files")
    pattern = _pattern(sorted(by_name))
    out: list[Naming] = []
    for test in tests[:MAX_TESTS]:
        text = confined.read_or_none(root, test, max_bytes)
        if text is None:
            continue
        seen: set[str] = set()
        for m in pattern.finditer(text):
            name = m.group(2).decode("utf-8", "surrogateescape")
            literal = m.group(1).decode("utf-8", "replace")
            for path in by_name.get(name, []):
                if path not in seen and _fits(literal, path):
                    seen.add(path)
                    out.append(Naming(test, path, text.count(b"\n", 0, m.start()) + 1,
                                      literal))
    return out, notes


def _fits(literal: str, path: str) -> bool:
    """The literal's folders (`testdata/x.json`) are the path's last folders, or it names the
    file alone; `../` and `./` prefixes are left out."""
    parts = [p for p in re.split(r"[/\\]", literal) if p not in ("", ".", "..")]
    return path.split("/")[-len(parts):] == parts if parts else False
