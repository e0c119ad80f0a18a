"""SCIP export (docs/indexing.md "SCIP export"): a snapshot's definitions and its exact
references as a SCIP index. Symbols are `spyglass MANAGER NAME VERSION` + descriptors (the
module's namespaces, then each enclosing definition), the package read from the nearest
manifest a language pack names; references the index is not sure of are left out."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from spyglass.errors import BadInput, SpyglassError
from spyglass.index import confined, source, writer
from spyglass.index import scipwrite as w
from spyglass.index.store import Conn, SnapshotRow, latest_complete, snapshot_by_id
from spyglass.syntax.langpack import all_packs
from spyglass.types import ScipExport

MANIFEST_BYTES = 1 << 20


def choose_snapshot(conn: Conn, ref: str | None,
                    root: Path | None = None) -> SnapshotRow:
    """The newest complete snapshot, or the newest complete one of REF: its name as indexed,
    a commit prefix of at least 4 hex digits, or (in a git repository) the commit REF names
    now; BadInput naming the snapshots there are otherwise."""
    newest = latest_complete(conn)
    if newest is None:
        raise BadInput("no complete snapshot yet: run `spyglass index` first")
    if ref is None:
        return newest
    rows = conn.execute("SELECT id, ref, commit_sha FROM snapshots WHERE state='completed' "
                        "ORDER BY id DESC").fetchall()
    wanted = {ref}
    if root is not None and source.is_git_repo(root):
        try:
            wanted.add(source.resolve_commit(root, ref))
        except SpyglassError:
            pass
    for sid, name, sha in rows:
        if name in wanted or sha in wanted or (
                sha and len(ref) >= 4 and str(sha).startswith(ref.lower())):
            snap = snapshot_by_id(conn, int(sid))
            if snap is not None:
                return snap
    known = ", ".join(sorted({str(r[1]) for r in rows})) or "none"
    raise BadInput(f"no complete snapshot of {ref!r} (snapshots: {known}); "
                   f"`spyglass index --ref {ref}` first")


def _dig(data: Any, dotted: str) -> str:
    for part in dotted.split("."):
        if not isinstance(data, dict):
            return ""
        data = data.get(part)
    return data if isinstance(data, str) else ""


class Packages:
    """The package (manager, name, version) of each file: its pack's `[scip]` manager and
    the nearest of the pack's package files (pyproject.toml, package.json, …) up to the
    root, read confined; `.` for what no manifest says."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._packs = all_packs()
        self._cache: dict[tuple[str, str], str] = {}

    def _read(self, rel: str, spec: dict[str, Any]) -> tuple[str, str] | None:
        raw = confined.read_or_none(self.root, rel, MANIFEST_BYTES)
        if raw is None:
            return None
        text = raw.decode("utf-8", "replace")
        fmt = spec.get("format", "toml")
        if fmt == "regex":
            found = [re.search(spec.get(k, "(?!)"), text) for k in ("name", "version")]
            pkg, ver = (m.group(1) if m and m.groups() else "" for m in found)
            return (pkg, ver) if pkg else None
        try:
            data = tomllib.loads(text) if fmt == "toml" else json.loads(text)
        except (ValueError, tomllib.TOMLDecodeError):
            return None
        pkg = _dig(data, spec.get("name", ""))
        return (pkg, _dig(data, spec.get("version", ""))) if pkg else None

    def of(self, path: str, language: str) -> str:
        folder = str(PurePosixPath(path).parent)
        key = (folder, language)
        if key not in self._cache:
            pack = self._packs.get(language)
            scip = pack.manifest.get("scip", {}) if pack is not None else {}
            found: tuple[str, str] | None = None
            here = PurePosixPath(folder)
            while found is None:
                for spec in scip.get("package_files", []):
                    rel = str(here / spec["file"]) if str(here) != "." else spec["file"]
                    found = self._read(rel, spec)
                    if found is not None:
                        break
                if str(here) in (".", "/", ""):
                    break
                here = here.parent
            pkg, ver = found or ("", "")
            self._cache[key] = w.package(scip.get("manager", language), pkg, ver)
        return self._cache[key]

    def language(self, language: str) -> str:
        pack = self._packs.get(language)
        scip = pack.manifest.get("scip", {}) if pack is not None else {}
        return str(scip.get("language", language))


def symbol_for(full: str, kind: str, module: str, kinds: dict[str, str], pkg: str) -> str:
    """A definition's symbol: the module's namespaces, then one descriptor per further part
    of its full name (after the module and its separator: `.` in Python, `#` in the packs
    that keep paths), each of the kind the file defines under that prefix (a field set in
    `__init__` is the class's: `Circle#r.`); parts no definition names are namespaces."""
    cut = len(module)
    if full == module:
        head, rest = module, ""
    elif module and full.startswith(module) and not (full[cut].isalnum() or full[cut] == "_"):
        head, rest = module, full[cut + 1:]
    else:
        head, rest = "", full
    out = [f"{w.SCHEME} {pkg} {w.namespace(head)}"]
    parts = rest.split(".") if rest else []
    done = len(full) - len(rest)
    for i, part in enumerate(parts):
        done += len(part) + (1 if i else 0)
        last = i == len(parts) - 1
        out.append(w.descriptor(kind if last else kinds.get(full[:done], "module"), part))
    return "".join(out)


@dataclass(frozen=True, slots=True)
class _Unit:
    path: str
    unit: int
    language: str
    module: str


def _units(conn: Conn, snapshot: int) -> list[_Unit]:
    return [_Unit(str(p), int(u), str(lang), str(mod)) for p, u, lang, mod in conn.execute(
        "SELECT sf.path, u.id, u.language, u.module FROM snapshot_files sf JOIN units u "
        "ON u.id = sf.unit WHERE sf.snapshot = ? ORDER BY sf.path", (snapshot,))]


def _defs(conn: Conn, snapshot: int) -> dict[int, list[tuple[Any, ...]]]:
    out: dict[int, list[tuple[Any, ...]]] = {}
    for row in conn.execute(
            "SELECT d.unit, d.idx, d.name, d.full, d.kind, d.name_line, d.name_col, d.parent "
            "FROM snapshot_files sf JOIN defs d ON d.unit = sf.unit WHERE sf.snapshot = ? "
            "ORDER BY d.unit, d.idx", (snapshot,)):
        out.setdefault(int(row[0]), []).append(row[1:])
    return out


def _refs(conn: Conn, unit: int) -> Iterator[tuple[Any, ...]]:
    yield from conn.execute("SELECT line, col, end_col, role, target, conf FROM refs "
                            "WHERE unit = ? ORDER BY line, col", (unit,))


def _tool_version() -> str:
    try:
        return version("spyglass")
    except PackageNotFoundError:
        return "0"


def export(root: Path, conn: Conn, snap: SnapshotRow, out: Path,
           ref: str | None = None) -> ScipExport:
    """Write `snap` to `out` as a SCIP index (atomically: a temporary file renamed)."""
    packages = Packages(root)
    units = _units(conn, snap.id)
    defs = _defs(conn, snap.id)
    # full name → symbol: the same package's first (path order), else any package's first
    symbol_of: dict[str, str] = {}
    unit_symbols: dict[int, dict[int, str]] = {}
    for u in units:
        pkg = packages.of(u.path, u.language)
        base = f"{w.SCHEME} {pkg} {w.namespace(u.module)}"
        for key in (u.module, f"{pkg}\0{u.module}"):  # a module's namespace (an import's)
            symbol_of.setdefault(key, base)
        kinds = {str(r[2]): str(r[3]) for r in defs.get(u.unit, [])}
        own: dict[int, str] = {}
        for r in defs.get(u.unit, []):
            own[int(r[0])] = symbol_for(str(r[2]), str(r[3]), u.module, kinds, pkg)
            for key in (str(r[2]), f"{pkg}\0{r[2]}"):
                symbol_of.setdefault(key, own[int(r[0])])
        unit_symbols[u.unit] = own
    counts = {"defs": 0, "refs": 0, "uncertain": 0, "external": 0}
    symbols: set[str] = set()
    try:  # the one writer: a random temporary name, never a link followed (docs/security.md)
        with writer.replacing(out) as fh:
            args = ["export", "--scip", str(out)] + (["--ref", ref] if ref else [])
            fh.write(w.metadata("spyglass", _tool_version(), args,
                                "file://" + quote(str(root))))
            for u in units:
                fh.write(_document(conn, u, defs.get(u.unit, []), unit_symbols[u.unit],
                                   symbol_of, packages, counts, symbols))
            size = fh.tell()
    except writer.WriteRefused as exc:
        raise BadInput(f"cannot write {out}: {exc}") from exc
    except OSError as exc:
        raise BadInput(f"cannot write {out}: {exc.strerror}") from exc
    return ScipExport(str(out), snap.id, snap.ref, snap.commit, len(units), counts["defs"],
                      counts["refs"], len(symbols), counts["uncertain"], counts["external"],
                      size)


def _document(conn: Conn, u: _Unit, rows: list[tuple[Any, ...]],
              own: dict[int, str], symbol_of: dict[str, str], packages: Packages,
              counts: dict[str, int], symbols: set[str]) -> bytes:
    occs: list[w.Occ] = []
    infos: dict[str, w.Info] = {}
    pkg = packages.of(u.path, u.language)
    enclosing_of = {str(r[2]): own[int(r[0])] for r in rows}
    for idx, name, full, kind, line, col, _parent in rows:
        symbol = own[int(idx)]
        occs.append(w.Occ(int(line) - 1, int(col), int(col) + len(str(name).encode()),
                          symbol, w.ROLE_DEFINITION))
        enclosing = enclosing_of.get(str(full).rpartition(".")[0], "")
        infos.setdefault(symbol, w.Info(symbol, str(name), w.KINDS.get(str(kind), 0),
                                        enclosing))
    counts["defs"] += len(occs)
    symbols.update(infos)
    for line, col, end_col, role, target, conf in _refs(conn, u.unit):
        if conf != "exact":
            counts["uncertain"] += 1
            continue
        if target is None:
            continue
        used = symbol_of.get(f"{pkg}\0{target}") or symbol_of.get(str(target))
        if used is None:
            counts["external"] += 1
            continue
        occs.append(w.Occ(int(line) - 1, int(col), int(end_col), used,
                          w.ROLES.get(str(role), w.ROLE_READ)))
        counts["refs"] += 1
    occs.sort(key=lambda o: (o.line, o.col, -o.roles))
    return w.document(u.path, packages.language(u.language), occs, list(infos.values()))
