"""Nested byte ranges: the innermost range holding a position, and each range's parent."""

from __future__ import annotations

from bisect import bisect_right


def segments(intervals: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """Cut the line of byte offsets into segments with a constant innermost interval.

    Returns (segment starts, innermost interval index of each segment or -1)."""
    events: list[tuple[int, int, int]] = []  # (offset, 0 = end / 1 = start, index)
    for i, (start, end) in enumerate(intervals):
        events.append((start, 1, i))
        events.append((end, 0, i))
    events.sort(key=lambda e: (e[0], e[1], -e[2] if e[1] == 0 else e[2]))
    starts: list[int] = [0]
    owners: list[int] = [-1]
    stack: list[int] = []
    for offset, kind, i in events:
        if kind == 1:
            stack.append(i)
        elif stack and stack[-1] == i:
            stack.pop()
        elif i in stack:
            stack.remove(i)
        owner = stack[-1] if stack else -1
        if starts[-1] == offset:
            owners[-1] = owner
        else:
            starts.append(offset)
            owners.append(owner)
    return starts, owners


def innermost(intervals: list[tuple[int, int]] | tuple[list[int], list[int]],
               positions: list[int]) -> list[int]:
    """For each position, the index of the innermost interval containing it (or -1).

    `intervals` must be sorted by (start, -end) and properly nested, or be the
    precomputed `_segments` of such intervals."""
    if not intervals:
        return [-1] * len(positions)
    starts, owners = intervals if isinstance(intervals, tuple) else segments(intervals)
    return [owners[bisect_right(starts, pos) - 1] for pos in positions]


def parents(intervals: list[tuple[int, int]]) -> list[int]:
    """Parent of each interval (sorted by (start, -end)) in the nesting forest."""
    parents = [-1] * len(intervals)
    stack: list[int] = []
    for i, (start, end) in enumerate(intervals):
        while stack and intervals[stack[-1]][1] <= start and not (
            intervals[stack[-1]][0] == start and intervals[stack[-1]][1] >= end
        ):
            stack.pop()
        while stack and not (intervals[stack[-1]][0] <= start and end <= intervals[stack[-1]][1]):
            stack.pop()
        while stack and intervals[stack[-1]] == (start, end):
            stack.pop()  # identical spans (``a, b = 1, 2``) are siblings, not nested
        parents[i] = stack[-1] if stack else -1
        stack.append(i)
    return parents
