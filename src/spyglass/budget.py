"""The answer budget: one algorithm fitting every tool's answer to a size (docs/contract.md,
"The answer budget").

Results arrive ranked, most relevant first (the query layer ranks: direct before
transitive, certain before uncertain, tests referencing the change before convention
matches). The budget keeps the longest prefix of the results and of each listed section
whose text (render.py) fits `max_chars` and whose structured content (wire.py) fits
STRUCTURED_FACTOR times it; what it leaves out is counted per file, and the parameters that
narrow the question are named as the front end spells them (CLI options on the CLI, tool
arguments over MCP, query parameters over HTTP)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import singledispatch
from typing import Any, Literal

from spyglass.query.results import FileCount, Omitted, Page, SourceSpan
from spyglass.render import render
from spyglass.surface import BUDGETS, DEFAULT_CHARS, STRUCTURED_FACTOR, Param, Tool
from spyglass.types import ToolResult
from spyglass.wire import result_json

Front = Literal["mcp", "cli", "http"]
KEEP = frozenset({"change", "commands", "frameworks", "info"})  # sections kept whole
MIN_SECTION = 3  # items a cut section keeps (when it has them)
MIN_RESULTS = 3  # results kept before the per-file rows give way
FILE_ROWS = (40, 10, 0)  # files listed with their counts (one row each), fewer if need be
MORE_LINES = 4  # lines of a file's left-out results named in its row
STEPS = 12  # bisection steps over the kept fraction
CHARS_PER_TOKEN = 4  # a budget given in tokens (code_explore's `budget`)

# Parameters that narrow a question, with what they do (named in the guidance when the tool
# has them and the front end offers them).
NARROWING = {
    "path": "a file or sub-folder",
    "paths": "fewer files or a sub-folder",
    "kind": "one kind",
    "exact_only": "certain results only",
    "depth": "fewer hops, 1 = direct users only",
    "targets": "fewer targets, or path:line ranges",
    "spans": "shorter spans",
}
AT_PATH = "the definition's file, when the name has several"  # tools taking a position


def budget_param(tool: Tool) -> Param | None:
    """The tool's budget parameter: `max_chars`, or a budget in tokens (`budget`)."""
    return next((p for p in tool.params if p.name in BUDGETS), None)


def chars_of(tool: Tool, values: Mapping[str, Any]) -> int:
    """The budget of one call in characters of text (0: none)."""
    p = budget_param(tool)
    if p is None:
        return DEFAULT_CHARS
    value = values.get(p.name)
    value = p.default if value is None else value
    chars = int(value) if isinstance(value, int) else DEFAULT_CHARS
    return chars * CHARS_PER_TOKEN if p.name == "budget" else chars


def spelled(p: Param, front: Front) -> str | None:
    """A parameter as the front end takes it (None: not offered there)."""
    if front == "cli":
        if p.cli is None:
            return None
        return p.name.upper() if p.positional else p.option
    if front == "http":
        return None if p.http is None else p.http_name
    return p.name


def narrowing(tool: Tool, front: Front) -> tuple[tuple[str, ...], str]:
    """The narrowing parameters of a tool with what they do, and its budget parameter."""
    out = []
    for p in tool.params:
        name = spelled(p, front) if p.name in NARROWING else None
        if name:
            what = AT_PATH if tool.at and p.name == "path" else NARROWING[p.name]
            out.append(f"{name} ({what})")
    bp = budget_param(tool)
    return tuple(out), (spelled(bp, front) or bp.name) if bp else "max_chars"


def sizes(result: ToolResult, tool: Tool, front: Front) -> tuple[int, int]:
    """Characters of the answer's text and of its structured content."""
    text = render(result, tool.name, people=front == "cli")
    return len(text), len(json.dumps(result_json(result), default=str))


def fit(result: ToolResult, tool: Tool, max_chars: int, front: Front) -> ToolResult:
    """The answer within the budget: the longest fitting prefix of every list, an Omitted
    section saying what was left out and how to narrow, `truncated` set. An answer the
    query layer truncated gets the same section (with nothing more left out). A tool that
    continues (an `offset` parameter) says where the next page starts: after the last
    result shown, whether the budget or the query's cap cut the answer."""
    # Measured with the widest page section it may get, rewritten once the cut is known.
    widest = paged(result, result, tool, front, widest=True)
    out = paged(_fit(widest, tool, max_chars, front), result, tool, front)
    return result if out == result else out


def paged(out: ToolResult, whole: ToolResult, tool: Tool, front: Front,
          widest: bool = False) -> ToolResult:
    """`out` (a prefix of `whole`'s results) with its page section: where it starts, how
    many it shows, where the next page starts, spelled for the front end; none when `out`
    is all of a one-page answer. `widest`: the longest section any cut of `whole` gets."""
    param = next((p for p in tool.params if p.name == "offset"), None)
    name = spelled(param, front) if param is not None else None
    page = next((v for _, v in whole.extra if isinstance(v, Page)), None)
    extra = tuple((k, v) for k, v in out.extra if k != "page")
    shown = len(out.results)
    if name is None or (page is None and shown == len(whole.results) and not widest):
        return replace(out, extra=extra) if len(extra) < len(out.extra) else out
    start = page.offset if page else 0
    total = page.total if page else len(whole.results)
    nxt = start + shown if shown < len(whole.results) else (page.next_offset if page else None)
    if widest:
        nxt = max(total, nxt or 0)
    ask = "" if nxt is None else (f"{name} {nxt}" if front == "cli" else f"{name}={nxt}")
    return replace(out, extra=(*extra, ("page", Page(start, shown, total, nxt, ask))))


def _fit(result: ToolResult, tool: Tool, max_chars: int, front: Front) -> ToolResult:
    narrow, raise_budget = narrowing(tool, front)
    if max_chars <= 0 or _fits(result, tool, max_chars, front):
        if not result.truncated:
            return result
        return _with(result, Omitted(max_chars, 0, len(result.results), (), (), 0, narrow,
                                     raise_budget))
    lists = [(k, v) for k, v in result.extra if isinstance(v, tuple) and k not in KEEP
             and len(v) > MIN_SECTION]
    counts = _by_file(result.results)

    def cut(share: float, rows: int) -> ToolResult:
        """`share` of every list (at least MIN_SECTION of a section, none when `rows` is
        0) and up to `rows` files in the per-file count."""
        least = MIN_SECTION if rows else 0
        n = math.ceil(share * len(result.results))
        kept = {k: v[:max(math.ceil(share * len(v)), least)] for k, v in lists}
        left = tuple((k, len(v) - len(kept[k])) for k, v in lists if len(v) > len(kept[k]))
        shown = _by_file(result.results[:n])
        rest = _lines(result.results[n:])
        by_file = tuple(FileCount(p, total, shown.get(p, (0, 0))[0], unsure,
                                  tuple(sorted(rest.get(p, ()))))
                        for p, (total, unsure) in counts.items())
        omitted = Omitted(max_chars, len(result.results) - n, n, left, by_file[:rows],
                          len(by_file), narrow, raise_budget)
        extra = tuple((k, kept.get(k, v)) for k, v in result.extra)
        skipped = result.coverage.skipped
        coverage = replace(result.coverage,
                           skipped=skipped[:max(math.ceil(share * len(skipped)), least)])
        return _with(replace(result, results=result.results[:n], extra=extra,
                             coverage=coverage), omitted)

    # The first few results and the per-file rows (they map the whole answer) come first;
    # fewer rows when they do not fit, none at last, then no results.
    first = min(1.0, MIN_RESULTS / len(result.results)) if result.results else 0.0
    for rows, low in [(rows, first) for rows in FILE_ROWS] + [(0, 0.0)]:
        best = cut(low, rows)
        if _fits(best, tool, max_chars, front):
            break
    else:
        return _smallest(best, result, tool, max_chars, front)
    high = 1.0
    for _ in range(STEPS):
        mid = (low + high) / 2
        candidate = cut(mid, rows)
        if _fits(candidate, tool, max_chars, front):
            low, best = mid, candidate
        else:
            high = mid
    if result.results and not best.results:
        return _smallest(best, result, tool, max_chars, front)
    return best


def _fits(result: ToolResult, tool: Tool, max_chars: int, front: Front) -> bool:
    text, data = sizes(result, tool, front)
    return text <= max_chars and data <= STRUCTURED_FACTOR * max_chars


def _with(result: ToolResult, omitted: Omitted) -> ToolResult:
    extra = tuple((k, v) for k, v in result.extra if k != "omitted")
    return replace(result, truncated=True, extra=(*extra, ("omitted", omitted)))


def _by_file(items: tuple[object, ...]) -> dict[str, tuple[int, int]]:
    """Results per file in rank order (first appearance): (results, uncertain ones)."""
    out: dict[str, tuple[int, int]] = {}
    for item in items:
        path = getattr(item, "path", None)
        if isinstance(path, str):
            total, unsure = out.get(path, (0, 0))
            out[path] = (total + 1, unsure + bool(getattr(item, "uncertain", False)))
    return out


def _lines(items: tuple[object, ...]) -> dict[str, list[int]]:
    """The lines of each file's first MORE_LINES results (in rank order)."""
    out: dict[str, list[int]] = {}
    for item in items:
        path, line = getattr(item, "path", None), getattr(item, "start_line", None)
        if isinstance(path, str) and isinstance(line, int):
            found = out.setdefault(path, [])
            if len(found) < MORE_LINES:
                found.append(line)
    return out


def _smallest(best: ToolResult, whole: ToolResult, tool: Tool, max_chars: int,
              front: Front) -> ToolResult:
    """Nothing whole fits: the first result made smaller (a source span's first lines)
    when its type can be, else the answer with no results (its counts and guidance)."""
    if not whole.results:
        return best
    first = whole.results[0]

    def attempt(share: float) -> ToolResult | None:
        small = shrink(first, share)
        if small is None:
            return None
        omitted = next(v for k, v in best.extra if k == "omitted")
        assert isinstance(omitted, Omitted)
        one = replace(best, results=(small,))
        return _with(one, replace(omitted, results=omitted.results - 1, shown=1))
    return _bisect(attempt, lambda r: _fits(r, tool, max_chars, front)) or best


def _bisect(attempt: Callable[[float], ToolResult | None],
            ok: Callable[[ToolResult], bool]) -> ToolResult | None:
    low, high, found = 0.0, 1.0, None
    for _ in range(STEPS):
        mid = (low + high) / 2
        candidate = attempt(mid)
        if candidate is not None and ok(candidate):
            low, found = mid, candidate
        else:
            high = mid
    return found


@singledispatch
def shrink(item: object, share: float) -> object | None:
    """A smaller form of one result keeping `share` of it (None: it cannot be shrunk)."""
    return None


@shrink.register
def _(item: SourceSpan, share: float) -> object | None:
    lines = item.text.splitlines(keepends=True)
    keep = math.floor(share * len(lines))
    if keep < 1:
        return None
    return replace(item, text="".join(lines[:keep]), end_line=item.start_line + keep - 1,
                   truncated=True)
