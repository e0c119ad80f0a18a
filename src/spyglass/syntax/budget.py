"""A time budget for the tree-sitter work on one file, so no file can stall an answer.

Parsing is linear, but tree-sitter's query cursors are quadratic in the nesting depth of a
tree with errors (a line of 64,000 unclosed brackets: ~9 s per query). The budget counts
only the time spent inside tree-sitter (parse and query cursors), which is what can blow
up; the Python work on the captures is linear in the file's size, bounded by
`max_file_bytes`. See docs/security.md "Processes, secrets and limits"."""

from __future__ import annotations

import time
import warnings

from tree_sitter import Node, Parser, Query, QueryCursor, Tree

from spyglass.errors import LimitExceeded

PARSE_SECONDS = 5.0  # per file: parse plus queries, wall clock
# `timeout_micros` is deprecated in favour of `progress_callback`, which crashes the
# interpreter in `Parser.parse` and is never called by `QueryCursor.captures` (0.25.2).
# A process-wide filter for exactly that warning (thread-safe, unlike catch_warnings).
warnings.filterwarnings("ignore", message="Use the progress_callback",
                        category=DeprecationWarning)


class OverBudget(LimitExceeded):
    """Parsing or querying one file took longer than its budget."""


class Budget:
    """Seconds of tree-sitter time left for one file; each step is timed out by
    tree-sitter itself and raises `OverBudget` once the total is spent."""

    def __init__(self, seconds: float | None = None) -> None:
        self.seconds = PARSE_SECONDS if seconds is None else seconds
        self.spent = 0.0

    def _micros(self) -> int:
        return max(1, int((self.seconds - self.spent) * 1_000_000))

    def _charge(self, started: float, what: str) -> None:
        self.spent += time.monotonic() - started
        if self.spent >= self.seconds:
            raise OverBudget(f"{what} took longer than the {self.seconds:g}s parse budget "
                             "(pathological nesting or size)")

    def parse(self, parser: Parser, data: bytes) -> Tree:
        started = time.monotonic()
        setattr(parser, "timeout_micros", self._micros())  # noqa: B010 (stubs: read-only)
        try:
            tree = parser.parse(data)
        except ValueError:  # the timeout expired
            parser.reset()  # or the next parse would resume this one
            tree = None
        self._charge(started, "parsing")
        if tree is None:
            raise OverBudget(f"parsing took longer than the {self.seconds:g}s parse budget")
        return tree

    def _cursor(self, query: Query, match_limit: int | None = None) -> QueryCursor:
        cursor = QueryCursor(query) if match_limit is None else \
            QueryCursor(query, match_limit=match_limit)
        setattr(cursor, "timeout_micros", self._micros())  # noqa: B010
        return cursor

    def matches(self, query: Query, node: Node) -> list[tuple[int, dict[str, list[Node]]]]:
        """All matches, or OverBudget (a timed-out cursor returns partial results)."""
        started = time.monotonic()
        found = self._cursor(query).matches(node)
        self._charge(started, "querying")
        return found

    def captures(self, query: Query, node: Node, match_limit: int | None = None
                 ) -> dict[str, list[Node]]:
        started = time.monotonic()
        found = self._cursor(query, match_limit).captures(node)
        self._charge(started, "querying")
        return found

