"""Text for people and models, chosen by result type: MCP's text content and the CLI's rows.

Every string taken from an answer goes through `escape_text`, so file contents, symbol names
and messages cannot carry terminal control sequences (docs/mcp.md, text content)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from functools import singledispatch

from spyglass import surface
from spyglass.query.results import (
    AffectedFile,
    AffectedPackage,
    AstMatch,
    ChangeSummary,
    Citation,
    DiagnosticItem,
    ExploreDiagnostic,
    ExploreItem,
    Omitted,
    Page,
    SourceSpan,
    StatusReport,
    TestCommand,
    TestFile,
)
from spyglass.types import CodeLocation, ToolResult

MAX_TEXT = 200
# Sections shown in part in the text (the structured result has them whole); a line says
# how many more there are, so no cap goes unsaid.
MAX_COMMANDS = 8
MAX_NOTES = 5
MAX_IDS = 12  # test ids a test file's row names (the structured result has them all)


HINT_LINES = ("limitation:", "truncated", "tools ", "snapshot   none", "warning:")


def cli_words(text: str) -> str:
    """A hint written for MCP clients, worded for the command line: tool names become
    `spyglass` commands (`code_find_symbol` → `spyglass find`)."""
    return surface.TOOL_NAME.sub(lambda m: surface.cli_command(m.group(0)), text)


def _cli_line(line: str) -> str:
    if line.startswith("tools "):  # the enabled tools, as commands
        return "tools      " + ", ".join(
            cli_words(t).removeprefix("spyglass ") for t in line[6:].strip().split(", "))
    return cli_words(line)


def escape_text(text: object, lines: bool = False) -> str:
    """Text from a repository (file and symbol names, messages, source) made safe for a
    terminal or a model: control characters (escape sequences among them), bidi overrides and
    lone surrogates left by undecodable names become visible escapes (``\\x1b``, ``\\u202e``,
    ``\\xff``); printable text is unchanged. `lines`: newlines and tabs stay (source text);
    otherwise they are escaped too (one-line messages, names)."""
    value = str(text)
    if value.isprintable():
        return value
    keep = "\n\t" if lines else ""
    return "".join(ch if ch.isprintable() or ch in keep else _visible(ch) for ch in value)


def _visible(ch: str) -> str:
    code = ord(ch)
    if ch in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch]
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: one undecodable byte
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _cut(text: object, limit: int = MAX_TEXT) -> str:
    flat = " ".join(escape_text(text).split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def _span(path: str, start: int, end: int | None = None) -> str:
    where = f"{escape_text(path)}:{start}"
    return where if end in (None, start) else f"{where}-{end}"


def _more(values: Iterable[str], total: int, shown: int) -> str:
    return ", ".join(values) + (f" (+{total - shown} more)" if total > shown else "")


# -- one result item ---------------------------------------------------------------------------
@singledispatch
def rows(item: object) -> list[str]:
    """The lines of one result item (unknown types: compact JSON)."""
    value = dataclasses.asdict(item) if dataclasses.is_dataclass(item) and not isinstance(
        item, type) else item
    return [_cut(json.dumps(value, separators=(",", ":"), default=str), 400)]


@rows.register
def _(item: CodeLocation) -> list[str]:
    return [location(item)]


def location(item: CodeLocation, width: int = 0, kind_width: int = 0,
             span: bool = True) -> str:
    """`path:start-end  kind  symbol  [flags]  (evidence)`, columns padded to the widths
    given; `span` False: the first line only (rows for people)."""
    where = _span(item.path, item.start_line, item.end_line if span else None).ljust(width)
    row = f"{where}  {escape_text(item.kind).ljust(kind_width)}  {escape_text(item.symbol)}"
    row = row.rstrip()
    flags = [f for f, on in (("stale", item.stale), ("uncertain", item.uncertain)) if on]
    if flags:
        row += f"  [{', '.join(flags)}]"
    if item.evidence:
        row += f"  ({_cut(item.evidence, 160)})"
    return row


@rows.register
def _(item: TestFile) -> list[str]:
    """`path  reason  n tests: a, b (+k more)  [uncertain]  (chain)`: what to run and why."""
    ids = _more((escape_text(t) for t in item.tests[:MAX_IDS]), len(item.tests), MAX_IDS)
    what = f"{len(item.tests)} test{'s' if len(item.tests) != 1 else ''}: {ids}" \
        if item.tests else "whole file"
    row = f"{escape_text(item.path)}  {escape_text(item.reason)}  {what}"
    if item.uncertain:
        row += "  [uncertain]"
    return [f"{row}  ({_cut(item.evidence, 240)})"]


@rows.register
def _(item: SourceSpan) -> list[str]:
    head = f"{_span(item.path, item.start_line, item.end_line)}  sha1:{item.content_hash[:12]}"
    if item.truncated:
        head += f"  [truncated: continue from line {item.end_line + 1}]"
    return [head, escape_text(item.text, lines=True).rstrip("\n")]


@rows.register
def _(item: DiagnosticItem) -> list[str]:
    where = f"{_span(item.path, item.start_line)}:{item.column}"
    return [f"{where}  {escape_text(item.severity)}  {_cut(item.message)}"]


@rows.register
def _(item: AstMatch) -> list[str]:
    where = f"{_span(item.path, item.start_line, item.end_line)}:{item.start_column}"
    return [f"{where}  @{escape_text(item.capture)}  {escape_text(item.node_type)}  "
            + _cut(item.text, 120)]


@rows.register
def _(item: StatusReport) -> list[str]:
    e = escape_text
    out = [f"root       {e(item.root)}", f"repo       {e(item.repo)}"]
    if item.indexed:
        out.append(f"snapshot   {e(item.snapshot_ref)} {e(item.snapshot_commit or '(disk)')} "
                   f"indexed {item.indexed_at}")
        if item.snapshot_ref_source:
            out.append(f"ref        {e(item.snapshot_ref_source)}")
    else:
        out.append(f"snapshot   none ({e(item.hint)})")
    if item.job_state:
        error = f": {_cut(item.job_error, 300)}" if item.job_error else ""
        out.append(f"last job   {item.job_state} ({item.job_parsed or 0} parsed, "
                   f"{item.job_persisted or 0} persisted){error}")
    if item.head:
        out.append(f"workspace  {e(item.head)}, merge-base {(item.overlay_base or 'none')[:12]}")
    for lang in item.languages:
        lines = f" {lang.lines:>8} lines" if lang.lines >= 0 else ""  # -1: not read
        broken = (f", {lang.unparsed_files} with syntax errors ({lang.syntax_errors})"
                  if lang.unparsed_files else "")
        out.append(f"language   {lang.language:<12} {lang.files:>6} files{lines}{broken}")
    for d in item.parse_errors:
        out.append(f"  unparsed {e(d.path)}:{d.start_line} {e(d.message)}")
    for reason, n in item.skipped_by_reason:
        out.append(f"skipped    {n:>6}  {e(reason)}")
    if item.indexed:  # the workspace against the snapshot (none without an index)
        out.append(f"overlay    {len(item.overlay_added)} added, "
                   f"{len(item.overlay_modified)} modified, {len(item.overlay_deleted)} deleted")
    for kind, paths in item.overlay_kinds:
        if paths:
            out.append(f"  {kind:<9}  " + _more((e(p) for p in paths[:5]), len(paths), 5))
    for old, new in item.overlay_renamed:
        out.append(f"  renamed    {e(old)} -> {e(new)}")
    if not item.indexed:
        out.append("freshness  no index: every answer is a live parse of the files on disk")
    else:
        out.append(f"freshness  {'fresh' if item.fresh else 'overlay applied (answers follow disk)'}")
    if item.worktree_mismatch:
        out.append(f"mismatch   {e(item.worktree_mismatch)}")
    if item.tools:
        out.append("tools      " + ", ".join(item.tools))
    for c in item.coverage:
        depth = (f"grammar {e(c.grammar)}; tests: {e(c.tests)}" if c.supported
                 else e(c.limitations))
        out.append(f"coverage   {e(c.language):<12} {depth}")
    for p in item.precise:
        why = f" — {_cut(p.error, 200)}" if p.error else ""
        out.append(f"precise    {e(p.language):<12} {e(p.tool)} {p.state}: {p.files} files, "
                   f"{p.seconds:.1f} s, peak {p.peak_mb:.0f} MB (snapshot {p.snapshot}){e(why)}")
    for q in item.queued:
        error = f": {_cut(q.error, 200)}" if q.error else ""
        out.append(f"queued     job {q.id} {e(q.ref)} {q.state} (attempt {q.attempts}"
                   f"{', ' + e(q.worker) if q.worker else ''}){error}")
    for r in item.store_repos:  # the team store's repositories (the `repo` argument)
        age = "" if r.age_s is None else (f", {r.age_s // 60} min old" if r.age_s < 3600
                                          else f", {r.age_s // 3600} h old")
        out.append(f"store repo {e(r.repo)}  {e(r.ref)} {(r.commit or '(disk)')[:12]}{age}, "
                   f"answers from its {r.answers_from}")
    for b in item.bridges:
        where = f" pid {b.pid}" if b.pid else ""
        up = f" up {b.uptime_s:.0f}s" if b.uptime_s is not None else ""
        error = f" last error: {_cut(b.last_error, 200)}" if b.last_error else ""
        box = (f" {e(b.runtime)}" if b.runtime else "") + (f" {e(b.image)}" if b.image else "")
        out.append(f"bridge     {e(b.name)} ({e(b.language)}, {b.execution}{box}) {b.state}"
                   f"{' ' + e(b.version) if b.version else ''}{where}{up}"
                   f" restarts {b.restarts}{error}")
    return out


# -- the sections next to the results (ToolResult.extra) ----------------------------------------
@singledispatch
def section(value: object, key: str) -> list[str]:
    """The lines of one extra section, chosen by its type (tuples: by their items' type)."""
    if isinstance(value, tuple) and value:
        return section_of(value[0], key, value)
    return []


@singledispatch
def section_of(first: object, key: str, items: tuple[object, ...]) -> list[str]:
    return []  # sections the results already show (tests), or internal (frameworks)


@section_of.register
def _(first: str, key: str, items: tuple[str, ...]) -> list[str]:
    if key == "files":  # explore's files, best first
        return [f"files: {', '.join(escape_text(p) for p in items)}"]
    return [f"note: {_cut(n, 300)}" for n in items[:MAX_NOTES]] + _unshown(
        items, MAX_NOTES, "notes")


def _unshown(items: tuple[object, ...], shown: int, what: str) -> list[str]:
    """The line saying how many items of a section the text leaves out (none: no line)."""
    more = len(items) - shown
    return [f"(+{more} more {what} in the structured result)"] if more > 0 else []


@section.register
def _(value: ChangeSummary, key: str) -> list[str]:
    if not value.files:
        return []
    files = _more((escape_text(f) for f in value.files[:8]), len(value.files), 8)
    return [f"change ({_cut(value.origin, 120)}; {value.symbols} symbol(s)): {files}"]


@section_of.register
def _(first: AffectedPackage, key: str, items: tuple[AffectedPackage, ...]) -> list[str]:
    return ["packages: " + _more((f"{escape_text(p.path) or '.'} (d{p.distance})"
                                  for p in items[:12]), len(items), 12)]


@section_of.register
def _(first: AffectedFile, key: str, items: tuple[AffectedFile, ...]) -> list[str]:
    tests = sum(1 for f in items if f.test)
    return [f"files: {len(items)} affected, {tests} of them tests"]


@section_of.register
def _(first: ExploreItem, key: str, items: tuple[ExploreItem, ...]) -> list[str]:
    out = []
    for item in items[:5]:
        callers = ", ".join(_cited(c) for c in item.callers[:6]) or "-"
        callees = ", ".join(_cited(c) for c in item.callees[:6]) or "-"
        out.append(f"{escape_text(item.symbol)}: callers {callers}; callees {callees}")
    return out + _unshown(items, 5, "symbols' neighbours")


def _cited(c: Citation) -> str:
    """A neighbour by name with where it is: ``pkg.mod.run (pkg/mod.py:12)``."""
    where = _span(c.path, c.line)
    return f"{escape_text(c.symbol)} ({where})" if c.symbol else where


@section_of.register
def _(first: ExploreDiagnostic, key: str, items: tuple[ExploreDiagnostic, ...]) -> list[str]:
    return [f"diagnostic: {_span(d.path, d.line)} {_cut(d.message, 120)}"
            for d in items[:5]] + _unshown(items, 5, "diagnostics")


@section_of.register
def _(first: TestCommand, key: str, items: tuple[TestCommand, ...]) -> list[str]:
    return [f"run: {_cut(c.command, 1000)}" + (f"  ({_cut(c.note, 200)})" if c.note else "")
            for c in items[:MAX_COMMANDS]] + _unshown(items, MAX_COMMANDS, "commands")


@section.register
def _(value: Omitted, key: str) -> list[str]:
    """What the answer budget left out, the results per file, how to narrow."""
    total = value.shown + value.results
    cut = [f"{n} {escape_text(k)}" for k, n in value.sections if n]
    lines = []
    if value.results or cut:
        left = ", ".join(([f"{value.results} results"] if value.results else []) + cut)
        lines.append(f"truncated at {value.max_chars} characters: showing "
                     f"{value.shown} of {total} results; left out: {left}")
    else:
        lines.append("truncated: the answer reached a limit of the request and is incomplete")
    if value.files > 1 and value.results:
        more = f", first {len(value.by_file)} listed" if value.files > len(value.by_file) else ""
        lines.append(f"results by file ({value.files} files{more}; in rank order):")
        for f in value.by_file:
            unsure = f", {f.uncertain} uncertain" if f.uncertain else ""
            at = (" more at " + ", ".join(map(str, f.more_lines))
                  + ("…" if f.results - f.shown > len(f.more_lines) else "")) \
                if f.more_lines else ""
            lines.append(f"  {escape_text(f.path)}  {f.results} ({f.shown} shown{unsure})"
                         f"{at}")
    narrow = ", ".join(value.narrow)
    if value.max_chars <= 0:  # no budget: a request limit cut it (its page says how to go on)
        if narrow:
            lines.append(f"narrow with {narrow}")
    else:
        lines.append(f"narrow with {narrow}, or raise {value.raise_budget}" if narrow
                     else f"raise {value.raise_budget} to see more")
    return lines


@section.register
def _(value: Page, key: str) -> list[str]:
    """Which slice of a long answer this is and how to ask for the next one."""
    span = (f"results {value.offset + 1}-{value.offset + value.shown} of {value.total}"
            if value.shown else f"no results from {value.offset} on, of {value.total}")
    if value.next_offset is None:
        return [f"page: {span} (the last page)"]
    again = value.ask or f"offset={value.next_offset}"
    return [f"page: {span}; for the next ones ask again with {again}"]


# -- a whole answer ------------------------------------------------------------------------------
def render(result: ToolResult, tool: str = "", *, people: bool = False) -> str:
    """A few lines per result, the extra sections, truncation and limitations. For models
    (MCP) locations carry their line span and a provenance line closes the text; for people
    (the CLI) locations are aligned columns with their first line."""
    items = result.results  # the answer budget (budget.py) bounds them; 0: unbounded
    locations = [r for r in items if isinstance(r, CodeLocation)]
    width = max((len(_span(r.path, r.start_line)) for r in locations), default=0) if people else 0
    kinds = max((len(escape_text(r.kind)) for r in locations), default=0) if people else 0
    lines: list[str] = []
    for r in items:
        lines += ([location(r, width, kinds, span=not people)] if isinstance(r, CodeLocation)
                  else rows(r))
    if not result.results:
        lines.append("no results")
    budget = next((v for _, v in result.extra if isinstance(v, Omitted)), None)
    left = dict(budget.sections) if budget else {}
    for key, value in result.extra:
        part = section(value, key)
        if part and left.get(key):  # counts of a cut section are of what is shown
            part[-1] += f" (+{left[key]} more {escape_text(key)} left out)"
        lines += part
    if result.truncated and not any(isinstance(v, Omitted) for _, v in result.extra):
        lines.append("truncated: the answer is incomplete")  # the budget's section says how
    lines += [f"limitation: {_cut(n, 1000)}" for n in result.coverage.limitations]
    big = [sk.path for sk in result.coverage.skipped if sk.reason.startswith("oversized")]
    if big:  # not analysed for their size: said in the text too, not only in --json
        lines.append("skipped: " + _more((escape_text(p) for p in big[:5]), len(big), 5)
                     + " (over max_file_bytes: not analysed)")
    if people:  # hints name CLI commands on the command line, not MCP tools
        lines = [_cli_line(line) if line.startswith(HINT_LINES) else line for line in lines]
    prov = result.provenance
    if prov.worktree_mismatch:
        lines.append(f"warning: worktree mismatch: {escape_text(prov.worktree_mismatch)}")
    if not people:
        snap = (f"snapshot {str(prov.commit)[:12]} indexed_at {prov.indexed_at}"
                if prov.indexed_at else "no index (live parsing)")
        lines.append(f"[{len(result.results)} result(s); {escape_text(prov.repo)}@"
                     f"{escape_text(prov.ref)}; {snap}]")
    return "\n".join(lines)
