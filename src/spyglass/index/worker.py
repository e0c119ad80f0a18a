"""Per-file work done in worker processes: parse, extract, resolve, and shape rows."""

from __future__ import annotations

import json
import re
from pathlib import Path

from spyglass.index import postgres
from spyglass.index.resolvers import resolver_for
from spyglass.index.store import Conn, columns, open_file
from spyglass.syntax import conditionals, expansions
from spyglass.syntax.extract import extract
from spyglass.syntax.langpack import LanguagePack, all_packs
from spyglass.types import FileContext, FileFacts, Resolution

# Rows ready for executemany, without the unit id (the writer prepends it).
Rows = tuple[
    tuple[str, str, int, int, str, str],  # language, module, lines, size, package, build
    list[tuple[object, ...]],  # defs
    list[tuple[object, ...]],  # refs
    list[tuple[object, ...]],  # imports
    list[tuple[object, ...]],  # aliases
    list[tuple[object, ...]],  # diags
    list[tuple[object, ...]],  # bases
    list[tuple[object, ...]],  # tokens
]


def resolve(language: str, facts: FileFacts, ctx: FileContext) -> Resolution:
    """Resolve one file's references with its language's resolver (or not at all)."""
    module = resolver_for(all_packs()[language].resolver)
    if module is None:
        n = len(facts.references)
        return Resolution((None,) * n, ("ambiguous",) * n,
                          tuple(d.qualname for d in facts.definitions),
                          tuple(() for _ in facts.definitions), ())
    return module.resolve(facts, ctx)


def process(item: tuple[str, bytes, str, FileContext]) -> Rows:
    """Parse and resolve one file: (path, bytes, language, context) → rows."""
    path, data, language, ctx = item
    pack = all_packs()[language]
    # C: macros that expand to nothing or to specifiers, as the resolver found them
    read = expansions.prepared(data, ctx.settings)
    facts = extract(pack, read)
    res = resolve(language, facts, ctx)
    test_file = pack.is_test_file(path)
    defs: list[tuple[object, ...]] = []
    base_rows: list[tuple[object, ...]] = []
    for i, (d, full, bases) in enumerate(zip(facts.definitions, res.def_full, res.bases)):
        base_rows.extend((i, b) for b in bases)
        kind = d.kind
        # A test is a test-named function or class at module level or in a test class; a
        # function nested in a function is never collected by a test runner.
        top = d.parent < 0 or facts.definitions[d.parent].kind in ("class", "struct")
        if test_file and top and kind in ("func", "method", "class") and (
                pack.is_test_name(d.name, kind) or kind == "class" and pack.is_test_base(d.bases)):
            kind = "test"
        defs.append((i, d.name, d.qualname, full, kind, d.start_line, d.end_line, d.name_line,
                     d.name_col, d.parent, d.params_min, d.params_max))
    if facts.call_args:  # the store's column order: the count after target and confidence
        refs: list[tuple[object, ...]] = [r + (t, c, a) for r, t, c, a in zip(
            facts.references, res.targets, res.confidence, facts.call_args)]
    else:
        refs = [r + (t, c, -1) for r, t, c in zip(facts.references, res.targets,
                                                  res.confidence)]
    imports: list[tuple[object, ...]] = [(i, m.module, m.name, m.alias, m.line, m.col, m.scope, int(m.reexport))
               for i, m in enumerate(facts.imports)]
    diags: list[tuple[object, ...]] = [(g.line, g.end_line, g.col, g.message, g.severity) for g in facts.diagnostics]
    regions = _inactive(pack, data, ctx)
    meta = (language, ctx.module, facts.lines, len(data), facts.package,
            facts.build_constraint or conditionals.encode(regions))
    return (meta, list(defs), list(refs), list(imports), _live_aliases(facts, res, regions),
            list(diags), base_rows, [*facts.tokens, *expansions.blanked_tokens(data, read)])


def _inactive(pack: LanguagePack, data: bytes, ctx: FileContext) -> list[conditionals.Region]:
    """The file's `#if` branches that are not taken (manifest `preprocessor_conditions`):
    as the resolver decided them with the includes read (a unit of compile_commands.json
    and the headers it includes), else under its compile command's `-D`/`-U` macros, else
    only constant conditions (`#if 0`) and the file's own macros decide."""
    if not pack.manifest.get("preprocessor_conditions") or b"#" not in data:
        return []
    sure = conditionals.inactive_regions(data, {}, closed=True)
    settings = dict(ctx.settings)
    walked = settings.get(conditionals.REGIONS)
    if walked is not None:  # decided with the includes read (langs/c/resolver.py)
        found = conditionals.decode(walked)
        return found + [r for r in sure if r not in found]
    defines = settings.get(conditionals.DEFINES)
    if defines is None:
        return sure
    present = {str(k): str(v)
               for k, v in dict(pack.manifest.get("preprocessor_present", {})).items()}
    absent = [str(n) for n in pack.manifest.get("preprocessor_absent", ())]
    found = conditionals.inactive_regions(data, json.loads(defines), absent, present)
    # A constant branch (`#if 0`) inside one taken as inactive only for names a header may
    # define: the constant one holds whatever the header says.
    return found + [r for r in sure if r not in found]


def _live_aliases(facts: FileFacts, res: Resolution, regions: list[conditionals.Region]
                  ) -> list[tuple[object, ...]]:
    """The resolution's aliases less those of macros defined in a branch surely not taken
    (`#if 0 … #define SET(n) (*(const T *)…)`: that SET's body names nothing the file uses)."""
    sure = [r for r in regions if not r.assumed and not r.undecided]
    dead: set[str] = set()
    live: dict[str, list[str]] = {}  # bodies of the same-named macros that may be compiled
    for d, full in zip(facts.definitions, res.def_full):
        if d.kind != "macro":
            continue
        if any(r.start <= d.name_line <= r.end for r in sure):
            dead.add(full)
        else:
            live.setdefault(full, []).append(d.bases[-1] if d.bases else "")
    if not dead:
        return list(res.aliases)
    # `#if 0 … #define SET(n) A #else #define SET(n) B`: SET keeps what B names
    return [a for a in res.aliases if a[0] not in dead or any(
        re.search(rf"(?<![\w]){re.escape(str(a[1]).rsplit('#', 1)[-1])}(?![\w])", body)
        for body in live.get(str(a[0]), ()))]


# Each fact table's columns in the store's order, as rows are inserted (from its schema).
FACT_TABLES = {t: ", ".join(columns(t)) for t in
               ("units", "defs", "bases", "refs", "imports", "aliases", "diags", "tokens")}

# One chunk of work: (unit id, path, blob id, bytes, language, pack cache key, context,
# context key).
ChunkItem = tuple[int, str, str, bytes, str, str, FileContext, str]


Tables = dict[str, list[tuple[object, ...]]]


def chunk_rows(items: list[ChunkItem]) -> Tables:
    """Parse a chunk of files: each fact table's rows, with final unit ids."""
    tables: Tables = {t: [] for t in FACT_TABLES}
    for uid, path, blob, data, language, pack_key, ctx, ctx_key in items:
        meta, defs, refs, imports, aliases, diags, bases, tokens = process(
            (path, data, language, ctx))
        tables["units"].append((uid, path, blob, pack_key, ctx_key, *meta))
        for name, rows in (("defs", defs), ("bases", bases), ("refs", refs),
                           ("imports", imports), ("aliases", aliases), ("diags", diags),
                           ("tokens", tokens)):
            tables[name].extend((uid, *r) for r in rows)
    return tables


def insert_rows(conn: Conn, tables: Tables) -> None:
    """Insert one chunk's rows in one transaction (the caller's connection, autocommit)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        for table, rows in tables.items():
            if rows:
                marks = ",".join("?" * len(rows[0]))
                conn.executemany(f"INSERT OR REPLACE INTO {table}({FACT_TABLES[table]}) "
                                 f"VALUES({marks})", rows)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def process_chunk(items: list[ChunkItem], store: str) -> int:
    """Parse a chunk of files and insert their facts, with final unit ids, into the store
    in one transaction of this process's own connection. The build's writer lock covers
    the workers too (they inherit its descriptor), and the rows stay invisible until the
    snapshot that names them completes. Returns the number of files written."""
    tables = chunk_rows(items)
    conn: Conn
    if postgres.is_url(store):
        conn = postgres.Connection(store, "")
    else:
        conn = open_file(Path(store))
    try:
        conn.execute("PRAGMA busy_timeout=600000")
        conn.execute("PRAGMA synchronous=NORMAL")
        insert_rows(conn, tables)
    finally:
        conn.close()
    return len(items)
