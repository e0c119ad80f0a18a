"""Ad hoc tree-sitter queries made safe: RE2 for regex predicates, a shape limit, a CPU budget.

A client's query runs inside the server process and tree-sitter holds the GIL while it
compiles and matches, so nothing slow may happen there unbounded (docs/security.md):

* the regex predicates (`#match?`, `#not-match?`, `#any-match?`, `#any-not-match?`) are
  renamed before compiling and evaluated here with RE2 (linear time, no backtracking);
  py-tree-sitter's own evaluation would use Python's backtracking `re`;
* predicates tree-sitter does not know are refused, and so are RE2's missing features
  (back-references, look-around), with the reason;
* the query text is bounded in characters and in quantifiers (tree-sitter's query analysis
  grows much faster than linearly with optional steps and cannot be interrupted);
* matching runs under one CPU-time budget for the whole request (the working thread's
  CPU time, so a busy machine does not cut an answer short): the regex predicates check it
  at every call, and the cursor runs in match mode (capture mode ignores tree-sitter's
  timeout: two sibling patterns with `#eq?` took 20 s against a 1 s budget) with a
  wall-clock timeout of what is left, stretched by the share of a core the thread got
  while parsing the file, at most `WALL_SLACK` times the budget. tree-sitter's progress callback, the only way to stop
  it by CPU time, crashes py-tree-sitter 0.25, and so does an exception from a predicate.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import re2  # type: ignore[import-untyped]
from tree_sitter import Language, Node, Query, QueryCursor

from spyglass.errors import BadInput
from spyglass.syntax.budget import WALL_SLACK

MAX_QUERY_CHARS = 8192
MAX_QUANTIFIERS = 16  # 16 optional steps compile in ~0.1 s; 24 in ~0.35 s, 320 in 21 s
TIME_BUDGET_SECONDS = 1.0  # CPU time of the working thread: reading, parsing and matching
REGEX_MEMORY = 2 << 20  # per pattern: RE2's program and DFA cache (then it runs as an NFA)
MAX_REGEXES = 32
MIN_SLICE_SECONDS = 0.1
RENAMED = "spyglass-"
REGEX_PREDICATES = frozenset({"match?", "not-match?", "any-match?", "any-not-match?"})
NATIVE_PREDICATES = frozenset({"eq?", "not-eq?", "any-eq?", "any-not-eq?", "any-of?",
                               "not-any-of?", "is?", "is-not?", "set!"})
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "0": "\0"}


@dataclass(frozen=True)
class _Token:
    kind: str  # "open", "close", "predicate", "capture", "string", "quantifier", "other"
    text: str
    start: int
    end: int


def _string_end(text: str, start: int) -> tuple[int, str]:
    """The end of the string literal opening at `start` and its value (tree-sitter escapes)."""
    out: list[str] = []
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        if ch == '"':
            return i + 1, "".join(out)
        out.append(ch)
        i += 1
    raise BadInput("invalid tree-sitter query: unterminated string literal")


def _tokens(text: str) -> Iterator[_Token]:
    """The query's tokens that matter here; strings and comments are skipped over whole."""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == ";":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end + 1
        elif ch == '"':
            end, value = _string_end(text, i)
            yield _Token("string", value, i, end)
            i = end
        elif ch in "([":
            yield _Token("open", ch, i, i + 1)
            i += 1
        elif ch in ")]":
            yield _Token("close", ch, i, i + 1)
            i += 1
        elif ch in "*+?":
            yield _Token("quantifier", ch, i, i + 1)
            i += 1
        elif ch in "#@":
            j = i + 1
            while j < len(text) and (text[j].isalnum() or text[j] in "_-.?!"):
                j += 1
            yield _Token("predicate" if ch == "#" else "capture", text[i + 1:j], i, j)
            i = j
        else:
            i += 1


def compile_regex(pattern: str) -> Any:
    """An RE2 program for a predicate's pattern; RE2's refusal becomes the client's error."""
    options = re2.Options()
    options.log_errors = False
    options.max_mem = REGEX_MEMORY
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(
            exc.args[0], bytes) else str(exc)
        raise BadInput(f"regular expression {pattern[:80]!r} is not accepted: {reason} "
                       "(predicates use RE2: no back-references or look-around)") from None


def prepare(text: str) -> tuple[str, dict[str, Any]]:
    """The query text with its regex predicates renamed, and their compiled patterns."""
    if len(text) > MAX_QUERY_CHARS:
        raise BadInput(f"the query is {len(text)} characters; at most {MAX_QUERY_CHARS}")
    tokens = list(_tokens(text))
    quantifiers = sum(1 for t in tokens if t.kind == "quantifier")
    if quantifiers > MAX_QUANTIFIERS:
        raise BadInput(f"the query has {quantifiers} quantifiers (*, +, ?); at most "
                       f"{MAX_QUANTIFIERS}")
    patterns: dict[str, Any] = {}
    pieces: list[str] = []
    last = 0
    for n, token in enumerate(tokens):
        if token.kind != "predicate":
            continue
        name = token.text
        if name in NATIVE_PREDICATES:
            continue
        if name not in REGEX_PREDICATES:
            known = ", ".join(f"#{p}" for p in sorted(NATIVE_PREDICATES | REGEX_PREDICATES))
            raise BadInput(f"unsupported query predicate #{name}; supported: {known}")
        args = []
        for arg in tokens[n + 1:]:
            if arg.kind == "close":
                break
            args.append(arg)
        if [a.kind for a in args] != ["capture", "string"]:
            raise BadInput(f"#{name} takes a capture and a string: (#{name} @name \"regex\")")
        if args[1].text not in patterns and len(patterns) >= MAX_REGEXES:
            raise BadInput(f"the query has more than {MAX_REGEXES} distinct regular expressions")
        patterns.setdefault(args[1].text, compile_regex(args[1].text))
        pieces += [text[last:token.start], f"#{RENAMED}{name}"]
        last = token.end
    pieces.append(text[last:])
    return "".join(pieces), patterns


@dataclass
class RegexPredicates:
    """The callback py-tree-sitter calls for the renamed predicates: RE2 over capture text."""

    patterns: dict[str, Any]
    evaluated: int = 0
    errors: list[str] = field(default_factory=list)
    deadline: float = float("inf")  # the request's end, in thread CPU time
    expired: bool = False

    def __call__(self, predicate: str, args: list[tuple[str, Literal["capture", "string"]]],
                 pattern_index: int,
                 captures: dict[str, list[Node]]) -> bool:
        name = predicate.removeprefix(RENAMED)
        if name not in REGEX_PREDICATES or len(args) != 2:
            self.errors.append(f"unsupported query predicate #{predicate}")
            return False
        if self.expired or self.evaluated % 16 == 0 and time.thread_time() >= self.deadline:
            self.expired = True  # the rest of the matches are dropped, cheaply
            return False
        (capture, _), (pattern, _) = args
        regex = self.patterns.get(pattern)
        if regex is None:  # every pattern was compiled by prepare(); keep it safe anyway
            try:
                regex = self.patterns[pattern] = compile_regex(pattern)
            except BadInput as exc:
                self.errors.append(str(exc))
                return False
        self.evaluated += 1
        hits = [regex.search((node.text or b"").decode("utf-8", "replace")) is not None
                for node in captures.get(capture, [])]
        if name == "match?":
            return all(hits)
        if name == "not-match?":
            return not any(hits)
        if name == "any-match?":
            return any(hits)
        return not all(hits)  # any-not-match?


class AdHocQuery:
    """One client query compiled per language, run file by file under one CPU budget."""

    def __init__(self, text: str, seconds: float = TIME_BUDGET_SECONDS) -> None:
        if not text.strip():
            raise BadInput("query must be a non-empty tree-sitter query")
        self.text, patterns = prepare(text)
        self.seconds = seconds
        self.deadline = time.thread_time() + seconds
        self.wall_deadline = time.monotonic() + seconds * WALL_SLACK
        self.predicates = RegexPredicates(patterns, deadline=self.deadline)
        self.timed_out = False
        self._compiled: dict[str, Query] = {}

    def compiled(self, language_name: str, language: Language) -> Query:
        query = self._compiled.get(language_name)
        if query is None:
            try:
                query = Query(language, self.text)
            except (ValueError, TypeError) as exc:  # QueryError is a ValueError
                raise BadInput(f"invalid tree-sitter query for {language_name}: "
                               f"{str(exc).replace(RENAMED, '')}") from None
            self._compiled[language_name] = query
        return query

    def remaining(self) -> float:
        """CPU seconds left (0 once the wall-clock bound is spent too)."""
        if time.monotonic() >= self.wall_deadline:
            return 0.0
        return self.deadline - time.thread_time()

    def _wall_slice(self, cpu_left: float, share: float) -> float:
        """The cursor's wall-clock timeout for `cpu_left` CPU seconds, given the share of a
        core this thread got lately (its parse's CPU over wall time): within the bound."""
        stretch = 1.0 / min(max(share, 1.0 / WALL_SLACK), 1.0)
        return max(0.001, min(cpu_left * stretch, self.wall_deadline - time.monotonic()))

    def captures(self, query: Query, root: Node, match_limit: int, share: float = 1.0
                 ) -> dict[str, list[Node]]:
        """The captures of `query` under `root` within what is left of the budget; `share`:
        the CPU share of a core the thread had while parsing the file (1: an idle core)."""
        # A file already parsed gets at least a short slice: its parse is paid for.
        left = max(self.remaining(), MIN_SLICE_SECONDS)
        self.predicates.deadline = time.thread_time() + left
        wall = self._wall_slice(left, share)
        with warnings.catch_warnings():  # the cursor timeout is deprecated for a progress
            warnings.simplefilter("ignore", DeprecationWarning)  # callback that segfaults
            cursor = QueryCursor(query, match_limit=match_limit,
                                 timeout_micros=max(1, int(wall * 1_000_000)))
        began = time.monotonic()
        matches = cursor.matches(root, self.predicates)
        if self.predicates.errors:
            raise BadInput(self.predicates.errors[0])
        if self.predicates.expired or time.monotonic() - began >= wall * 0.98 \
                or self.remaining() <= 0:
            self.timed_out = True
        found: dict[str, list[Node]] = {}
        seen: set[tuple[str, int]] = set()
        for _, groups in matches:  # a node in several matches is one capture
            for name, nodes in groups.items():
                for node in nodes:
                    if (name, node.id) not in seen:
                        seen.add((name, node.id))
                        found.setdefault(name, []).append(node)
        return found

    def limitation(self) -> str | None:
        """The note an answer carries when the budget cut it short."""
        if not self.timed_out:
            return None
        return (f"the query ran out of its {self.seconds:g} s CPU time budget: the answer is "
                "partial; narrow the paths or simplify the query")
