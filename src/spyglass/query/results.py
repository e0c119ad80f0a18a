"""Result types the query API returns besides CodeLocation (all plain frozen dataclasses)."""

from __future__ import annotations

from dataclasses import dataclass


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


@dataclass(frozen=True, slots=True)
class RefRow:
    """A reference site in the view (internal to query; never returned)."""

    unit: int
    name: str
    line: int
    col: int
    end_col: int
    role: str
    scope: int
    qualifier: str
    head: str
    target: str | None
    conf: str
    path: str
    language: str
    source: str
    stale: bool


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
