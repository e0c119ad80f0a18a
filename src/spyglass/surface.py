"""The tool surface, declared once: each tool's name, description, parameters (type, default,
bounds, help), result type and facade method. MCP (schemas and handlers), HTTP (query
parameters) and the CLI (subcommands, options, help) are derived from it (docs/mcp.md,
docs/web.md). Plain data: importing it loads neither the engine nor a front end."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from spyglass.errors import BadInput
from spyglass.query.results import AstMatch, DiagnosticItem, SourceSpan, StatusReport, TestFile
from spyglass.types import CodeLocation

Kind = Literal["str", "int", "bool", "strs", "spans"]
Span = tuple[str, int, int]  # path, first line, last line (1-based, inclusive)


@dataclass(frozen=True, slots=True)
class Param:
    """One argument of a tool. `name` is the MCP argument, the facade keyword and the CLI
    destination; `http` and `cli` rename it for those front ends (None: not offered there)."""

    name: str
    kind: Kind
    help: str = ""
    default: object = None
    required: bool = False
    ge: int | None = None
    le: int | None = None
    positional: bool = False  # CLI: a positional argument (lists take any number)
    words: bool = False  # CLI: a positional str taking the rest of the words, joined by spaces
    cli: str | None = ""  # CLI option ("" = --name-with-dashes); None = not on the CLI
    http: str | None = ""  # query parameter ("" = name; a POST body uses name); None: not HTTP
    scoped: bool = False  # MCP: left out, it is the server's start directory
    facade: bool = True  # passed to the facade method (False: the front end acts on it)
    described: bool = True  # MCP: the help goes into the schema (False: the name says it)

    @property
    def http_name(self) -> str:
        return self.http or self.name

    @property
    def option(self) -> str:
        return self.cli or "--" + self.name.replace("_", "-")

    def check(self, value: object) -> None:
        """Bounds of an integer argument (MCP checks them through its schema)."""
        if not isinstance(value, int) or isinstance(value, bool):
            return
        if (self.ge is not None and value < self.ge) or (self.le is not None and value > self.le):
            low = "" if self.ge is None else f" >= {self.ge}"
            high = "" if self.le is None else f" <= {self.le}"
            both = " and".join(x for x in (low, high) if x)
            raise BadInput(f"{self.name} must be{both}, got {value}")


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool: MCP name and description, parameters, result item type, facade method,
    CLI subcommand and one-line help, HTTP route under /api/v1/code/repos/{repo_id}."""

    name: str
    description: str
    params: tuple[Param, ...]
    result: type
    method: str
    command: str | None
    summary: str
    route: str | None
    gated: bool = False  # over HTTP needs the admin token when one is set: a POST there
    at: bool = False  # a position (name, or path + line [+ column]); CLI: --at PATH:LINE[:COL]

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def call(self, target: object, values: Mapping[str, Any]) -> Any:
        """Call the facade method with the values of the parameters it takes."""
        kwargs = {p.name: values[p.name] for p in self.params if p.facade and p.name in values}
        return getattr(target, self.method)(**kwargs)


# -- parameters shared by several tools --------------------------------------------------------
SYMBOL = Param("name", "str", "name or mod.Class.meth", positional=True)
WHERE = Param("path", "str", "file (with line) or folder", cli=None)
LINE = Param("line", "int", "1-based, with path", ge=1, cli=None)
COLUMN = Param("column", "int", "1-based, with line", ge=1, cli=None)
LSP_BUDGET = Param("lsp_budget_ms", "int", "language server ms; 0: index only",
                   ge=0, le=60000)
EXACT = Param("exact_only", "bool", "only certain results", default=False, cli="--exact")
# A repository of the team store (code_status lists them); the front end picks its facade.
REPO = Param("repo", "str", "team store repo id", facade=False, http=None,
             described=False)
# Continues a truncated answer (its `page` section names the next offset); MCP: the name says it.
OFFSET = Param("offset", "int", "continue a truncated answer from this result (its page says "
               "where)", default=0, ge=0, described=False)
TARGETS = Param("targets", "strs", "paths, path:line[-line] or symbols "
                "(default: the diff)", positional=True, http="target")
DIFF = Param("diff", "str", "git revision or range")
DEPTH = Param("depth", "int", "call-graph hops", default=3, ge=1, le=10)
PATHS = Param("paths", "strs", "files or folders (default: start dir)", positional=True,
              http="path", scoped=True)
# The answer budget (spyglass/budget.py): the text stays within it, structured content
# within STRUCTURED_FACTOR times it; the most relevant results are kept first.
DEFAULT_CHARS, STRUCTURED_FACTOR = 8000, 4
MAX_CHARS = Param("max_chars", "int", "answer size in characters of text (0: no budget)",
                  default=DEFAULT_CHARS, ge=0, facade=False, described=False)
BUDGETS = ("max_chars", "budget")  # a tool declaring neither takes MAX_CHARS


def budgeted(tool: Tool) -> Tool:
    """Every tool takes an answer budget: `max_chars`, unless it declares its own (code_explore's
    `budget`, in tokens)."""
    if any(p.name in BUDGETS for p in tool.params):
        return tool
    return replace(tool, params=(*tool.params, MAX_CHARS))


TOOLS: dict[str, Tool] = {t.name: budgeted(t) for t in (
    Tool("code_explore",
         "Start here when unsure where code lives: ranked definitions for a name, words "
         "or path, with callers and tests.",
         (Param("query", "str", "name, words or path", required=True,
                positional=True, words=True, http="q"),
          Param("path", "str", "only under this folder", scoped=True),
          Param("budget", "int", "answer size in tokens", default=2000, ge=200, le=20000),
          REPO),
         CodeLocation, "explore", "explore", "bounded discovery from a query, path or symbol",
         "explore"),
    Tool("code_find_symbol",
         "Definitions by name, qualified name or glob.",
         (Param("name", "str", "name, qualified name or glob (*Conf*)",
                required=True, positional=True, http="q"),
          Param("kind", "str", "func, method, class, struct, interface, type, const, var, "
                "field, test…"),
          Param("path", "str", "only under this file or folder", scoped=True),
          Param("all_repos", "bool", "every repository of the team store", default=False,
                described=False), REPO),
         CodeLocation, "find_symbol", "find", "definitions matching a name", "symbols"),
    Tool("code_references",
         "Every use of a symbol (call, import, type, read, write). Use before renaming or "
         "changing a signature.",
         (SYMBOL, WHERE, LINE, COLUMN,
          Param("include_declaration", "bool", "also declarations and renaming imports",
                default=False),
          EXACT, LSP_BUDGET, OFFSET, REPO),
         CodeLocation, "references", "refs", "references to a symbol", "references", at=True),
    Tool("code_callers",
         "Direct callers, one per call site; symbol = the calling function. Use before "
         "changing behaviour.",
         (SYMBOL, WHERE, LINE, COLUMN, EXACT, LSP_BUDGET, OFFSET, REPO),
         CodeLocation, "callers", "callers", "direct callers", "callers", at=True),
    Tool("code_callees",
         "What a function calls, with call lines; uncertain ones with evidence.",
         (SYMBOL, WHERE, LINE, EXACT, REPO),
         CodeLocation, "callees", "callees", "what a function calls", "callees", at=True),
    Tool("code_type_hierarchy",
         "Supertypes and subtypes of a type; for a method, what it overrides and its "
         "overrides.",
         (SYMBOL, WHERE, LINE, REPO),
         CodeLocation, "type_hierarchy", "hierarchy", "supertypes, subtypes and overrides",
         "hierarchy", at=True),
    Tool("code_structure",
         "Outline of the symbols in a file or folder. Cheaper than reading files.",
         (Param("path", "str", "file or folder", positional=True,
                scoped=True), REPO),
         CodeLocation, "structure", "structure", "symbols in a file or package", "structure"),
    Tool("code_blast_radius",
         "Symbols, files, packages and tests a change affects, with evidence. Use before a "
         "non-trivial edit.",
         (TARGETS, DIFF, DEPTH, LSP_BUDGET, REPO),
         CodeLocation, "blast_radius", "blast-radius", "what a change affects", "blast-radius"),
    Tool("code_suggest_tests",
         "Test files to run for a change, best first, with test ids, evidence and a command "
         "per framework.",
         (TARGETS, DIFF, DEPTH, REPO),
         TestFile, "suggest_tests", "tests", "tests to run for a change", "tests"),
    Tool("code_status",
         "Index state: snapshot, freshness, languages, skipped files, team store repos; "
         "index=true updates it.",
         (Param("index", "bool", "build/update the index first", default=False,
                cli=None, http=None, facade=False), replace(REPO, described=True)),
         StatusReport, "status", "status", "index state", None),
    Tool("code_context",
         "Current source of line spans, live from disk, with a content hash. Read spans here "
         "before editing, never from index results.",
         (Param("spans", "spans", "spans to read", required=True, positional=True),),
         SourceSpan, "context", "context",
         "current source of PATH:START[-END] spans, or of a symbol name's definitions",
         "context"),
    Tool("code_diagnostics",
         "Syntax errors (tree-sitter) in files or folders; check after editing.",
         (PATHS,),
         DiagnosticItem, "diagnostics", "diagnostics", "parse diagnostics for paths",
         "diagnostics"),
    Tool("code_ast_query",
         "A tree-sitter query over files: captures with positions, for structural searches "
         "other tools miss.",
         (Param("query", "str", "tree-sitter query, e.g. (call) @c", required=True,
                positional=True),
          PATHS),
         AstMatch, "ast_query", "ast-query", "an ad hoc tree-sitter query over paths",
         "ast-query", gated=True),
)}


TOOL_NAME = re.compile(r"\bcode_[a-z_]+\b")


def cli_command(tool: str) -> str:
    """The command line spelling of a tool (`code_callers` → `spyglass callers`); the
    status tool with index=true is `spyglass index`."""
    t = TOOLS.get(tool)
    if t is None or t.command is None:
        return tool
    return f"spyglass {t.command}"


# -- argument forms shared by the front ends ---------------------------------------------------
def check_position(name: str | None, path: str | None, line: int | None,
                   column: int | None, hint: str) -> None:
    """A position is a name, or path + line [+ column]; `hint` spells that for the front end."""
    if column is not None and line is None:
        raise BadInput(f"column needs line and path: {hint}")
    if line is not None and not path:
        raise BadInput(f"line needs path: {hint}")
    if not name and line is None:
        raise BadInput(hint)


def parse_position(text: str) -> tuple[str, int, int | None]:
    """PATH:LINE[:COL] (1-based) → parts."""
    parts = text.rsplit(":", 2)
    try:
        if len(parts) == 3 and parts[2].isdigit() and parts[1].isdigit():
            return parts[0], int(parts[1]), int(parts[2])
        path, line = text.rsplit(":", 1)
        return path, int(line), None
    except ValueError:
        raise BadInput(f"--at wants PATH:LINE[:COL], got {text!r}") from None


SYMBOL_SPAN = 0  # a span's start line for "the definitions of this symbol name"


def parse_span(text: str) -> Span:
    """PATH:START[-END] (1-based, inclusive) → (path, start, end); a word with no `:LINE`
    and no `/` (``pkg.mod.func``) is a symbol name: (name, SYMBOL_SPAN, SYMBOL_SPAN), the
    spans of its definitions."""
    if ":" not in text and "/" not in text and text.strip() and not text.startswith("."):
        return text, SYMBOL_SPAN, SYMBOL_SPAN
    path, _, lines = text.rpartition(":")
    start, _, end = lines.partition("-")
    if not path or not start.isdigit() or (end and not end.isdigit()):
        raise BadInput(f"a span is PATH:START[-END], got {text!r}")
    return check_span(path, int(start), int(end or start))


def check_span(path: str, start: int, end: int) -> Span:
    if start < 1:
        raise BadInput(f"{path}: start_line must be >= 1, got {start}")
    if end < start:
        raise BadInput(f"{path}: end_line {end} is before start_line {start}")
    return path, start, end
