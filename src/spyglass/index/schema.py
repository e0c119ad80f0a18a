"""The store's tables and the secondary indexes of its fact tables (SQLite's dialect; the
team store translates them, index/postgres.py)."""

from __future__ import annotations

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- A unit is one parsed file version: facts keyed by path, content hash, pack and context.
CREATE TABLE IF NOT EXISTS units(
  id INTEGER PRIMARY KEY, path TEXT NOT NULL, blob TEXT NOT NULL, pack TEXT NOT NULL,
  ctx TEXT NOT NULL, language TEXT NOT NULL, module TEXT NOT NULL, lines INTEGER NOT NULL,
  size INTEGER NOT NULL, package TEXT NOT NULL DEFAULT '', build TEXT NOT NULL DEFAULT '',
  UNIQUE(path, blob, pack, ctx));
CREATE TABLE IF NOT EXISTS defs(
  unit INTEGER NOT NULL, idx INTEGER NOT NULL, name TEXT NOT NULL, qualname TEXT NOT NULL,
  full TEXT NOT NULL, kind TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
  name_line INTEGER NOT NULL, name_col INTEGER NOT NULL, parent INTEGER NOT NULL,
  params_min INTEGER NOT NULL DEFAULT -1, params_max INTEGER NOT NULL DEFAULT -1,
  PRIMARY KEY(unit, idx)) WITHOUT ROWID;
-- Resolved base classes / embedded types of class-like definitions.
CREATE TABLE IF NOT EXISTS bases(unit INTEGER NOT NULL, idx INTEGER NOT NULL, base TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS refs(
  unit INTEGER NOT NULL, name TEXT NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL,
  end_col INTEGER NOT NULL, role TEXT NOT NULL, scope INTEGER NOT NULL, qualifier TEXT NOT NULL,
  head TEXT NOT NULL, target TEXT, conf TEXT NOT NULL, args INTEGER NOT NULL DEFAULT -1,
  PRIMARY KEY(unit, line, col))
  WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS imports(
  unit INTEGER NOT NULL, idx INTEGER NOT NULL, module TEXT NOT NULL, name TEXT, alias TEXT NOT NULL,
  line INTEGER NOT NULL, col INTEGER NOT NULL, scope INTEGER NOT NULL, reexport INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS aliases(unit INTEGER NOT NULL, alias TEXT NOT NULL, target TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS diags(
  unit INTEGER NOT NULL, line INTEGER NOT NULL, end_line INTEGER NOT NULL, col INTEGER NOT NULL,
  message TEXT NOT NULL, severity TEXT NOT NULL);
-- Identifier tokens no reference is made of (FileFacts.tokens; query/accounting.py): one
-- row per name and reason in a unit, its places "line:col" separated by spaces.
CREATE TABLE IF NOT EXISTS tokens(
  unit INTEGER NOT NULL, name TEXT NOT NULL, why TEXT NOT NULL, places TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS snapshots(
  id INTEGER PRIMARY KEY, repo TEXT NOT NULL, worktree TEXT NOT NULL, commit_sha TEXT,
  ref TEXT NOT NULL, state TEXT NOT NULL, started_at TEXT NOT NULL, indexed_at TEXT,
  files INTEGER NOT NULL DEFAULT 0, parsed INTEGER NOT NULL DEFAULT 0,
  persisted INTEGER NOT NULL DEFAULT 0, reused INTEGER NOT NULL DEFAULT 0, error TEXT,
  signature TEXT NOT NULL DEFAULT '', ref_source TEXT NOT NULL DEFAULT '');
-- Complete file membership of a snapshot, supported or not.
CREATE TABLE IF NOT EXISTS snapshot_files(
  snapshot INTEGER NOT NULL, path TEXT NOT NULL, unit INTEGER, blob TEXT NOT NULL,
  size INTEGER NOT NULL, language TEXT, skipped TEXT, PRIMARY KEY(snapshot, path))
  WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS snapshot_files_unit ON snapshot_files(unit, snapshot);
-- The job journal: one row per `spyglass index` run, whatever became of it.
CREATE TABLE IF NOT EXISTS jobs(
  id INTEGER PRIMARY KEY, snapshot INTEGER, repo TEXT NOT NULL, worktree TEXT NOT NULL,
  ref TEXT NOT NULL, ref_source TEXT NOT NULL, commit_sha TEXT, state TEXT NOT NULL,
  started_at TEXT NOT NULL, finished_at TEXT, files INTEGER NOT NULL DEFAULT 0,
  parsed INTEGER NOT NULL DEFAULT 0, persisted INTEGER NOT NULL DEFAULT 0,
  reused INTEGER NOT NULL DEFAULT 0, error TEXT, pid INTEGER NOT NULL DEFAULT 0);
-- An imported SCIP index (docs/bridge.md), one row per document, kept with the snapshot it
-- was imported into (garbage collection drops it with that snapshot); `digest` is the SHA-1
-- of the file's content at import, `occ` its occurrences as JSON, `import` the SHA-1 of the
-- imported file (which import a row belongs to).
CREATE TABLE IF NOT EXISTS scip_docs(
  snapshot INTEGER NOT NULL, path TEXT NOT NULL, tool TEXT NOT NULL, digest TEXT NOT NULL,
  occ TEXT NOT NULL, import TEXT NOT NULL, PRIMARY KEY(snapshot, path)) WITHOUT ROWID;
-- The symbol relationships of an import (is_reference/is_implementation/...: REL_* bits).
CREATE TABLE IF NOT EXISTS scip_rels(
  snapshot INTEGER NOT NULL, tool TEXT NOT NULL, symbol TEXT NOT NULL, related TEXT NOT NULL,
  bits INTEGER NOT NULL, PRIMARY KEY(snapshot, tool, symbol, related)) WITHOUT ROWID;
-- The precise pass (docs/precise.md): one row per snapshot and language.
CREATE TABLE IF NOT EXISTS precise_runs(
  snapshot INTEGER NOT NULL, language TEXT NOT NULL, tool TEXT NOT NULL, state TEXT NOT NULL,
  files INTEGER NOT NULL DEFAULT 0, seconds REAL NOT NULL DEFAULT 0,
  peak_mb REAL NOT NULL DEFAULT 0, error TEXT NOT NULL DEFAULT '', at TEXT NOT NULL,
  PRIMARY KEY(snapshot, language)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS claims(
  blob TEXT NOT NULL, ext TEXT NOT NULL, digest TEXT NOT NULL, language TEXT NOT NULL,
  PRIMARY KEY(blob, ext, digest)) WITHOUT ROWID;
-- Explore's word index (query/wordstore.py): filled on the first free-text question that
-- needs a unit, not by `index`; a unit's words, its definitions' comment words, all stems.
CREATE TABLE IF NOT EXISTS word_units(
  unit INTEGER PRIMARY KEY, length INTEGER NOT NULL, described INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS file_words(
  stem TEXT NOT NULL, unit INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY(stem, unit))
  WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS file_words_unit ON file_words(unit);
CREATE TABLE IF NOT EXISTS comment_words(
  stem TEXT NOT NULL, unit INTEGER NOT NULL, idx INTEGER NOT NULL, n INTEGER NOT NULL,
  PRIMARY KEY(stem, unit, idx)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS comment_words_unit ON comment_words(unit);
CREATE TABLE IF NOT EXISTS word_stems(stem TEXT PRIMARY KEY) WITHOUT ROWID;
-- Explore's name postings (query/namestore.py), filled like the words: the units whose names
-- are kept; every name's words and whole lower-cased name ('=' + name) as keys (of any unit,
-- like word_stems); the names each unit's definitions use, by enclosing definition.
CREATE TABLE IF NOT EXISTS name_units(unit INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS name_keys(
  key TEXT NOT NULL, name TEXT NOT NULL, PRIMARY KEY(key, name)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS used_names(
  name TEXT NOT NULL, unit INTEGER NOT NULL, scope INTEGER NOT NULL,
  PRIMARY KEY(name, unit, scope)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS used_names_unit ON used_names(unit);
CREATE TABLE IF NOT EXISTS events(
  id INTEGER PRIMARY KEY, at TEXT NOT NULL, snapshot INTEGER, kind TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '', job INTEGER);
"""


# Secondary indexes of the fact tables: a build into an empty store creates them after the
# bulk load (one sort each) instead of maintaining them row by row.
FACT_INDEXES = """
CREATE INDEX IF NOT EXISTS defs_name ON defs(name);
CREATE INDEX IF NOT EXISTS defs_full ON defs(full);
CREATE INDEX IF NOT EXISTS bases_base ON bases(base);
CREATE INDEX IF NOT EXISTS refs_target ON refs(target) WHERE target IS NOT NULL;
CREATE INDEX IF NOT EXISTS refs_unresolved ON refs(name) WHERE target IS NULL;
CREATE INDEX IF NOT EXISTS refs_ambiguous ON refs(name) WHERE conf = 'ambiguous';
CREATE INDEX IF NOT EXISTS imports_unit ON imports(unit);
CREATE INDEX IF NOT EXISTS aliases_target ON aliases(target);
CREATE INDEX IF NOT EXISTS aliases_alias ON aliases(alias);
CREATE INDEX IF NOT EXISTS diags_unit ON diags(unit);
CREATE INDEX IF NOT EXISTS tokens_name ON tokens(name);
"""
