"""code_explore until the facade has its own: ranked symbols with callers and tests, cited."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from spyglass.errors import BadInput
from spyglass.wire import coverage_json, plain, provenance_json

if TYPE_CHECKING:
    from spyglass.query.facade import CodeIntel
    from spyglass.types import CodeLocation, ToolResult

WITH_CALLERS = 6
CITED_CALLERS = 8
KIND_WEIGHT = {"class": 12, "struct": 12, "interface": 12, "func": 10, "method": 8, "type": 8,
               "enum": 6, "test": -6, "const": 0, "var": -6, "field": -8, "module": 4}
TEST_PATH = re.compile(r"(^|/)(tests?/|test_[^/]*$|[^/]*_test\.[a-z]+$|[^/]*\.(test|spec)\.[a-z]+$)")


def is_test_path(path: str) -> bool:
    return bool(TEST_PATH.search(path))


def _words(text: str) -> list[str]:
    """Lower-case words of a query or name: split on punctuation, `_` and camelCase humps."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


def _patterns(query: str) -> list[str]:
    """Name patterns to look up: the query as given, then each word of it as a substring."""
    q = query.strip()
    if "*" in q or "?" in q:
        return [q]
    out = [q] if re.fullmatch(r"[\w.#/]+", q) else []
    for word in [w for w in re.split(r"[^\w]+", q) if len(w) >= 3] or [q]:
        out += [f"*{word}*", f"*{word[:1].upper()}{word[1:]}*"]
    return list(dict.fromkeys(out))


def _score(loc: CodeLocation, query: str, words: list[str]) -> int:
    short = loc.symbol.rsplit(".", 1)[-1]
    own = _words(short)
    score = 40 + (50 * sum(1 for w in words if w in own) // max(len(words), 1))
    score += 10 * sum(1 for w in words if w not in own and w in short.lower())
    if loc.symbol == query or short == query or own == words:
        score += 30
    elif loc.symbol.endswith("." + query):
        score += 25
    penalty = 15 if is_test_path(loc.path) else 0
    return score + KIND_WEIGHT.get(loc.kind, 0) - penalty - loc.path.count("/")


def _candidates(ci: CodeIntel, query: str, scope: str | None
                ) -> tuple[list[tuple[int, CodeLocation]], ToolResult | None]:
    """Definitions the query may mean: a path's outline, else names and name patterns."""
    found: dict[tuple[str, int], tuple[int, CodeLocation]] = {}
    last: ToolResult | None = None
    q = query.strip()
    if ("/" in q or "." in q) and " " not in q and (ci.root / q).exists():
        last = ci.structure(ci.rel_path(q))
        for r in last.results:
            loc: CodeLocation = r  # type: ignore[assignment]
            if loc.kind not in ("field", "var"):
                found[(loc.path, loc.start_line)] = (KIND_WEIGHT.get(loc.kind, 0) + 50, loc)
        return sorted(found.values(), key=lambda x: (-x[0], x[1].path, x[1].start_line)), last
    words = _words(q)
    for pattern in _patterns(q):
        last = ci.find_symbol(pattern, None, scope)
        for r in last.results:
            loc = r  # type: ignore[assignment]
            key = (loc.path, loc.start_line)
            if key not in found:
                found[key] = (_score(loc, q, words), loc)
    ranked = sorted(found.values(), key=lambda x: (-x[0], x[1].path, x[1].start_line))
    return ranked, last


def _cite(loc: CodeLocation) -> str:
    return f"{loc.path}:{loc.start_line} {loc.symbol}"


def explore(ci: CodeIntel, query: str, path: str | None, budget: int) -> dict[str, Any]:
    """Bounded discovery: the likeliest definitions, each with its callers and the tests among
    them, as citations (path:line). Never source text; read spans with code_context."""
    if not query.strip():
        raise BadInput("query must be a symbol name, a few words or a path")
    scope = ci.rel_path(path) if path else None
    ranked, last = _candidates(ci, query, scope)
    results: list[dict[str, Any]] = []
    spent = 0
    truncated = False
    for n, (score, loc) in enumerate(ranked):
        entry: dict[str, Any] = plain(loc)
        entry["score"] = score
        if n < WITH_CALLERS and loc.kind not in ("module", "package", "field", "var"):
            try:
                callers = ci.callers(path=loc.path, line=loc.start_line).results
            except BadInput:
                callers = ()
            sites: list[CodeLocation] = list(callers)  # type: ignore[arg-type]
            tests = [c for c in sites if is_test_path(c.path)]
            entry["callers_total"] = len(sites)
            entry["callers"] = [_cite(c) for c in sites if not is_test_path(c.path)][:CITED_CALLERS]
            entry["tests"] = sorted({f"{c.path}:{c.start_line} {c.symbol}" for c in tests}
                                    )[:CITED_CALLERS]
            if any(c.uncertain for c in sites):
                entry["uncertain"] = True
                entry["evidence"] = "some callers matched by name only (see code_callers)"
        cost = len(json.dumps(entry)) // 4
        if results and spent + cost > budget:
            truncated = True
            break
        spent += cost
        results.append(entry)
    if last is None:
        last = ci.find_symbol(query.strip(), None, scope)
    payload: dict[str, Any] = {
        "results": results, "truncated": truncated,
        "coverage": coverage_json(last.coverage), "provenance": provenance_json(last.provenance),
        "budget": {"tokens": budget, "used": spent},
    }
    if not results:
        payload["coverage"]["limitations"] = [
            *payload["coverage"]["limitations"],
            f"no definition matches {query!r}; try other words, a path, or fall back to grep"]
    return payload
