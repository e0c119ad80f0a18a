"""Compare spyglass's references and callers with stored oracle answers, by (path, line).

Callers are compared for function and method targets only. Site kinds: ``same-file`` (the site is in the target's file), ``alias`` (in another file,
on a line that names the target under another name or renames it: ``x as y``), ``cross-file``
(any other site in another file). Two views: ``all`` is the default answer (uncertain
results included), ``resolved`` leaves out the name-matched candidates (sites whose
receiver or name could not be bound), ``exact`` keeps only results that are not
``uncertain``.

Nothing is scored apart (docs/accuracy.md "Headline figures"): a site spyglass flags is a
returned site like any other, in every figure. The headline, per corpus and question:
the silent-miss rate (oracle sites the answer neither lists certain nor flags), and of
those how many the answer's accounting counts (`counted`: cut, a limitation says how many
and where; the rest the accounting excluded as certain, or are no occurrence of the name:
an alias, a site the index has no reference for), the precision of the results marked certain (a certain-wrong site counts against it), the
default answer's P / R (flagged sites count as returned) and the flagged share (uncertain
results among all results). Every answer's accounting (`coverage.accounting`) is checked
too: its tally sums, and no occurrence was left to the last rule (`unaccounted`).

An answer cut at the per-answer cap is continued as an agent asking for every site would:
the next page from the offset the answer's `page` section names, until the last page. The
report counts the pages asked and scores the first pages alone beside.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from accuracy.corpora import CORPORA, AccuracyCorpus, fetch_module, write_compile_commands
from spyglass.config import load_config
from spyglass.query import references
from spyglass.query import rows as facts
from spyglass.query.accounting import UNACCOUNTED_KEY, Verdict
from spyglass.query.facade import CodeIntel
from spyglass.types import CodeLocation, ToolResult

REPO = Path(__file__).resolve().parents[2]
ORACLE_DIR = REPO / "tests" / "accuracy" / "oracle"
KINDS = ("same-file", "cross-file", "alias")
VIEWS = ("all", "resolved", "exact")
CALLABLE = frozenset({"func", "method"})
Site = tuple[str, int]
MAX_PAGES = 1000
 # pages asked per answer at most (a bound for a broken continuation)


def fetch_corpus(name: str) -> Path:
    """The pinned corpus's directory (fetched and cached like tests/conftest.py does)."""
    return Path(fetch_module().fetch(name))


@dataclass
class Score:
    """True/false positives and false negatives, in total and per site kind."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    by_kind: dict[str, list[int]] = field(default_factory=lambda: {k: [0, 0, 0] for k in KINDS})

    def add(self, kind: str, tp: int = 0, fp: int = 0, fn: int = 0) -> None:
        self.tp += tp
        self.fp += fp
        self.fn += fn
        row = self.by_kind[kind]
        row[0] += tp
        row[1] += fp
        row[2] += fn

    def merge(self, other: Score) -> None:
        for kind, (tp, fp, fn) in other.by_kind.items():
            self.add(kind, tp, fp, fn)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def to_json(self) -> dict[str, Any]:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn,
                "precision": round(self.precision, 4), "recall": round(self.recall, 4),
                "by_kind": {k: dict(zip(("tp", "fp", "fn"), v)) for k, v in self.by_kind.items()}}


@dataclass
class Headline:
    """One question's headline counts on one corpus (module docstring)."""

    oracle: int = 0  # oracle sites
    silent: int = 0  # oracle sites neither listed certain nor flagged
    returned: int = 0  # results (certain and flagged)
    certain: int = 0  # results marked certain
    certain_right: int = 0  # of which the oracle has
    flagged_right: int = 0  # flagged results the oracle has
    counted: int = 0  # silent misses the answer's accounting counts (cut): not listed
    excluded: int = 0  # silent misses the accounting excluded as certain (certain-wrong)
    rules: Counter[str] = field(default_factory=Counter)  # the rules that decided those
    cut_by_rule: Counter[str] = field(default_factory=Counter)  # every cut, by rule

    def merge(self, other: Headline) -> None:
        for f in ("oracle", "silent", "returned", "certain", "certain_right",
                  "flagged_right", "counted", "excluded"):
            setattr(self, f, getattr(self, f) + getattr(other, f))
        self.rules.update(other.rules)
        self.cut_by_rule.update(other.cut_by_rule)

    @property
    def silent_rate(self) -> float:
        return self.silent / self.oracle if self.oracle else 0.0

    @property
    def certain_precision(self) -> float:
        return self.certain_right / self.certain if self.certain else 1.0

    @property
    def flagged_share(self) -> float:
        return (self.returned - self.certain) / self.returned if self.returned else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"oracle_sites": self.oracle, "silent": self.silent,
                "silent_rate": round(self.silent_rate, 4), "returned": self.returned,
                "certain": self.certain, "certain_precision": round(self.certain_precision, 4),
                "flagged_share": round(self.flagged_share, 4),
                "flagged_in_oracle": self.flagged_right,
                "silent_counted": self.counted, "silent_excluded": self.excluded,
                "silent_by_rule": dict(self.rules.most_common()),
                "cut_by_rule": dict(self.cut_by_rule.most_common())}


@dataclass
class CorpusResult:
    """Scores of one corpus: (question, view) → Score, plus categorised misses."""

    name: str
    language: str
    oracle: str
    targets: int
    scores: dict[tuple[str, str], Score]
    misses: dict[str, Counter[str]]  # "refs fn" / "refs fp" / "calls fn" / ... → category
    examples: list[str]
    # The headline (module docstring): question → counts.
    headline: dict[str, Headline] = field(default_factory=dict)
    # The accounting checked on every answer: question → [answers, tallies that do not
    # sum, occurrences left to the last rule].
    accounting: dict[str, list[int]] = field(default_factory=dict)
    # The continuation followed (module docstring): question → [answers, pages asked,
    # answers longer than one page], and the default view scored on first pages only.
    pages: dict[str, list[int]] = field(default_factory=dict)
    first_page: dict[str, Score] = field(default_factory=dict)
    # Callable targets the oracle has no call hierarchy item for (`calls: null`): it
    # cannot say who calls them, so their callers are not scored.
    no_call_item: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"corpus": self.name, "language": self.language, "oracle": self.oracle,
                "targets": self.targets,
                "scores": {f"{q}/{v}": s.to_json() for (q, v), s in self.scores.items()},
                "misses": {k: dict(c.most_common()) for k, c in self.misses.items()},
                "callers_not_scored_no_call_item": self.no_call_item,
                "headline": {q: h.to_json() for q, h in self.headline.items()},
                "accounting": {q: {"answers": a, "tally_off": o, "unaccounted": u}
                               for q, (a, o, u) in self.accounting.items()},
                "pages": {q: {"answers": a, "pages": p, "longer_than_a_page": m}
                          for q, (a, p, m) in self.pages.items()},
                "first_page": {q: s.to_json() for q, s in self.first_page.items()}}


class _Lines:
    """Source lines of the corpus, read on demand (for site kinds, never stored)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache: dict[str, list[str]] = {}

    def get(self, path: str, line: int) -> str:
        if path not in self.cache:
            try:
                text = (self.root / path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self.cache[path] = text.splitlines()
        lines = self.cache[path]
        return lines[line - 1] if 0 < line <= len(lines) else ""


# Oracles that leave import lines out of references (tsc lists only renaming ones): the
# `import` sites keeping the name are dropped from spyglass's answer before scoring.
IMPORTS_UNLISTED = ("typescript", "tsx")


def site_kind(lines: _Lines, target: dict[str, Any], site: Site) -> str:
    """same-file, alias or cross-file (see the module docstring)."""
    if site[0] == target["path"]:
        return "same-file"
    text = lines.get(*site)
    name = re.escape(target["name"])
    if not re.search(rf"(?<![\w$]){name}(?![\w$])", text) or re.search(
            rf"(?<![\w$]){name}\s+as\s", text):
        return "alias"
    return "cross-file"


def _category(ci: CodeIntel, target: dict[str, Any], site: Site, miss: str,
              loc: CodeLocation | None, calls: bool) -> str:
    """Why a site is missed (fn) or extra (fp), from spyglass's own facts at that line."""
    if miss == "fp":
        assert loc is not None
        if not loc.uncertain:
            return "exact but not in oracle"
        ev = loc.evidence
        if "receiver type unknown" in ev:
            return "name match: receiver type unknown"
        if "unresolved name" in ev:
            return "name match: unresolved name"
        if "candidate definitions" in ev:
            return "several candidate definitions"
        return "inferred binding: " + ev.split(":")[0]
    view = ci.view()
    rows = facts.refs(view.each(f"SELECT {facts.REF_COLS} {facts.REF_FROM} WHERE f.path = ? "
                                "AND r.line = ?", site))
    named = [r for r in rows if r.name == target["name"]]
    if loc is not None and loc.uncertain:
        return "returned only as uncertain"
    if not named:
        if rows and not any(r.name == target["name"] for r in rows):
            return "used under another name (alias/assignment)"
        return "no reference extracted at the site"
    r = named[0]
    if calls and all(x.role != "call" for x in named):
        return f"site not a call for spyglass ({r.role})"
    if r.target:
        return "resolved to another target"
    if r.head in ("local", "expr", "param") and r.qualifier:
        return f"receiver type unknown ({r.head})"
    if r.head == "free":
        return "unbound name"
    return f"unresolved ({r.head.split(':')[0]})"


def _in_view(view: str, loc: CodeLocation) -> bool:
    if view == "all" or not loc.uncertain:
        return True
    return view == "resolved" and "matched by name" not in loc.evidence


def _inside(path: str, include: tuple[str, ...]) -> bool:
    """Whether `path` is in one of the analysed folders."""
    return include == (".",) or any(path == d or path.startswith(d + "/") for d in include)


def _spyglass_sites(result: tuple[object, ...], include: tuple[str, ...]
                    ) -> dict[Site, CodeLocation]:
    out: dict[Site, CodeLocation] = {}
    for item in result:
        assert isinstance(item, CodeLocation)
        if not _inside(item.path, include):
            continue
        key = (item.path, item.start_line)
        prev = out.get(key)
        if prev is None or (prev.uncertain and not item.uncertain):
            out[key] = item
    return out


def load_oracle(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((ORACLE_DIR / f"{name}.json").read_text())
    return doc


def prepare_root(name: str, parent: Path | None = None) -> Path:
    """A private git copy of the corpus with the corpus's config files (never the cache)."""
    source = fetch_corpus(name)
    parent = parent or Path(tempfile.mkdtemp(prefix=f"spyglass-acc-{name}-"))
    dest = parent / source.name
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".git", ".spyglass"),
                    symlinks=True)
    for rel, text in CORPORA[name].config:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text(text)
    write_compile_commands(CORPORA[name], dest)
    fetch_module().make_git_repo(dest)
    return dest


def spread(targets: list[dict[str, Any]], n: int | None) -> list[dict[str, Any]]:
    """Every target, or `n` spread evenly over the stored order (reproducible)."""
    if not n or n >= len(targets):
        return targets
    step = len(targets) / n
    return [targets[int(i * step)] for i in range(n)]


def measure(name: str, root: Path | None = None, max_matches: int | None = None,
            follow: bool = True, targets: int | None = None) -> CorpusResult:
    """Score spyglass on one corpus against its stored oracle answers. A truncated answer
    is continued page by page (`offset`, as an agent wanting every site would; `follow`
    False: the first page only); `max_matches` sets the per-answer cap (`[limits]
    max_matches_per_request`, the page size); `targets` scores that many of the stored
    targets, spread evenly (CI's bounded sample, AccuracyCorpus.ci_targets)."""
    corpus: AccuracyCorpus = CORPORA[name]
    doc = load_oracle(name)
    doc = {**doc, "targets": spread(doc["targets"], targets)}
    owned = root is None
    root = root or prepare_root(name)
    try:
        config = load_config(repo_root=root)
        if max_matches is not None:
            config = replace(config, limits=replace(config.limits,
                                                    max_matches_per_request=max_matches))
        ci = CodeIntel(root, config=config)
        ci.index()
        return _score(ci, corpus, doc, _Lines(root), follow)
    finally:
        if owned:
            shutil.rmtree(root.parent, ignore_errors=True)


def _pages(ask: Any, where: dict[str, Any], follow: bool) -> tuple[list[ToolResult], bool]:
    """The answer's pages, as an agent wanting every site asks for them: the first, then
    the next from the offset each page names, until one says it is the last (`follow`
    False: the first page only). Also whether the last page asked is still truncated."""
    pages = [ask(**where)]
    while follow and pages[-1].truncated:
        page = next((v for k, v in pages[-1].extra if k == "page"), None)
        if page is None or page.next_offset is None or len(pages) >= MAX_PAGES:
            break
        pages.append(ask(**where, offset=page.next_offset))
    return pages, pages[-1].truncated


def _score(ci: CodeIntel, corpus: AccuracyCorpus, doc: dict[str, Any], lines: _Lines,
           follow: bool = True) -> CorpusResult:
    scores = {(q, v): Score() for q in ("refs", "calls") for v in VIEWS}
    misses: dict[str, Counter[str]] = {}
    examples: list[str] = []
    paging = {"refs": [0, 0, 0], "calls": [0, 0, 0]}
    first_page = {"refs": Score(), "calls": Score()}
    headline = {"refs": Headline(), "calls": Headline()}
    accounting = {"refs": [0, 0, 0], "calls": [0, 0, 0]}
    no_call_item = 0
    for t in doc["targets"]:
        where = {"path": t["path"], "line": t["line"], "column": t["col"] + 1}
        full = {"refs": _pages(ci.references, where, follow),
                "calls": _pages(ci.callers, where, follow) if t["kind"] in CALLABLE
                else None}
        answers = {q: tuple(x for p in r[0] for x in p.results) if r is not None else ()
                   for q, r in full.items()}
        capped = {q: r is not None and r[1] for q, r in full.items()}
        for q in ("refs", "calls"):
            if q == "calls" and t["kind"] not in CALLABLE:
                continue  # servers disagree on what calling a class or type means
            if q == "calls" and t["calls"] is None:
                no_call_item += 1
                continue
            # like with like: the oracle's sites in the analysed folders only, as spyglass's
            # (_spyglass_sites; clangd may list a file outside them that it indexed)
            oracle: set[Site] = {(p, ln) for p, ln, *_ in t[q] if _inside(p, corpus.include)}
            asked = full[q]
            assert asked is not None
            paging[q][0] += 1
            paging[q][1] += len(asked[0])
            paging[q][2] += len(asked[0]) > 1
            _check_accounting(asked[0][0], accounting[q], headline[q])
            got = _spyglass_sites(answers[q], corpus.include)
            if corpus.language in IMPORTS_UNLISTED:  # like with like (docs/contract.md)
                got = {s: loc for s, loc in got.items()
                       if loc.kind != "import" or site_kind(lines, t, s) != "cross-file"}
            _headline(headline[q], oracle, got)
            if oracle - set(got):
                _unlisted(ci, where, q == "calls", oracle - set(got), headline[q])
            first = set(_spyglass_sites(asked[0][0].results, corpus.include))
            for s in oracle | first:
                first_page[q].add(site_kind(lines, t, s), tp=int(s in oracle and s in first),
                                  fp=int(s in first and s not in oracle),
                                  fn=int(s in oracle and s not in first))
            for view in VIEWS:
                mine = {s for s, loc in got.items() if _in_view(view, loc)}
                for s in oracle | mine:
                    kind = site_kind(lines, t, s)
                    hit_o, hit_m = s in oracle, s in mine
                    scores[(q, view)].add(kind, tp=int(hit_o and hit_m),
                                          fp=int(hit_m and not hit_o),
                                          fn=int(hit_o and not hit_m))
                    if hit_o == hit_m:
                        continue
                    miss = "fn" if hit_o else "fp"
                    if miss == "fn" and capped[q] and s not in got:
                        cat = "left out by the per-answer cap (max_matches_per_request)"
                    else:
                        cat = _category(ci, t, s, miss, got.get(s), q == "calls")
                    misses.setdefault(f"{q}/{view} {miss}", Counter())[cat] += 1
                    if view == "all":
                        examples.append(f"{q} {miss} [{cat}] {t['name']} "
                                        f"({t['path']}:{t['line']}) at {s[0]}:{s[1]}")
    return CorpusResult(corpus.name, corpus.language, doc["oracle"], len(doc["targets"]),
                        scores, misses, examples, headline, accounting, paging, first_page,
                        no_call_item)


def _headline(h: Headline, oracle: set[Site], got: dict[Site, CodeLocation]) -> None:
    """Add one answer to the headline counts (module docstring)."""
    h.oracle += len(oracle)
    h.silent += len(oracle - set(got))
    h.returned += len(got)
    certain = {s for s, loc in got.items() if not loc.uncertain}
    h.certain += len(certain)
    h.certain_right += len(certain & oracle)
    h.flagged_right += len((set(got) - certain) & oracle)


def _unlisted(ci: CodeIntel, where: dict[str, Any], calls: bool, missed: set[Site],
              h: Headline) -> None:
    """Of the oracle sites the answer does not list, those its accounting counts (cut,
    with a limitation) and those it excludes as certain (a certain-wrong exclusion)."""
    targets = ci._targets(None, where["path"], where["line"], where["column"])
    decided = references.decisions(ci.answer(), targets, calls_only=calls)
    cut = {(p, ln): d.rule for (p, ln, _), d in decided.items() if d.verdict is Verdict.CUT}
    excluded = {(p, ln): d.rule for (p, ln, _), d in decided.items()
                if d.verdict is Verdict.EXCLUDED}
    h.counted += len(missed & set(cut))
    h.excluded += len((missed - set(cut)) & set(excluded))
    for s in missed:
        if s in cut or s in excluded:
            h.rules[cut.get(s) or excluded[s]] += 1


def _check_accounting(first: ToolResult, counts: list[int], h: Headline) -> None:
    """Count an answer, whether its tally sums, and the occurrences no rule decided; sum
    what it cut by rule."""
    counts[0] += 1
    a = first.coverage.accounting
    if a is None:
        return
    h.cut_by_rule.update({r[len("cut: "):]: n for r, n in a.by_rule if r.startswith("cut: ")})
    if a.certain + a.flagged + a.excluded + a.cut != a.occurrences:
        counts[1] += 1
    counts[2] += dict(a.by_rule).get(UNACCOUNTED_KEY, 0)


def by_language(results: list[CorpusResult]) -> dict[str, dict[tuple[str, str], Score]]:
    """Scores summed per language (micro-averaged over sites)."""
    out: dict[str, dict[tuple[str, str], Score]] = {}
    for r in results:
        lang = out.setdefault(r.language, {k: Score() for k in r.scores})
        for k, s in r.scores.items():
            lang[k].merge(s)
    return out


def headline_by_language(results: list[CorpusResult]) -> dict[str, dict[str, Headline]]:
    """Headline counts summed per language."""
    out: dict[str, dict[str, Headline]] = {}
    for r in results:
        lang = out.setdefault(r.language, {q: Headline() for q in r.headline})
        for q, h in r.headline.items():
            lang[q].merge(h)
    return out


HEAD_COLUMNS = ("corpus", "question", "oracle sites", "silent-miss", "counted", "certain P",
                "P", "R", "flagged share", "accounting")


def headline_rows(results: list[CorpusResult]) -> list[tuple[str, ...]]:
    """The headline table's rows: per corpus, then per language (module docstring)."""
    rows: list[tuple[str, ...]] = []
    named = [(r.name, r.headline, r.scores, r.accounting) for r in results]
    for lang, by_q in headline_by_language(results).items():
        summed = by_language([r for r in results if r.language == lang])[lang]
        named.append((f"[{lang}]", by_q, summed, {}))
    for name, heads, scores, acct in named:
        for q, h in heads.items():
            if not h.oracle and not h.returned:
                continue
            s = scores[(q, "all")]
            a = acct.get(q)
            checked = (f"{a[0]} answers, {a[1]} off, {a[2]} unaccounted" if a else "")
            rows.append((name, q, str(h.oracle), f"{h.silent_rate:.3%}",
                         f"{h.counted}/{h.silent}", f"{h.certain_precision:.3f}", f"{s.precision:.3f}",
                         f"{s.recall:.3f}", f"{h.flagged_share:.3f}", checked))
    return rows


def render(results: list[CorpusResult], details: bool = False) -> str:
    """A plain-text report: the headline (per corpus and language), then P / R per view
    and site kind, and the miss categories."""
    out: list[str] = []
    widths = (16, 8, 13, 12, 9, 10, 7, 7, 14, 0)
    out.append("".join(f"{c:<{w}}" if w else c for c, w in zip(HEAD_COLUMNS, widths)))
    for row in headline_rows(results):
        out.append("".join(f"{c:<{w}}" if w else c for c, w in zip(row, widths)))
    out.append("")
    head = f"{'corpus':<16}{'question':<8}{'view':<7}{'sites':>6}{'P':>8}{'R':>8}" + "".join(
        f"{k + ' R':>14}" for k in KINDS)
    out.append(head)
    rows = [(r.name, r.scores) for r in results] + [
        (f"[{lang}]", s) for lang, s in by_language(results).items()]
    for name, scores in rows:
        for (q, v), s in scores.items():
            kinds = "".join(
                f"{(tp / (tp + fn) if tp + fn else 1.0):>9.3f}({tp + fn:>3})"
                for tp, _, fn in s.by_kind.values())
            out.append(f"{name:<16}{q:<8}{v:<7}{s.tp + s.fn:>6}{s.precision:>8.3f}"
                       f"{s.recall:>8.3f}{kinds}")
    for r in results:
        out.append(f"\n{r.name} ({r.oracle}, {r.targets} targets): misses by category")
        out += ["  " + line for line in _paging_lines(r)]
        if r.no_call_item:
            out.append(f"  callers not scored for {r.no_call_item} target(s): the oracle has "
                       "no call hierarchy item for them")
        for key, counter in sorted(r.misses.items()):
            if "/all" not in key:
                continue
            out.append(f"  {key}: " + "; ".join(f"{c} {n}" for c, n in counter.most_common()))
        if details:
            out.extend("    " + e for e in r.examples)
    return "\n".join(out)


def _paging_lines(r: CorpusResult) -> list[str]:
    """The continuation followed: pages asked, and the first pages alone scored."""
    out = []
    for q, (answers, pages, longer) in r.pages.items():
        if longer:
            s = r.first_page[q]
            out.append(f"{q}: {answers} answers in {pages} pages ({longer} longer than a "
                       f"page, continued by offset); first pages only: P {s.precision:.3f} "
                       f"R {s.recall:.3f}")
    return out


def markdown(results: list[CorpusResult]) -> str:
    """The docs tables: the headline first, then per language and per corpus, refs and
    callers, three views."""
    out = ["| " + " | ".join(HEAD_COLUMNS) + " |", "|" + "---|" * len(HEAD_COLUMNS)]
    out += ["| " + " | ".join(row) + " |" for row in headline_rows(results)]
    out += ["", ("| language / corpus | question | sites | all P | all R | resolved P | resolved R "
            "| exact P | exact R |"), "|---|---|---|---|---|---|---|---|---|"]
    rows = [(f"**{lang}**", s) for lang, s in by_language(results).items()] + [
        (f"{r.name} ({r.targets} targets)", r.scores) for r in results]
    for name, scores in rows:
        for q in ("refs", "calls"):
            cells = [f"{scores[(q, v)].precision:.3f} | {scores[(q, v)].recall:.3f}"
                     for v in VIEWS]
            sites = scores[(q, "all")].tp + scores[(q, "all")].fn
            label = "references" if q == "refs" else "callers"
            out.append(f"| {name} | {label} | {sites} | " + " | ".join(cells) + " |")
    out += ["", "Recall by site kind (default answer):", "",
            "| language | question | " + " | ".join(KINDS) + " |",
            "|---|---|" + "---|" * len(KINDS)]
    for lang, scores in by_language(results).items():
        for q in ("refs", "calls"):
            cells = []
            for tp, _, fn in scores[(q, "all")].by_kind.values():
                cells.append(f"{tp / (tp + fn):.3f} ({tp + fn})" if tp + fn else "–")
            out.append(f"| {lang} | {q} | " + " | ".join(cells) + " |")
    out += ["", ("Misses of the default answer by category (fn: oracle site spyglass lacks; "
                 "fp: spyglass site the oracle lacks):"), ""]
    for r in results:
        for key, counter in sorted(r.misses.items()):
            if "/all " in key:
                items = "; ".join(f"{c} {n}" for c, n in counter.most_common())
                out.append(f"* {r.name} {key.replace('/all', '')}: {items}")
        out += [f"* {r.name} {line}" for line in _paging_lines(r)]
    return "\n".join(out)
