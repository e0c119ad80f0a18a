"""SCIP export (docs/indexing.md "SCIP export"): the symbol grammar; a round trip (export,
then import into a fresh store, gives the same certain facts); uncertain edges left out; and
flask's export read by an independent reader (Google's protobuf with the scip.proto
descriptor of the pinned @c4312/scip), its counts matching the snapshot."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import scip_reader
from corpora import reads
from fixture import commit_all, write_files

from spyglass.errors import BadInput
from spyglass.index import scipwrite
from spyglass.index.scip import ScipIndex, parse
from spyglass.query.facade import CodeIntel

PYPROJECT = '[project]\nname = "demo"\nversion = "1.2.0"\n'
SHAPES = (
    "import os\n\n\n"
    "class Circle:\n"
    "    def __init__(self, r):\n"
    "        self.r = r\n\n"
    "    def area(self):\n"
    "        return 3 * self.r * self.r\n\n\n"
    "def make(r):\n"
    "    return Circle(r)\n\n\n"
    "def describe(thing):\n"
    "    return thing.area()\n\n\n"
    "def here():\n"
    "    return os.getcwd()\n"
)
USE = (
    "from demo import shapes\n"
    "from demo.shapes import Circle, make\n\n\n"
    "def total():\n"
    "    label = 'é'; c = Circle(2)\n"
    "    return make(1).area() + c.area() + shapes.make(3).r\n"
)
FILES = {"pyproject.toml": PYPROJECT, "demo/__init__.py": "\"\"\"Demo.\"\"\"\n", "demo/shapes.py": SHAPES,
         "demo/use.py": USE, "tools/pyproject.toml": '[project]\nname = "helper"\n',
         "tools/job.py": "def make():\n    return 1\n"}
SCIP_NAME = re.compile(r"`(?:[^`]|``)+`|[A-Za-z0-9_+$-]+")


def decode(symbol: str) -> str:
    """A `spyglass` symbol's dotted name, by the SCIP grammar: scheme, three package
    fields (double spaces escape a space), then descriptors `n/`, `n#`, `n().`, `n.`."""
    fields: list[str] = []
    rest = symbol
    for _ in range(4):
        i = 0
        while True:
            i = rest.index(" ", i)
            if rest[i:i + 2] == "  ":
                i += 2
                continue
            break
        fields.append(rest[:i])
        rest = rest[i + 1:]
    assert fields[0] == "spyglass"
    names = []
    while rest:
        m = SCIP_NAME.match(rest)
        assert m, rest
        raw = m.group(0)
        names.append(raw[1:-1].replace("``", "`") if raw.startswith("`") else raw)
        rest = rest[m.end():]
        for suffix in ("().", "/", "#", ".", "!"):
            if rest.startswith(suffix):
                rest = rest[len(suffix):]
                break
        else:
            raise AssertionError(f"no descriptor suffix in {symbol!r}")
    return ".".join(names)


def test_symbol_grammar() -> None:
    assert scipwrite.package("python", "", "") == "python . ."
    assert scipwrite.package("npm", "my pkg", "1.0") == "npm my  pkg 1.0"
    assert scipwrite.name("area") == "area"
    assert scipwrite.name("a b`c") == "`a b``c`"
    assert scipwrite.namespace("flask.json") == "flask/json/"
    assert scipwrite.descriptor("class", "Circle") == "Circle#"
    assert scipwrite.descriptor("method", "area") == "area()."
    assert scipwrite.descriptor("field", "r") == "r."
    sym = "spyglass npm my  pkg 1.0 a/`b c`#m()."
    assert decode(sym) == "a.b c.m"


def _store_facts(ci: CodeIntel) -> tuple[set[tuple[str, int, int, str, bool]], int, int]:
    """The snapshot's certain facts, from its store: every definition, and every exact
    reference to a name the snapshot defines (a definition or a module); plus the counts
    of references left out (uncertain; exact to names defined elsewhere)."""
    conn = sqlite3.connect(ci.store_root / ".spyglass" / "graph.db")
    try:
        snap = conn.execute("SELECT max(id) FROM snapshots WHERE state='completed'"
                            ).fetchone()[0]
        units = "SELECT unit FROM snapshot_files WHERE snapshot = ? AND unit IS NOT NULL"
        known = {r[0] for r in conn.execute(
            f"SELECT full FROM defs WHERE unit IN ({units})", (snap,))}
        known |= {r[0] for r in conn.execute(
            f"SELECT module FROM units WHERE id IN ({units})", (snap,))}
        facts = {(p, line - 1, col, full, True) for p, line, col, full in conn.execute(
            "SELECT f.path, d.name_line, d.name_col, d.full FROM defs d JOIN snapshot_files f "
            "ON f.unit = d.unit WHERE f.snapshot = ?", (snap,))}
        uncertain = external = 0
        for p, line, col, target, conf in conn.execute(
                "SELECT f.path, r.line, r.col, r.target, r.conf FROM refs r JOIN "
                "snapshot_files f ON f.unit = r.unit WHERE f.snapshot = ?", (snap,)):
            if conf != "exact":
                uncertain += 1
            elif target in known:
                facts.add((p, line - 1, col, target, False))
            elif target is not None:
                external += 1
        return facts, uncertain, external
    finally:
        conn.close()


def _imported_facts(ci: CodeIntel) -> set[tuple[str, int, int, str, bool]]:
    conn = sqlite3.connect(ci.store_root / ".spyglass" / "graph.db")
    try:
        found = ScipIndex.newest(conn, 10 ** 9)
        assert found is not None
        index = ScipIndex.load(conn, found[0])
    finally:
        conn.close()
    return {(path, o.line, o.col, decode(o.symbol), o.definition)
            for path, (_, occs) in index.documents.items() for o in occs}


def test_round_trip_gives_the_same_certain_facts(tmp_path: Path) -> None:
    source = tmp_path / "source"
    write_files(source, FILES)
    commit_all(source)
    ci = CodeIntel(source)
    ci.index()
    out = tmp_path / "demo.scip"
    done = ci.export_scip(out)
    facts, uncertain, external = _store_facts(ci)
    assert (done.documents, done.definitions + done.references) == (4, len(facts))
    assert (done.omitted_uncertain, done.omitted_external) == (uncertain, external)
    assert uncertain > 0 and external > 0  # thing.area(), os.getcwd(): left out
    # A fresh store of the same files imports it: the same certain facts come back.
    fresh = tmp_path / "fresh"
    shutil.copytree(source, fresh, ignore=shutil.ignore_patterns(".spyglass"))
    again = CodeIntel(fresh)
    again.index()
    tool, kept, missing = again.import_scip(out)
    assert (tool.split()[0], kept, missing) == ("spyglass", 4, [])
    assert _imported_facts(again) == facts
    # …and the import makes those sites exact with its evidence (the query layer reads it).
    refs = again.references(path="demo/shapes.py", line=12)  # make
    assert {(c.path, c.start_line) for c in refs.results} >= {("demo/use.py", 2),
                                                              ("demo/use.py", 7)}
    assert any(n.startswith("precise facts (spyglass ") for n in refs.coverage.limitations), \
        refs.coverage.limitations


def test_symbols_packages_roles_and_byte_columns(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_files(root, FILES)
    ci = CodeIntel(root)
    ci.index()
    out = tmp_path / "x.scip"
    ci.export_scip(out)
    tool, docs = parse(out.read_bytes())
    assert tool.startswith("spyglass ")
    defs = {(p, o.line, o.symbol) for p, occs in docs.items() for o in occs if o.definition}
    area = "spyglass python demo 1.2.0 demo/shapes/Circle#area()."
    assert ("demo/shapes.py", 7, area) in defs
    # a package of its own (tools/pyproject.toml, no version): its own `make`, never demo's
    assert ("tools/job.py", 0, "spyglass python helper . job/make().") in defs
    uses = [o for o in docs["demo/use.py"] if not o.definition]
    assert {o.symbol for o in uses} >= {"spyglass python demo 1.2.0 demo/shapes/make().",
                                         "spyglass python demo 1.2.0 demo/shapes/"}
    # `c = Circle(2)` after 'é' (2 bytes): the column counts bytes (UTF-8 positions)
    line = USE.splitlines()[5]
    col = len(line[:line.index("Circle")].encode())
    assert any(o.line == 5 and o.col == col and o.symbol.endswith("demo/shapes/Circle#")
               for o in uses)
    # describe's `thing.area()` is not sure to be Circle.area: not exported
    assert not any(o.line == 16 for o in docs["demo/shapes.py"] if not o.definition)


def test_export_needs_a_snapshot_of_the_ref(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_files(root, FILES)
    commit_all(root)
    ci = CodeIntel(root)
    snap = ci.index()
    assert snap.commit is not None
    done = ci.export_scip(tmp_path / "a.scip", snap.commit[:8])
    assert done.commit == snap.commit
    assert ci.export_scip(tmp_path / "m.scip", "main").commit == snap.commit  # resolved by git
    with pytest.raises(BadInput, match="no complete snapshot of 'nope'"):
        ci.export_scip(tmp_path / "b.scip", "nope")
    assert not (tmp_path / "b.scip").exists()


def test_cli_export(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_files(root, FILES)
    run = [sys.executable, "-m", "spyglass", "-C", str(root)]
    assert subprocess.run([*run, "index"], capture_output=True, check=False).returncode == 0
    proc = subprocess.run([*run, "export", "--scip", str(tmp_path / "c.scip"), "--json"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert info["documents"] == 4 and info["size"] == (tmp_path / "c.scip").stat().st_size


@reads("flask")
def test_flask_export_read_by_an_independent_reader(
        corpus: Callable[[str], Path], git_copy: Callable[[Path], Path],
        tmp_path: Path) -> None:
    why = scip_reader.missing()
    if why:
        pytest.skip(why)
    ci = CodeIntel(git_copy(corpus("flask")))
    ci.index()
    out = tmp_path / "flask.scip"
    done = ci.export_scip(out)
    index = scip_reader.read(out)
    facts, uncertain, external = _store_facts(ci)
    occs = [o for d in index.documents for o in d.occurrences]
    defs = [o for o in occs if o.symbol_roles & 1]
    conn = sqlite3.connect(ci.store_root / ".spyglass" / "graph.db")
    try:
        snap = done.snapshot
        files, n_defs = conn.execute(
            "SELECT count(DISTINCT f.path), (SELECT count(*) FROM defs d JOIN snapshot_files g "
            "ON g.unit = d.unit WHERE g.snapshot = ?) FROM snapshot_files f "
            "WHERE f.snapshot = ? AND f.unit IS NOT NULL", (snap, snap)).fetchone()
    finally:
        conn.close()
    assert len(index.documents) == files == done.documents
    assert len(defs) == n_defs == done.definitions
    assert len(occs) == len(facts) == done.definitions + done.references
    assert len({s.symbol for d in index.documents for s in d.symbols}) == done.symbols
    assert (done.omitted_uncertain, done.omitted_external) == (uncertain, external)
    assert index.metadata.tool_info.name == "spyglass"
    helpers = next(d for d in index.documents if d.relative_path == "src/flask/helpers.py")
    assert helpers.language == "Python" and helpers.position_encoding == 1
    assert any(s.symbol == "spyglass python Flask 3.1.3 flask/helpers/get_debug_flag()."
               and s.display_name == "get_debug_flag" for s in helpers.symbols)
    assert {decode(o.symbol) for o in occs} <= {f[3] for f in facts}


def test_other_packs_name_their_packages(tmp_path: Path) -> None:
    """package.json and go.mod give npm and go packages; modules kept as paths are
    namespaces by folder, and `#`-separated full names become descriptors."""
    root = tmp_path / "multi"
    write_files(root, {
        "web/package.json": '{"name": "@acme/web", "version": "2.0.1"}\n',
        "web/src/shapes.ts": ("export class Shape {\n  area(): number { return 1; }\n}\n"
                              "export function make(): Shape { return new Shape(); }\n"),
        "web/src/use.ts": ('import { make, Shape } from "./shapes";\n'
                           "export const total = (s: Shape) => make().area() + s.area();\n"),
        "gosrc/go.mod": "module example.com/acme/tool\n\ngo 1.21\n",
        "gosrc/tool.go": ("package tool\n\ntype T struct{ N int }\n\n"
                          "func (t T) Get() int { return t.N }\n\n"
                          "func Make() T { return T{N: 1} }\n"),
    })
    ci = CodeIntel(root)
    ci.index()
    out = tmp_path / "multi.scip"
    ci.export_scip(out)
    _, docs = parse(out.read_bytes())
    seen = {(p, o.symbol, o.definition) for p, occs in docs.items() for o in occs}
    npm = "spyglass npm @acme/web 2.0.1 web/src/shapes/"
    assert {("web/src/shapes.ts", npm + "Shape#area().", True),
            ("web/src/use.ts", npm + "make().", False),
            ("web/src/use.ts", npm + "Shape#", False)} <= seen
    go = "spyglass go example.com/acme/tool . `example.com`/acme/tool/"
    assert {("gosrc/tool.go", go + "T#Get().", True), ("gosrc/tool.go", go + "T#N.", True),
            ("gosrc/tool.go", go + "T#N.", False)} <= seen
