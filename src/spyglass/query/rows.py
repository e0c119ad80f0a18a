"""Fact rows of a view read by column name, their column lists (from the store's schema), IN-list chunks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import fields

from spyglass.index.store import CHUNK, chunks, columns, marks
from spyglass.query.results import DefRow, RefRow
from spyglass.query.view import View

__all__ = ["CHUNK", "DEF_COLS", "DEF_FROM", "REF_COLS", "REF_FROM", "Key", "baseline_defs",
           "chunks", "def_row", "defs", "defs_by_full", "defs_by_keys", "key", "marks", "pairs",
           "ref_row", "refs", "refs_to"]
Key = tuple[int, int]  # (unit, idx) of a definition


# Columns of the view's file table (temp.vfiles) that rows carry besides the facts.
FILE_COLUMNS = ("path", "language", "source", "stale")


def _columns(row_type: type[object], table: str, alias: str) -> tuple[tuple[str, ...], str]:
    """The field names of `row_type` and the SELECT list that reads them by column name:
    each field is a column of the store's `table` (as `alias`) or of temp.vfiles (as `f`)."""
    names = tuple(f.name for f in fields(row_type))  # type: ignore[arg-type]
    facts = set(columns(table))
    missing = [n for n in names if n not in facts and n not in FILE_COLUMNS]
    if missing:
        raise RuntimeError(f"{row_type.__name__} fields not in the store's {table} table or "
                           f"the view's files: {', '.join(missing)}")
    cols = ", ".join(f"{alias}.{n}" if n in facts else f"f.{n}" for n in names)
    return names, cols


DEF_FIELDS, DEF_COLS = _columns(DefRow, "defs", "d")
DEF_FROM = "FROM {defs} d JOIN temp.vfiles f ON f.unit = d.unit"
REF_FIELDS, REF_COLS = _columns(RefRow, "refs", "r")
REF_FROM = "FROM {refs} r JOIN temp.vfiles f ON f.unit = r.unit"


DEF_FACTS = tuple(n for n in DEF_FIELDS if n not in FILE_COLUMNS)  # the defs table's part


def def_row(row: Sequence[object]) -> DefRow:
    """One definition from a row selected with DEF_COLS, field by column name."""
    values = dict(zip(DEF_FIELDS, row, strict=True))
    values["stale"] = bool(values["stale"])
    return DefRow(**values)  # type: ignore[arg-type]


def ref_row(row: Sequence[object]) -> RefRow:
    """One reference site from a row selected with REF_COLS, field by column name."""
    values = dict(zip(REF_FIELDS, row, strict=True))
    values["stale"] = bool(values["stale"])
    return RefRow(**values)  # type: ignore[arg-type]


def defs(rows: Iterable[Sequence[object]]) -> list[DefRow]:
    """Definitions in file order."""
    out = [def_row(r) for r in rows]
    out.sort(key=lambda d: (d.path, d.start_line, d.name_col))
    return out


def refs(rows: Iterable[Sequence[object]]) -> list[RefRow]:
    """Reference sites in file order."""
    out = [ref_row(r) for r in rows]
    out.sort(key=lambda r: (r.path, r.line, r.col))
    return out


def pairs(chunk: Sequence[Key]) -> tuple[str, tuple[int, ...]]:
    """A VALUES list of (unit, idx) pairs and its parameters."""
    return ",".join("(?,?)" for _ in chunk), tuple(v for k in chunk for v in k)


def key(d: DefRow) -> Key:
    return (d.unit, d.idx)


def defs_by_full(view: View, fulls: Iterable[str]) -> list[DefRow]:
    """Definitions whose full name is one of `fulls`."""
    out: list[DefRow] = []
    for chunk in chunks(fulls):
        out += defs(view.each(f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.full IN ({marks(chunk)})",
                              tuple(chunk)))
    return out


def defs_by_keys(view: View, keys: Iterable[Key]) -> dict[Key, DefRow]:
    """Definitions by (unit, idx), in one query per chunk."""
    out: dict[Key, DefRow] = {}
    for chunk in chunks(keys):
        values, params = pairs(chunk)
        for d in defs(view.each(f"WITH k(u, i) AS (VALUES {values}) SELECT {DEF_COLS} FROM k "
                                "JOIN {defs} d ON d.unit = k.u AND d.idx = k.i "
                                "JOIN temp.vfiles f ON f.unit = d.unit", params)):
            out[key(d)] = d
    return out


def refs_to(view: View, targets: Iterable[str], limit: int | None = None) -> list[RefRow]:
    """Reference sites whose target is one of `targets`, in file order. With `limit`, at
    most limit + 1 of them (exact ones first, then in file order: SQLite sorts, and only
    those rows become objects), so that a caller can tell that more exist."""
    out: list[RefRow] = []
    order = "" if limit is None else " ORDER BY r.conf != 'exact', f.path, r.line, r.col LIMIT ?"
    for chunk in chunks(sorted(set(targets))):
        left = () if limit is None else (limit + 1 - len(out),)
        if left and left[0] <= 0:
            break
        out += refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.target IN "
                              f"({marks(chunk)}){order}", (*chunk, *left)))
    if limit is not None and len(out) > limit + 1:
        out.sort(key=lambda r: (r.conf != "exact", r.path, r.line, r.col))
        out = out[:limit + 1]
    out.sort(key=lambda r: (r.path, r.line, r.col))
    return out


def baseline_defs(view: View, unit: int, path: str, language: str) -> list[DefRow]:
    """The definitions a baseline unit holds, as of the snapshot (stale: the file differs
    from it now), in line order."""
    cols = ", ".join(DEF_FACTS)
    rows = view.conn.execute(f"SELECT {cols} FROM main.defs WHERE unit = ? ORDER BY "
                             "start_line", (unit,)).fetchall()
    return [DefRow(**dict(zip(DEF_FACTS, r, strict=True)), path=path,
                   language=language, source="cached-index", stale=True) for r in rows]
