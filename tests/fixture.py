"""Data-driven fixtures: several files in one string, a `$0` cursor and inline expectations.

Format::

    #! references                      (the check: references, callers, definitions,
    #- pkg/util.py                      diagnostics; several may share one fixture)
    def hel$0per(): ...
    #- pkg/main.py
    from pkg.util import helper as h
    #                    ^^^^^^ import
    h()
    # <- call

`#- path` starts a file. The check words are those of `CHECK_WORDS`; any other word on the
`#!` line, text before the first `#- path`, or a marker whose words are not those of
`MARKER_WORDS` / `FLAG_WORDS` is a `FixtureError` (a typo would otherwise make the
fixture assert nothing). A marker line is a comment (`#` or `//`) holding `^^^ WORDS`
(the columns of the carets on the nearest line above that is not a marker) or `<- WORDS`
(the column where the comment starts). Marker lines stay in the file: they are comments.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

# The checks tests/test_fixtures.py runs, and `all` (definitions: no other definition).
CHECK_WORDS = frozenset({"references", "callers", "callees", "hierarchy", "definitions",
                         "diagnostics", "all"})
# A marker's first word: a reference site's role, `caller SYMBOL`, `def KIND QUALNAME`,
# `error`, `unlisted` (a site counted in limitations), `callee` (a definition the cursor's
# function calls), or a type-hierarchy relation of a definition to the cursor's
# (`supertype`, `subtype`; for members `overridden`: the cursor's member overrides it,
# `overriding`: it overrides the cursor's member); then flags.
ROLE_WORDS = frozenset({"call", "import", "type", "read", "write", "ref"})
RELATION_WORDS = frozenset({"supertype", "subtype", "overridden", "overriding"})
MARKER_WORDS = ROLE_WORDS | RELATION_WORDS | {"caller", "callee", "def", "error", "unlisted"}
FLAG_WORDS = frozenset({"uncertain", "inferred", "ambiguous", "matched", "caller"})
ARITY = {"caller": 2, "def": 3}  # words these markers take, the first included
MARKER = re.compile(r"^(?P<indent>\s*)(?P<tok>#|//)(?P<rest>\s*(\^+|<-).*)$")


class FixtureError(ValueError):
    """A fixture text that does not follow the format (names the line)."""


@dataclass(frozen=True)
class Expect:
    """One expectation: a site at (path, line, column range) with words after the marker."""

    path: str
    line: int
    col: int
    end_col: int
    words: tuple[str, ...]


@dataclass
class Fixture:
    checks: tuple[str, ...]
    files: dict[str, str] = field(default_factory=dict)
    cursor: tuple[str, int, int] | None = None  # path, 1-based line, 1-based column
    expects: list[Expect] = field(default_factory=list)

    def write(self, root: Path, git: bool = True) -> None:
        write_files(root, self.files)
        if git:
            commit_all(root)


def write_files(root: Path, files: Mapping[str, str | bytes]) -> None:
    """Write {path: text (UTF-8) or bytes} under `root`, creating folders (root included)."""
    root.mkdir(parents=True, exist_ok=True)
    for path, content in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")


def commit_all(root: Path, message: str = "fixture") -> None:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
           "PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": str(root)}
    if not (root / ".git").exists():
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", message], cwd=root,
                   check=True, env=env)


def parse_fixture(text: str) -> Fixture:
    """Parse a fixture; its first line must be `#! CHECK ...` naming known checks.
    Raises FixtureError on unknown check words and on text before the first `#- path`."""
    lead = len(text) - len(text.lstrip("\n"))  # line numbers in errors count from the text
    lines = text.strip("\n").splitlines()
    checks: tuple[str, ...] = ()
    if lines and lines[0].startswith("#!"):
        checks = tuple(lines[0][2:].split())
        lines = lines[1:]
        unknown = sorted(set(checks) - CHECK_WORDS)
        if unknown:
            raise FixtureError(f"line {lead + 1}: unknown check word(s) {', '.join(unknown)} "
                               f"(known: {', '.join(sorted(CHECK_WORDS))})")
        if not set(checks) - {"all"}:
            raise FixtureError(f"line {lead + 1}: '#!' names no check")
    else:
        raise FixtureError(f"line {lead + 1}: a fixture starts with '#! CHECK ...'")
    first = lead + 2
    fx = Fixture(checks)
    path: str | None = None
    body: list[str] = []

    def flush() -> None:
        if path is not None:
            fx.files[path] = "\n".join(body) + "\n"

    for n, raw in enumerate(lines, first):
        if raw.startswith("#- "):
            flush()
            path, body = raw[3:].strip(), []
            if not path:
                raise FixtureError(f"line {n}: '#-' names no file")
            continue
        if path is None:
            if raw.strip():
                raise FixtureError(f"line {n}: text before the first '#- path': {raw!r}")
            continue
        line_no = len(body) + 1
        m = MARKER.match(raw)
        if m:
            rest = m.group("rest").strip()
            target = line_no - 1
            while target >= 1 and MARKER.match(body[target - 1]):
                target -= 1
            if rest.startswith("<-"):
                col = len(m.group("indent"))
                words = _marker_words(n, tuple(rest[2:].split()))
                fx.expects.append(Expect(path, target, col, col + 1, words))
            else:
                start = raw.index("^")
                end = start
                while end < len(raw) and raw[end] == "^":
                    end += 1
                words = _marker_words(n, tuple(raw[end:].split()))
                fx.expects.append(Expect(path, target, start, end, words))
        if "$0" in raw:
            col = raw.index("$0")
            raw = raw.replace("$0", "", 1)
            fx.cursor = (path, line_no, col + 1)
        body.append(raw)
    flush()
    return fx


def _marker_words(line: int, words: tuple[str, ...]) -> tuple[str, ...]:
    """A marker's words, checked: a known first word, its arguments, known flags."""
    if not words or words[0] not in MARKER_WORDS:
        raise FixtureError(f"line {line}: a marker starts with one of "
                           f"{', '.join(sorted(MARKER_WORDS))}, got {' '.join(words)!r}")
    arity = ARITY.get(words[0], 1)
    if len(words) < arity:
        raise FixtureError(f"line {line}: '{words[0]}' needs {arity - 1} more word(s)")
    unknown = [w for w in words[arity:] if w not in FLAG_WORDS]
    if unknown:
        raise FixtureError(f"line {line}: unknown marker flag(s) {', '.join(unknown)} "
                           f"(known: {', '.join(sorted(FLAG_WORDS))})")
    return words
