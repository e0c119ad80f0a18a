"""A time budget for the tree-sitter work on one file, so no file can stall an answer.

Parsing is linear, but tree-sitter's query cursors are quadratic in the nesting depth of a
tree with errors (a line of 64,000 unclosed brackets: ~9 s per query). The budget counts
only the time spent inside tree-sitter (parse and query cursors), which is what can blow
up; the Python work on the captures is linear in the file's size, bounded by
`max_file_bytes`. It is CPU time of the working thread, so a loaded machine does not change
which files are analysed; wall-clock time is still bounded, at `WALL_SLACK` times the
budget (tree-sitter's own timeout). See docs/security.md "Processes, secrets and limits"."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import TypeVar

from tree_sitter import Node, Parser, Query, QueryCursor, Tree

from spyglass.errors import LimitExceeded

PARSE_SECONDS = 5.0  # per file: parse plus queries, CPU time of the working thread
WALL_SLACK = 4.0  # wall-clock bound = budget x this (other processes share the cores)
# `timeout_micros` is deprecated in favour of `progress_callback`, which crashes the
# interpreter in `Parser.parse` and is never called by `QueryCursor.captures` (0.25.2).
# A process-wide filter for exactly that warning (thread-safe, unlike catch_warnings).
warnings.filterwarnings("ignore", message="Use the progress_callback",
                        category=DeprecationWarning)


_T = TypeVar("_T")


class OverBudget(LimitExceeded):
    """Parsing or querying one file took longer than its budget."""


class Budget:
    """Seconds of tree-sitter CPU time left for one file. Each step is timed out by
    tree-sitter itself (wall clock) at what is left; a step timed out while the machine was
    busy elsewhere (less CPU time than wall time) is resumed, or re-run, until the CPU
    budget or the wall-clock bound (`WALL_SLACK` times the budget) is spent, then
    `OverBudget`."""

    def __init__(self, seconds: float | None = None) -> None:
        self.seconds = PARSE_SECONDS if seconds is None else seconds
        self.spent = 0.0  # CPU seconds of the working thread
        self.wall = 0.0

    def _micros(self) -> int:
        left = min(self.seconds - self.spent, self.seconds * WALL_SLACK - self.wall)
        return max(1, int(left * 1_000_000))

    def _step(self, run: Callable[[int], _T | None], what: str) -> _T:
        """`run(timeout_micros)` until it finishes (not None) within the budget."""
        while True:
            micros = self._micros()
            cpu, wall = time.thread_time(), time.monotonic()
            found = run(micros)
            self.spent += time.thread_time() - cpu
            elapsed = time.monotonic() - wall
            self.wall += elapsed
            if self.spent >= self.seconds or self.wall >= self.seconds * WALL_SLACK:
                raise OverBudget(f"{what} took longer than the {self.seconds:g}s parse "
                                 "budget (pathological nesting or size)")
            if found is not None and elapsed * 1_000_000 < micros:
                return found

    def parse(self, parser: Parser, data: bytes) -> Tree:
        def run(micros: int) -> Tree | None:
            setattr(parser, "timeout_micros", micros)  # noqa: B010 (stubs: read-only)
            try:
                return parser.parse(data)  # after a timeout: resumes where it stopped
            except ValueError:  # the timeout expired
                return None
        try:
            return self._step(run, "parsing")
        except OverBudget:
            parser.reset()  # or the next parse would resume this one
            raise

    def _cursor(self, query: Query, micros: int, match_limit: int | None) -> QueryCursor:
        cursor = QueryCursor(query) if match_limit is None else \
            QueryCursor(query, match_limit=match_limit)
        setattr(cursor, "timeout_micros", micros)  # noqa: B010
        return cursor

    def matches(self, query: Query, node: Node) -> list[tuple[int, dict[str, list[Node]]]]:
        """All matches, or OverBudget (a timed-out cursor returns partial results, so a
        timed-out step is re-run whole)."""
        return self._step(lambda micros: self._cursor(query, micros, None).matches(node),
                          "querying")

    def captures(self, query: Query, node: Node, match_limit: int | None = None
                 ) -> dict[str, list[Node]]:
        return self._step(
            lambda micros: self._cursor(query, micros, match_limit).captures(node),
            "querying")
