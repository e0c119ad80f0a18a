"""Garbage collection: keep the newest N complete snapshots (with their SCIP imports), drop
units nothing references."""

from __future__ import annotations

from dataclasses import dataclass

from spyglass.index.store import Conn, chunks, log_event, marks

FACT_TABLES = ("defs", "bases", "refs", "imports", "aliases", "diags", "tokens",
               "word_units", "file_words", "comment_words",  # and explore's words
               "name_units", "used_names")  # and names (name_keys, like word_stems, stays)
UNIT_BATCH = 500  # units whose facts are deleted per transaction
JOURNAL_KEEP = 2000  # events and jobs kept in the journal


@dataclass(frozen=True, slots=True)
class GcStats:
    """What one collection removed."""

    snapshots: int
    units: int


def collect(conn: Conn, keep: int, job: int | None = None) -> GcStats:
    """Delete all but the newest `keep` completed snapshots (and every snapshot that never
    completed), then the units no remaining snapshot refers to, in bounded transactions.

    Runs only under the writer lock. Each step is idempotent, so a collection killed
    half-way leaves a consistent store and the next one finishes the work. Readers hold a
    read transaction per answer, so rows never vanish from under an answer in progress."""
    keep = max(keep, 1)
    kept = [r[0] for r in conn.execute(
        "SELECT id FROM snapshots WHERE state='completed' ORDER BY id DESC LIMIT ?", (keep,))]
    drop = [r[0] for r in conn.execute("SELECT id FROM snapshots").fetchall() if r[0] not in kept]
    if drop:
        conn.execute("BEGIN IMMEDIATE")
        for batch in chunks(drop):
            conn.execute(f"DELETE FROM snapshot_files WHERE snapshot IN ({marks(batch)})", batch)
            conn.execute(f"DELETE FROM scip_docs WHERE snapshot IN ({marks(batch)})", batch)
            conn.execute(f"DELETE FROM scip_rels WHERE snapshot IN ({marks(batch)})", batch)
            conn.execute(f"DELETE FROM precise_runs WHERE snapshot IN ({marks(batch)})",
                         batch)
            conn.execute(f"DELETE FROM snapshots WHERE id IN ({marks(batch)})", batch)
        conn.execute("COMMIT")
    # A SCIP import whose snapshot is gone (an import racing a collection) goes too.
    conn.execute("DELETE FROM scip_docs WHERE snapshot NOT IN (SELECT id FROM main.snapshots)")
    dead = [r[0] for r in conn.execute(
        "SELECT id FROM units u WHERE NOT EXISTS "
        "(SELECT 1 FROM snapshot_files f WHERE f.unit = u.id)").fetchall()]
    for batch in chunks(dead, UNIT_BATCH):
        conn.execute("BEGIN IMMEDIATE")
        for table in FACT_TABLES:
            conn.execute(f"DELETE FROM {table} WHERE unit IN ({marks(batch)})", batch)
        conn.execute(f"DELETE FROM units WHERE id IN ({marks(batch)})", batch)
        conn.execute("COMMIT")
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("DELETE FROM events WHERE id <= (SELECT MAX(id) FROM events) - ?",
                 (JOURNAL_KEEP,))
    conn.execute("DELETE FROM jobs WHERE id <= (SELECT MAX(id) FROM jobs) - ?", (JOURNAL_KEEP,))
    if drop or dead:
        log_event(conn, kept[0] if kept else None, "gc", job=job, snapshots=len(drop),
                  units=len(dead))
    conn.execute("COMMIT")
    return GcStats(len(drop), len(dead))
