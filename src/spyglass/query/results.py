"""Result types the query API returns besides CodeLocation (all plain frozen dataclasses)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from spyglass.types import BridgeStatus, CodeLocation, Confidence, PreciseStatus, Role


@dataclass(frozen=True, slots=True)
class DefRow:
    """A definition as the query layer sees it (internal to query; never returned)."""

    unit: int
    idx: int
    name: str
    qualname: str
    full: str
    kind: str
    start_line: int
    end_line: int
    name_line: int
    name_col: int
    parent: int
    path: str
    language: str
    source: str
    stale: bool
    params_min: int = -1  # arguments a call may pass: fewest, most (-1: any); -1 uncounted
    params_max: int = -1


@dataclass(frozen=True, slots=True)
class RefRow:
    """A reference site in the view (internal to query; never returned)."""

    unit: int
    name: str
    line: int
    col: int
    end_col: int
    role: Role
    scope: int
    qualifier: str
    head: str
    target: str | None
    conf: Confidence
    path: str
    language: str
    source: str
    stale: bool
    args: int = -1  # arguments the call passes (-1: not counted)


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """Current source text of a span, read live from disk (code_context)."""

    path: str
    start_line: int
    end_line: int
    content_hash: str
    text: str
    truncated: bool
    source: str = "text-fallback"


@dataclass(frozen=True, slots=True)
class DiagnosticItem:
    """One parse diagnostic of a file (code_diagnostics)."""

    path: str
    start_line: int
    end_line: int
    column: int
    severity: str
    message: str
    source: str = "text-fallback"


@dataclass(frozen=True, slots=True)
class AstMatch:
    """One capture of an ad hoc tree-sitter query (code_ast_query)."""

    path: str
    capture: str
    node_type: str
    start_line: int
    end_line: int
    start_column: int
    end_column: int
    text: str


@dataclass(frozen=True, slots=True)
class LanguageCount:
    """Files and lines of one language in the snapshot."""

    language: str
    files: int
    lines: int
    unparsed_files: int = 0  # files with syntax errors (read with error recovery)
    syntax_errors: int = 0


@dataclass(frozen=True, slots=True)
class LanguageCoverage:
    """How deep spyglass goes for one language (the pack's `[coverage]` table)."""

    language: str
    extensions: tuple[str, ...]
    grammar: str  # the grammar wheel and its version, "" for an unsupported language
    definitions: str
    references: str
    resolution: str
    callers: str
    tests: str
    limitations: str
    supported: bool = True


@dataclass(frozen=True, slots=True)
class StoreRepo:
    """One repository of the team store: its newest complete snapshot, and how this server
    answers for it ("checkout": a folder with its files and overlay; "snapshot": none)."""

    repo: str
    snapshot: int
    commit: str | None
    ref: str
    indexed_at: str | None
    age_s: int | None
    answers_from: str


@dataclass(frozen=True, slots=True)
class QueuedJob:
    """An index job of this repository on the team store's queue (`spyglass worker`s)."""

    id: int
    ref: str
    state: str
    attempts: int
    worker: str
    snapshot: int | None
    error: str | None


@dataclass(frozen=True, slots=True)
class StatusReport:
    """Index state (code_status)."""

    root: str
    repo: str
    indexed: bool
    snapshot_commit: str | None
    snapshot_ref: str | None
    indexed_at: str | None
    job_state: str | None
    job_error: str | None
    languages: tuple[LanguageCount, ...]
    skipped_by_reason: tuple[tuple[str, int], ...]
    overlay_added: tuple[str, ...]
    overlay_modified: tuple[str, ...]
    overlay_deleted: tuple[str, ...]
    fresh: bool
    worktree_mismatch: str | None
    limits: tuple[tuple[str, int], ...]
    tools: tuple[str, ...]
    store: str
    hint: str
    # Git-aware snapshot and overlay details (defaults keep older constructors valid).
    snapshot_ref_source: str | None = None
    head: str | None = None
    overlay_base: str | None = None
    overlay_kinds: tuple[tuple[str, tuple[str, ...]], ...] = ()
    overlay_renamed: tuple[tuple[str, str], ...] = ()
    workspace_digest: str | None = None
    job_parsed: int | None = None
    job_persisted: int | None = None
    bridges: tuple[BridgeStatus, ...] = ()  # language servers (docs/bridge.md)
    # The depth reached for each language of the repository (README "Languages").
    coverage: tuple[LanguageCoverage, ...] = ()
    # The first syntax error of the first files that have any (the construct not parsed).
    parse_errors: tuple[DiagnosticItem, ...] = ()
    precise: tuple[PreciseStatus, ...] = ()  # the precise pass per language (docs/precise.md)
    # The team store's repositories this server answers for (`repo` argument; docs/team.md).
    store_repos: tuple[StoreRepo, ...] = ()
    queued: tuple[QueuedJob, ...] = ()  # this repository's newest jobs on the team queue



@dataclass(frozen=True, slots=True)
class DefinitionChanges:
    """Definitions of one file added, removed or changed against the baseline snapshot."""

    added: tuple[CodeLocation, ...]
    removed: tuple[CodeLocation, ...]
    changed: tuple[CodeLocation, ...]


@dataclass(frozen=True, slots=True)
class FileChange:
    """One path of the workspace overlay; `definitions` is None past the file limit."""

    path: str
    status: str  # added, modified, deleted
    language: str | None
    definitions: DefinitionChanges | None


@dataclass(frozen=True, slots=True)
class BaseSnapshot:
    """The baseline snapshot an overlay diff is taken against."""

    commit: str | None
    ref: str
    indexed_at: str | None


@dataclass(frozen=True, slots=True)
class OverlaySummary:
    """How many paths the overlay adds, modifies and deletes."""

    added: int
    modified: int
    deleted: int


@dataclass(frozen=True, slots=True)
class DiagnosticsSummary:
    """Parse diagnostics of every analysed file in the view, the first few listed."""

    count: int
    files: int
    items: tuple[DiagnosticItem, ...]
    truncated: bool


# -- sections of blast radius, test suggestions and explore answers (ToolResult.extra) --
@dataclass(frozen=True, slots=True)
class Framework:
    """A test runner for part of the repository: its name, the folder its commands run in
    (relative to the root, "" for the root) and the configuration file that says so."""

    name: str
    root: str
    config: str
    evidence: str


@dataclass(frozen=True, slots=True)
class TestCommand:
    """One command running every suggested target of one framework (and project root)."""

    __test__ = False  # not a pytest test class

    framework: str
    command: str
    targets: int
    config: str
    note: str = ""  # what the command runs beyond the targets (a whole package or file)


@dataclass(frozen=True, slots=True)
class AffectedFile:
    """A file holding affected symbols, at its smallest distance from the change."""

    path: str
    distance: int
    symbols: int
    uncertain: bool
    test: bool


@dataclass(frozen=True, slots=True)
class AffectedPackage:
    """A folder (package) holding affected files."""

    path: str
    language: str
    distance: int
    files: int
    uncertain: bool


@dataclass(frozen=True, slots=True)
class TestTarget:
    """A test to run: a test function or class (`symbol`), or a whole file (`symbol` "")."""

    __test__ = False  # not a pytest test class

    path: str
    symbol: str
    start_line: int
    end_line: int
    framework: str
    command: str
    reason: str  # changed | reference | convention | fixture | package
    relevance: float  # higher ranks first
    uncertain: bool
    evidence: str


@dataclass(frozen=True, slots=True)
class TestFile:
    """A test file to run for a change: its suggested tests (ids, best first; none: the
    whole file), the command running them, and why, as the best evidence's chain."""

    __test__ = False  # not a pytest test class

    path: str
    tests: tuple[str, ...]
    command: str
    reason: str  # changed | reference | reach | fixture | convention | name | import | package
    relevance: float  # higher ranks first
    uncertain: bool
    evidence: str  # `test → user → … → changed` (the chain), or the rule that matched
    start_line: int = 1  # of the first listed test


@dataclass(frozen=True, slots=True)
class ChangeSummary:
    """What the answer started from."""

    origin: str
    files: tuple[str, ...]
    symbols: int
    unsupported: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Citation:
    """Where something is: path and line, and the symbol there. Never source text."""

    path: str
    line: int
    symbol: str


@dataclass(frozen=True, slots=True)
class RefSummary:
    """How a symbol is used: reference sites by role, files, and how many are uncertain."""

    total: int
    files: int
    uncertain: int
    by_role: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class ExploreItem:
    """The neighbourhood of one likely symbol (aligned with the result of the same index)."""

    symbol: str
    score: float
    callers: tuple[Citation, ...]
    callees: tuple[Citation, ...]
    references: RefSummary
    tests: tuple[Citation, ...]


@dataclass(frozen=True, slots=True)
class ExploreDiagnostic:
    """A parse problem in a file of a listed symbol (position and kind only)."""

    path: str
    line: int
    column: int
    severity: str
    message: str


@dataclass(frozen=True, slots=True)
class ExploreInfo:
    """How the query was read and what the answer cost."""

    query: str
    mode: str  # text | symbol | path | position
    budget: int
    tokens: int
    candidates: int


# -- the answer budget (spyglass/budget.py) ------------------------------------------------
@dataclass(frozen=True, slots=True)
class FileCount:
    """The results of one file: how many in all, how many the answer shows."""

    path: str
    results: int
    shown: int
    uncertain: int
    more_lines: tuple[int, ...]  # first lines of the results not shown (a few)


@dataclass(frozen=True, slots=True)
class Omitted:
    """What the answer budget left out: results and section items not shown, the results
    per file (in rank order), and the parameters that narrow the question (spelled as the
    front end takes them)."""

    max_chars: int
    results: int
    shown: int
    sections: tuple[tuple[str, int], ...]  # (section key, items left out)
    by_file: tuple[FileCount, ...]
    files: int  # files holding results (by_file may list fewer)
    narrow: tuple[str, ...]
    raise_budget: str  # the budget parameter, spelled for the front end


# -- continuation of a long answer (references, callers) -----------------------------------
@dataclass(frozen=True, slots=True)
class Page:
    """Which slice of one ranked list an answer holds: the results from `offset` on, of
    `total`; `next_offset` is where the next page starts (None: nothing is left). The
    list's order is total and fixed for a snapshot, so pages neither overlap nor skip.
    `ask` is the argument continuing it, spelled for the front end (the budget sets it)."""

    offset: int
    shown: int
    total: int
    next_offset: int | None
    ask: str = ""


CALLED_AT_PREFIX = "called at line "  # a callee row's evidence starts with its call lines
_CALLED_AT = re.compile(re.escape(CALLED_AT_PREFIX) + r"([0-9, ]+)")


def call_lines(evidence: str) -> list[int]:
    """The call lines a callee row names in its evidence: where the calls are, not where the
    callee is defined (the web graph's callee edges carry them)."""
    found = _CALLED_AT.match(evidence)
    return [int(n) for n in found.group(1).replace(" ", "").split(",") if n] if found else []


@dataclass(frozen=True, slots=True)
class Site:
    """One indexed use of a name in a file and the definition the index binds it to."""

    line: int
    col: int  # 0-based
    end_col: int
    name: str
    role: str
    path: str  # the definition's file and span
    start_line: int
    end_line: int
    symbol: str
    kind: str
    uncertain: bool  # several definitions, or bound by a guessed rule: the first is linked
