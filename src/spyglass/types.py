"""Plain frozen value types shared by every layer: parsed facts and query results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

DEF_KINDS = frozenset(
    {"func", "method", "class", "struct", "interface", "type", "enum", "const", "var",
     "field", "module", "package", "macro", "test"}
)
ROLES = frozenset({"call", "import", "type", "read", "write", "ref"})
Role = Literal["call", "import", "type", "read", "write", "ref"]

Source = Literal["live-lsp", "cached-index", "text-fallback"]
Confidence = Literal["exact", "inferred", "ambiguous"]


class Definition(NamedTuple):
    """A named definition in one file; `qualname` is local to the file (``Class.method``).

    Parsed facts are NamedTuples: immutable like the frozen dataclasses of results, and
    cheap enough to build by the hundred thousand."""

    name: str
    qualname: str
    kind: str
    start_line: int  # 1-based, inclusive
    end_line: int
    name_line: int
    name_col: int  # 0-based byte column of the name
    parent: int  # index of the enclosing definition in FileFacts.definitions, or -1
    bases: tuple[str, ...] = ()  # dotted base-class / embedded-type expressions
    # Arguments a call may pass (packs capturing @parameters; syntax/arity.py): fewest and
    # most (-1: any number); (-1, -1) when not counted.
    params_min: int = -1
    params_max: int = -1


class Reference(NamedTuple):
    """A use of a name. `head` says what the first identifier of `qualifier + name` is bound to.

    head kinds: ``def:<local qualname>`` (a definition in this file), ``import:<index>``,
    ``self:<class qualname>``, ``local`` (a local variable, receiver unknown), ``param``
    (a member used on a parameter without a declared type), ``free`` (no binding in this
    file), ``expr`` (the receiver is not a plain name).
    """

    name: str
    line: int  # 1-based
    col: int  # 0-based byte column
    end_col: int
    role: str
    scope: int  # index of the enclosing definition, or -1 for module level
    qualifier: str  # dotted receiver text ("" for a bare name)
    head: str


class Import(NamedTuple):
    """One imported binding: ``module`` as written, the imported ``name`` (None for a
    whole-module import, ``*`` for a wildcard) and the local ``alias`` it binds."""

    module: str
    name: str | None
    alias: str
    line: int
    col: int
    scope: int = -1
    reexport: bool = False


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A parse problem: tree-sitter ERROR or MISSING nodes, or a skipped/oversized input."""

    line: int
    end_line: int
    col: int
    message: str
    severity: str = "error"


@dataclass(frozen=True, slots=True)
class FileFacts:
    """Everything extracted from one file's bytes; independent of the file's path."""

    language: str
    definitions: tuple[Definition, ...]
    references: tuple[Reference, ...]
    imports: tuple[Import, ...]
    diagnostics: tuple[Diagnostic, ...]
    lines: int
    package: str = ""  # declared package name (Go), else ""
    build_constraint: str = ""  # the file's build constraint as written (Go `//go:build`)
    # The arguments each reference passes, aligned with `references` (-1: not a counted
    # call); empty when the pack counts none (syntax/arity.py). Kept beside the references
    # so that packs without counts pay nothing per reference.
    call_args: tuple[int, ...] = ()
    # Identifier tokens not extracted as references or definitions' names, by name and
    # why (`ignore:<kind>` an @ignore capture in a <kind>, `token:<kind>` a token no
    # pattern captures, `local`/`builtin`/`module` a name the extractor drops): (name,
    # why, places "line:col" — 0-based column — separated by spaces).
    tokens: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class CodeLocation:
    """The result contract (docs/contract.md): exactly these fields, in this order."""

    repo: str
    ref: str
    path: str
    start_line: int
    end_line: int
    symbol: str
    kind: str
    source: Source
    indexed_at: str | None
    stale: bool
    uncertain: bool
    evidence: str


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file that was not analysed, and why."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class Accounting:
    """Every occurrence of a target's name in the analysed files, each decided once
    (docs/contract.md "Accounting"): listed `certain`, listed `flagged` (uncertain, with
    evidence), `excluded` (resolved with certainty to another definition, or not a use the
    question asks about), or `cut` (counted, not listed: a bound, an exact-only answer, a
    name-matched candidate too common to list; the limitations say which)."""

    occurrences: int
    certain: int
    flagged: int
    excluded: int
    cut: int
    by_rule: tuple[tuple[str, int], ...] = ()  # which rule decided how many occurrences

    @property
    def complete(self) -> bool:
        """Every occurrence is listed as certain or excluded: no need to grep."""
        return self.flagged == 0 and self.cut == 0


@dataclass(frozen=True, slots=True)
class Coverage:
    """Which files an answer analysed and which it skipped, plus explicit limitations."""

    analysed: int
    analysed_files: tuple[str, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    limitations: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    skipped_total: int = 0  # every skipped file, listed in `skipped` or not
    accounting: Accounting | None = None  # references, callers, callees, blast radius


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where an answer came from."""

    repo: str
    ref: str
    commit: str | None
    indexed_at: str | None
    workspace_digest: str | None
    tree_sitter: str
    grammars: tuple[tuple[str, str], ...]
    query_packs: tuple[tuple[str, str], ...]
    worktree_mismatch: str | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    """One tool answer: results plus truncation, coverage and provenance."""

    results: tuple[object, ...]
    truncated: bool
    coverage: Coverage
    provenance: Provenance
    extra: tuple[tuple[str, object], ...] = field(default=())


@dataclass(frozen=True, slots=True)
class FileContext:
    """What resolution needs to know about a file beyond its bytes: where it sits."""

    path: str
    module: str  # the language's module key for this file (dotted module, Go import path, …)
    settings: tuple[tuple[str, str], ...] = ()  # e.g. tsconfig path mappings


@dataclass(frozen=True, slots=True)
class Resolution:
    """Per-file resolution output: one target per reference (None = unresolved/external).

    Targets and definition full names live in one string space per language, so a
    reference binds to a definition when the strings are equal (after alias closure)."""

    targets: tuple[str | None, ...]
    confidence: tuple[str, ...]
    def_full: tuple[str, ...]
    bases: tuple[tuple[str, ...], ...]
    aliases: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class PreciseStatus:
    """One language's precise pass as code_status shows it (docs/precise.md)."""

    language: str
    tool: str  # "scip-python 0.6.6"
    state: str  # running, completed, failed, timeout, missing, interrupted
    files: int  # documents imported (files covered)
    seconds: float
    peak_mb: float
    error: str
    snapshot: int  # the snapshot the pass ran for


@dataclass(frozen=True, slots=True)
class BridgeStatus:
    """One language-server bridge as code_status shows it (docs/bridge.md)."""

    name: str
    language: str
    state: str  # idle (not started yet), starting, ready, failed, stopped
    execution: str
    version: str | None
    pid: int | None
    uptime_s: float | None
    restarts: int
    last_error: str | None
    runtime: str | None = None  # sandboxed: bubblewrap, docker or podman ([sandbox] runtime)
    image: str | None = None  # a container runtime's image


@dataclass(frozen=True, slots=True)
class ScipExport:
    """What `spyglass export --scip` wrote (docs/indexing.md "SCIP export")."""

    file: str
    snapshot: int
    ref: str
    commit: str | None
    documents: int
    definitions: int  # definition occurrences
    references: int  # reference occurrences (exact edges only)
    symbols: int  # distinct symbols defined
    omitted_uncertain: int  # references the index is not sure of (inferred, ambiguous)
    omitted_external: int  # exact references to names no file of the snapshot defines
    size: int  # bytes written
