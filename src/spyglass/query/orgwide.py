"""Definitions across every repository of the team store: "who defines X anywhere"."""

from __future__ import annotations

from dataclasses import dataclass

from spyglass.index import postgres
from spyglass.types import CodeLocation

MAX_ROWS = 500  # definitions read per question, ranked before the answer budget cuts
KIND_RANK = {"class": 0, "interface": 0, "struct": 0, "type": 1, "function": 2, "method": 3}


@dataclass(frozen=True, slots=True)
class Found:
    """Ranked definitions of a name across repositories, and how many matched in all."""

    locations: tuple[CodeLocation, ...]
    total: int
    repos: int


def find_everywhere(url: str, name: str, kind: str | None = None) -> Found:
    """Definitions named `name` (a bare name, or the tail of a qualified one) in the newest
    complete snapshot of every repository of the store: exact names first, then by kind
    (types, functions, methods), repository and path; at most MAX_ROWS, counted in all."""
    conn = postgres.Connection(url, "")
    tail = name.rsplit(".", 1)[-1]
    schema = postgres.SCHEMA_NAME
    newest = (f"(SELECT DISTINCT ON (repo) id, repo, ref, indexed_at FROM {schema}.snapshots "
              "WHERE state='completed' ORDER BY repo, id DESC)")
    where = "d.name = %s" + (" AND d.kind = %s" if kind else "")
    params: tuple[object, ...] = (tail, kind) if kind else (tail,)
    if "." in name:
        where += " AND (d.qualname = %s OR d.qualname LIKE %s OR d.full = %s)"
        params += (name, "%." + name.replace("%", "").replace("_", r"\_"), name)
    try:
        with conn.lock:
            total, repos = conn.raw.execute(
                f"SELECT COUNT(*), COUNT(DISTINCT s.repo) FROM {schema}.defs d JOIN "
                f"{schema}.snapshot_files f ON f.unit = d.unit JOIN {newest} s ON "
                f"s.id = f.snapshot WHERE {where}", params).fetchone()
            rows = conn.raw.execute(
                f"SELECT s.repo, s.ref, s.indexed_at, f.path, d.start_line, d.end_line, "
                f'd.qualname, d.kind FROM {schema}.defs d JOIN {schema}.snapshot_files f ON '
                f"f.unit = d.unit JOIN {newest} s ON s.id = f.snapshot WHERE {where} "
                f"ORDER BY s.repo, f.path, d.start_line LIMIT {MAX_ROWS}", params).fetchall()
    finally:
        conn.close()
    ranked = sorted(rows, key=lambda r: (KIND_RANK.get(str(r[7]), 4), r[0], r[3], r[4]))
    return Found(tuple(CodeLocation(
        repo=str(r[0]), ref=str(r[1]), path=str(r[3]), start_line=int(r[4]),
        end_line=int(r[5]), symbol=str(r[6]), kind=str(r[7]), source="cached-index",
        indexed_at=r[2], stale=False, uncertain=False, evidence=f"in {r[0]}") for r in ranked),
        int(total), int(repos))
