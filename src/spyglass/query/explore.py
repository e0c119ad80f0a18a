"""Explore: likely symbols for a query with their neighbourhood, within a token budget."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, replace
from typing import TYPE_CHECKING

from spyglass.errors import BadInput
from spyglass.index import confined
from spyglass.query import closure, edges
from spyglass.query import symbols as sym
from spyglass.query.answer import touched
from spyglass.query.changeset import RANGE
from spyglass.query.comments import comment_index
from spyglass.query.display import display
from spyglass.query.history import change_prior, message_scores
from spyglass.query.names import words
from spyglass.query.namestore import name_store
from spyglass.query.pagerank import Graph, pagerank
from spyglass.query.relevance import by_file, file_scores
from spyglass.query.results import (
    Citation,
    DefRow,
    ExploreDiagnostic,
    ExploreInfo,
    ExploreItem,
    RefRow,
    RefSummary,
)
from spyglass.query.rows import DEF_COLS, DEF_FROM, Key, chunks, defs, defs_by_keys, key, marks
from spyglass.query.testmap import _test_pack, all_test_files, test_symbol
from spyglass.query.view import View
from spyglass.syntax.langpack import pack_for_path
from spyglass.types import CodeLocation, ToolResult

if TYPE_CHECKING:
    from spyglass.query.answer import Answer

MIN_BUDGET, MAX_BUDGET = 200, 100_000
NAMES_KEPT = 25  # best-matching distinct names
DEFS_PER_NAME = 6
NEIGHBOURS = 8  # callers and callees per candidate taken into the ranking graph
LISTED = 5  # callers, callees and tests listed per symbol (shrunk to fit the budget)
# English function words and question words: never matched against names or comments.
STOP = frozenset(["a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "done", "down", "during", "each", "else", "every", "few", "find", "for", "from", "further", "get", "gets", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "let", "lets", "may", "me", "might", "more", "most", "much", "must", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "out", "over", "own", "please", "same", "shall", "she", "should", "show", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "upon", "us", "use", "used", "uses", "using", "very", "was", "way", "ways", "we", "were", "what", "when", "where", "whether", "which", "while", "who", "whom", "why", "will", "with", "within", "without", "would", "you", "your", "code", "happen", "happens", "work", "works", "working", "implemented",
                  # pieces of contractions (don't → don, t)
                  "aren", "couldn", "didn", "doesn", "don", "hasn", "haven", "isn", "shouldn",
                  "wasn", "weren", "won", "wouldn", "d", "ll", "m", "re", "s", "t", "ve"])
TEXT_CANDIDATES = 80  # the best matches of a free-text query taken into the ranking graph
DOC_KEPT = 60  # definitions taken for the words of their comments and docstrings
DOC_WEIGHT = 0.8  # a comment match counts a little less than a name match
USED_NAMES_KEPT = 40  # used names matching the query words
USERS_KEPT = 60  # definitions taken for the names their bodies use
USE_WEIGHT = 0.5  # a body using matching names counts half a name match
TEST_FILE_FACTOR = 0.7  # a test file's score in the files section of a free-text query
FILES_LISTED = 10  # files of the ranked definitions, best first (the `files` section)


def tokens_of(value: object) -> int:
    """Estimated tokens of a value as compact JSON (about four characters a token)."""
    data = asdict(value) if hasattr(value, "__dataclass_fields__") else value  # type: ignore[call-overload]
    return math.ceil(len(json.dumps(data, separators=(",", ":"), ensure_ascii=False)) / 4)


def _text_candidates(ans: Answer, query: str, prefix: str | None) -> dict[Key, tuple[DefRow,
                                                                                        float]]:
    view = ans.view()
    qwords = query_words(query)
    if not qwords:
        return {}
    weight = {n: s for s, n in name_store(view).defs(qwords, NAMES_KEPT)}
    described = {k: s for s, k, _ in comment_index(view).search(qwords, DOC_KEPT)}
    using = _users(view, qwords)
    rows = defs(view.each(
        f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.name IN ({marks(list(weight))})",
        tuple(weight))) if weight else []
    per_name: dict[str, int] = {}
    found: dict[Key, DefRow] = {}
    for d in rows:
        if per_name.get(d.name, 0) < DEFS_PER_NAME:
            per_name[d.name] = per_name.get(d.name, 0) + 1
            found[key(d)] = d
    more = [k for k in [*described, *using] if k not in found]
    found.update(defs_by_keys(view, more))
    out: dict[Key, tuple[DefRow, float]] = {}
    for k, d in found.items():
        if prefix is not None and not (d.path == prefix or d.path.startswith(prefix + "/")):
            continue
        bonus = 0.05 * sum(1 for w in qwords if w in d.path.lower())
        score = _blend(weight.get(d.name, 0.0), described.get(k, 0.0), using.get(k, 0.0))
        out[k] = (d, min(1.0, score + bonus))
    best = sorted(out.items(), key=lambda kv: (-kv[1][1], kv[0]))[:TEXT_CANDIDATES]
    return dict(best)


def query_words(query: str) -> list[str]:
    """The words a free-text query is matched with: split like identifiers, without stop
    words and bare numbers (all of them when nothing else is left)."""
    return [w for w in words(query) if w not in STOP and not w.isdigit()] or words(query)


def _users(view: View, qwords: list[str]) -> dict[Key, float]:
    """Definitions whose bodies use names matching the query words: the share of the query
    covered, the best USERS_KEPT."""
    per: dict[Key, dict[str, float]] = {}
    for score, name, users in name_store(view).used(qwords, USED_NAMES_KEPT):
        for k in users:
            per.setdefault(k, {})[name] = score
    scored = {k: min(1.0, sum(v.values()) / max(len(qwords), 2)) for k, v in per.items()}
    best = sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))[:USERS_KEPT]
    return dict(best)


def _blend(name: float, doc: float, use: float = 0.0) -> float:
    """Name, comment and body evidence together (any alone counts; together more)."""
    return 1 - (1 - name) * (1 - DOC_WEIGHT * doc) * (1 - USE_WEIGHT * use)


def candidates(ans: Answer, query: str, prefix: str | None
               ) -> tuple[str, dict[Key, tuple[DefRow, float]]]:
    """How to read the query (position, path, symbol or free text) and its candidates."""
    view = ans.view()
    text = query.strip()
    if not text or len(text) > 500:
        raise BadInput("explore wants a query of 1 to 500 characters")
    m = RANGE.fullmatch(text)
    if m and confined.kind(ans.root, ans.rel_path(m.group(1))) == "file":
        rel = ans.rel_path(m.group(1))
        return "position", {key(d): (d, 1.0) for d in sym.targets_at(view, rel, int(m.group(2)),
                                                                      None)}
    looks_like_path = "/" in text or pack_for_path(text) is not None
    if looks_like_path and " " not in text:
        rel = ans.rel_path(text)
        if confined.kind(ans.root, rel) in ("file", "dir"):
            ds = [d for d in sym.find_defs(view, "*", None, rel or None)][:2000]
            return "path", {key(d): (d, 0.6 if d.parent < 0 else 0.4) for d in ds}
    if " " not in text:
        try:
            exact = sym.find_defs(view, text, None, prefix)
        except BadInput:
            exact = []
        if exact:
            return "symbol", {key(d): (d, 1.0) for d in exact[:50]}
    return "text", _text_candidates(ans, text, prefix)


Near = dict[Key, list[tuple[DefRow, int]]]


def neighbourhood(view: View, defs: list[DefRow]) -> tuple[Near, Near, dict[Key, RefSummary]]:
    """Callers (with the line of the use), callees and reference summaries of definitions."""
    found = closure.sites(view, closure.of(view, defs, members=False))
    sites: dict[Key, list[RefRow]] = {}
    scopes: dict[Key, dict[Key, RefRow]] = {}  # used → first site of each using scope
    for r, meant in found.sites:
        used = key(meant[0])
        sites.setdefault(used, []).append(r)
        per = scopes.setdefault(used, {})
        if r.scope >= 0 and len(per) < NEIGHBOURS and (r.unit, r.scope) not in per:
            per[(r.unit, r.scope)] = r
    users = edges.enclosing_defs(view, [r for per in scopes.values() for r in per.values()])
    callers: Near = {}
    for used, per in scopes.items():
        for scope, r in per.items():
            user = users.get(scope)
            if user is not None and key(user) != used:
                callers.setdefault(used, []).append((user, r.line))
    loose = _loose_counts(view, defs)
    summaries = {key(d): _summary(sites.get(key(d), []), loose.get(key(d), 0)) for d in defs}
    callees: Near = {}
    for caller, r, callee in edges.callees(view, defs):
        if key(callee) != key(caller):
            # Cite the callee where it is defined: the call site's line is in another file.
            callees.setdefault(key(caller), []).append((callee, callee.start_line))
    return callers, callees, summaries


def rank(view: View, cands: dict[Key, tuple[DefRow, float]]
         ) -> tuple[list[tuple[DefRow, float]], Near, Near, dict[Key, RefSummary]]:
    """Personalised PageRank over the reference graph around the candidates (callers and
    callees one step out), seeded by name-match scores, blended with the name score. A
    neighbour that is not a match is kept only when it is as central as the best match."""
    callers, callees, summaries = neighbourhood(view, [d for d, _ in cands.values()])
    graph: Graph[Key] = Graph()
    nodes: dict[Key, DefRow] = {k: d for k, (d, _) in cands.items()}
    for k in cands:
        graph.add_node(k)
        for user, _line in callers.get(k, [])[:NEIGHBOURS]:
            graph.add_edge(key(user), k)
            nodes.setdefault(key(user), user)
        for callee, _line in callees.get(k, [])[:NEIGHBOURS]:
            graph.add_edge(k, key(callee))
            nodes.setdefault(key(callee), callee)
    weights = {k: s for k, (_, s) in cands.items()}
    pr = pagerank(graph, weights) if graph.edge_count() else dict(weights)
    top = max(pr.values(), default=0.0) or 1.0
    best_match = max((pr.get(k, 0.0) for k in cands), default=0.0) or 1.0
    scored: list[tuple[DefRow, float]] = []
    hubs: list[DefRow] = []
    for k, d in nodes.items():
        centrality = pr.get(k, 0.0) / top
        if k in cands:
            uses = summaries[k].total
            # The match decides; centrality and use only order matches of like strength.
            score = weights[k] * (0.7 + 0.25 * centrality
                                  + 0.05 * min(1.0, math.log1p(uses) / 5))
        elif pr.get(k, 0.0) >= best_match:
            score = 0.5 * centrality * max(weights.values(), default=0.0)
            hubs.append(d)
        else:
            continue
        scored.append((d, round(score, 4)))
    if hubs:
        more = neighbourhood(view, hubs)
        callers.update(more[0])
        callees.update(more[1])
        summaries.update(more[2])
    scored.sort(key=lambda s: (-s[1], s[0].path, s[0].start_line))
    return scored, callers, callees, summaries


def _loose_counts(view: View, defs: list[DefRow]) -> dict[Key, int]:
    """Unresolved same-name sites per candidate (counted, not listed)."""
    out: dict[Key, int] = {}
    by_name: dict[str, list[DefRow]] = {}
    for d in defs:
        by_name.setdefault(d.name, []).append(d)
    if not by_name:
        return out
    counts: dict[tuple[str, bool], int] = {}
    for chunk in chunks(by_name):
        for name, member, n in view.each(
                "SELECT r.name, r.qualifier != '', COUNT(*) FROM {refs} r JOIN temp.vfiles f "
                f"ON f.unit = r.unit WHERE r.target IS NULL AND r.name IN ({marks(chunk)}) "
                f"AND (({sym.NAME_MATCH_SQL[True]}) OR ({sym.NAME_MATCH_SQL[False]})) "
                "GROUP BY r.name, r.qualifier != ''", tuple(chunk)):
            k2 = (str(name), bool(member))
            counts[k2] = counts.get(k2, 0) + int(str(n))
    for name, ds in by_name.items():
        for d in ds:
            out[key(d)] = counts.get((name, edges.is_member(d)), 0)
    return out


def _uses(summary: RefSummary) -> str:
    """The evidence's count of uses: exact, inferred (resolved, not certain: inferred or
    ambiguous sites) and matched by name only (unresolved, no file counted); the files of
    the resolved ones."""
    resolved = sum(n for _, n in summary.by_role)  # name-matched sites have no role
    loose = summary.total - resolved
    exact = summary.total - summary.uncertain
    where = f" in {summary.files} file(s)" if summary.files else ""
    return (f"; {summary.total} reference(s): {exact} exact and {summary.uncertain - loose} "
            f"inferred{where}, {loose} name-matched")


def _summary(sites: list[RefRow], loose: int) -> RefSummary:
    roles: dict[str, int] = {}
    for r in sites:
        roles[r.role] = roles.get(r.role, 0) + 1
    uncertain = sum(1 for r in sites if r.conf != "exact") + loose
    return RefSummary(len(sites) + loose, len({r.path for r in sites}), uncertain,
                      tuple(sorted(roles.items(), key=lambda kv: -kv[1])))


def _cite(items: list[tuple[DefRow, int]], n: int) -> tuple[Citation, ...]:
    seen: dict[tuple[str, str], Citation] = {}
    for d, line in items:
        seen.setdefault((d.path, d.full), Citation(d.path, line, display(d)))
    return tuple(list(seen.values())[:n])


def _tests(d: DefRow, callers: list[tuple[DefRow, int]], tests: list[str]) -> list[Citation]:
    """Tests using the symbol directly, then test files named after its file."""
    out: dict[str, Citation] = {}
    for user, line in callers:
        pack = _test_pack(user.path)
        name = test_symbol(pack, user) if pack is not None else ""
        if name:
            out.setdefault(f"{user.path}::{name}", Citation(user.path, line, name))
    pack = pack_for_path(d.path)
    if pack is not None:
        stem = d.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        names = {p.replace("*", stem) for p in pack.manifest.get("test_file_patterns", [])
                 if p.count("*") == 1}
        files = {c.path for c in out.values()}
        for t in tests:
            if t.rsplit("/", 1)[-1] in names and t not in files:
                out[t] = Citation(t, 1, "")
    return list(out.values())


def explore(ans: Answer, query: str, budget: int, path: str | None) -> ToolResult:
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise BadInput(f"budget must be between {MIN_BUDGET} and {MAX_BUDGET} tokens")
    view = ans.view()
    prefix = ans.rel_path(path) if path else None
    mode, cands = candidates(ans, query, prefix or None)
    scored, callers, callees, summaries = rank(view, cands) if cands else ([], {}, {}, {})
    tests = all_test_files(ans)
    text = {p: t * (TEST_FILE_FACTOR if _test_pack(p) else 1.0)
            for p, t in comment_index(view).file_scores(query_words(query)).items()
            if prefix is None or p == prefix or p.startswith(prefix + "/")} \
        if mode == "text" else {}
    by_words: set[Key] = set()
    if text:  # a question in words: definitions ranked with their files' relevance
        qwords = query_words(query)
        scored, by_words = by_file(view, scored, text, qwords, change_prior(view),
                                   comment_index(view).terms.vagueness(qwords),
                                   message_scores(view, qwords))
        added = [d for d, _ in scored if key(d) not in summaries]
        if added:  # representatives found by their file's words: their neighbours too
            more = neighbourhood(view, added)
            callers.update(more[0])
            callees.update(more[1])
            summaries.update(more[2])
    files = ranked_files(scored, text)
    info = ExploreInfo(query, mode, budget, 0, len(cands))
    used = tokens_of(info) + tokens_of(list(files)) + 60  # the envelope's keys, info, files
    results: list[CodeLocation] = []
    items: list[ExploreItem] = []
    truncated = False
    for d, score in scored:
        k = key(d)
        summary = summaries.get(k) or RefSummary(0, 0, 0, ())
        why = (f"score {score}: {mode} match" if k in cands else
               f"score {score}: the words of its file" if k in by_words else
               f"score {score}: central neighbour of the matches") + _uses(summary)
        loc = ans.def_location(d, False, why)
        for n in (LISTED, 2, 0):
            item = ExploreItem(display(d), score, _cite(callers.get(k, []), n),
                               _cite(callees.get(k, []), n), summary,
                               tuple(_tests(d, callers.get(k, []), tests)[:n]))
            cost = tokens_of(loc) + tokens_of(item)
            if used + cost <= budget:
                break
        else:
            truncated = True
            break
        used += cost
        results.append(loc)
        items.append(item)
    diags, used = _diagnostics(view, [loc.path for loc in results], budget, used)
    info = ExploreInfo(query, mode, budget, used, len(cands))
    extra: tuple[tuple[str, object], ...] = (("symbols", tuple(items)),
                                             ("files", files),
                                             ("diagnostics", tuple(diags)), ("query", info))
    cov = ans.coverage(sorted({loc.path for loc in results}) or None)
    cut = comment_index(view).cut if mode == "text" else ""
    if cut:
        cov = replace(cov, limitations=(*cov.limitations, cut))
    return ToolResult(tuple(results), truncated, cov, touched(ans.provenance(), results), extra)


def ranked_files(scored: list[tuple[DefRow, float]], text: dict[str, float],
                 n: int = FILES_LISTED) -> tuple[str, ...]:
    """The files of the ranked definitions, best first, with the files whose words match a
    free-text question (query/relevance.py); a question in words asks for the code first,
    its tests after."""
    total = file_scores(scored, text)
    if text:
        total = {p: v * (TEST_FILE_FACTOR if _test_pack(p) else 1.0) for p, v in total.items()}
    return tuple(sorted(total, key=lambda p: (-total[p], p))[:n])


def _diagnostics(view: View, paths: list[str], budget: int, used: int
                 ) -> tuple[list[ExploreDiagnostic], int]:
    out: list[ExploreDiagnostic] = []
    wanted = list(dict.fromkeys(paths))
    if not wanted:
        return out, used
    rows = [r for chunk in chunks(wanted) for r in view.each(
        "SELECT f.path, g.line, g.col, g.severity, g.message FROM {diags} g JOIN temp.vfiles "
        f"f ON f.unit = g.unit WHERE f.path IN ({marks(chunk)}) ORDER BY f.path, g.line "
        "LIMIT 20", tuple(chunk))][:20]
    for p, line, col, severity, message in rows:
        text = str(message)
        clean = "syntax error" if text.startswith("syntax error") else text
        diag = ExploreDiagnostic(str(p), int(str(line)), int(str(col)) + 1, str(severity), clean)
        cost = tokens_of(diag)
        if used + cost > budget:
            break
        used += cost
        out.append(diag)
    return out, used
