"""Go, JavaScript, TypeScript and TSX packs: facts and resolvers in detail (end-to-end
fixtures live with the others under tests/fixtures/<language>/)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from spyglass.index.worker import process, resolver_for
from spyglass.syntax.extract import extract
from spyglass.syntax.langpack import LANGS_DIR, all_packs, pack_for_path
from spyglass.types import FileContext, FileFacts


def keys(resolver: str, paths: list[str], read: Callable[[str], bytes | None]
         ) -> dict[str, FileContext]:
    module = resolver_for(resolver)
    assert module is not None
    out: dict[str, FileContext] = module.module_keys(paths, read)
    return out

# -- packs -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("path", "language"), [
    ("a/b.go", "go"), ("x.js", "javascript"), ("x.mjs", "javascript"), ("x.cjs", "javascript"),
    ("x.jsx", "javascript"), ("x.ts", "typescript"), ("x.d.ts", "typescript"),
    ("x.mts", "typescript"), ("x.tsx", "tsx"),
])
def test_extensions(path: str, language: str) -> None:
    pack = pack_for_path(path)
    assert pack is not None and pack.name == language


def test_tsx_queries_extend_typescript() -> None:
    tsx, ts = all_packs()["tsx"], all_packs()["typescript"]
    assert tsx.manifest["extends"] == "typescript"
    assert tsx.manifest["builtins"] == ts.manifest["builtins"]
    for stem in ("definitions", "imports", "scopes"):
        assert not (LANGS_DIR / "tsx" / f"{stem}.scm").exists()
    names = {tsx.queries["references"].capture_name(i)
             for i in range(tsx.queries["references"].capture_count)}  # type: ignore[call-overload]
    assert "reference.call" in names


@pytest.mark.parametrize(("path", "expected"), [
    ("pkg/cmd_test.go", True), ("pkg/cmd.go", False), ("src/a.test.ts", True),
    ("src/__tests__/helpers.ts", True), ("src/a.spec.tsx", True), ("lib/a.test.js", True),
    ("src/a.ts", False),
])
def test_test_files(path: str, expected: bool) -> None:
    pack = pack_for_path(path)
    assert pack is not None and pack.is_test_file(path) is expected


def facts(language: str, text: str) -> FileFacts:
    return extract(all_packs()[language], text.encode())


def defs(language: str, text: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {d.qualname: (d.kind, d.bases) for d in facts(language, text).definitions}


# -- Go --------------------------------------------------------------------------------------

GO = """package shapes

import (
\t"io"
\tyaml "gopkg.in/yaml.v3"
\t. "strings"
)

type Circle struct {
\tBase
\t*Named
\tio.Reader
\tR, D float64
}

type Shape interface {
\tio.Writer
\tArea() float64
}

type Alias = yaml.Node

const A, B = 1, 2

func (c *Circle) Area() float64 { return c.R * c.helper() }

func (l *List[T]) Len() int { var n T; _ = n; return 0 }
"""


def test_go_definitions() -> None:
    got = defs("go", GO)
    assert got["Circle"] == ("struct", ("Base", "Named", "io.Reader"))
    assert got["Circle.R"] == ("field", ("float64",)) and got["Circle.D"][0] == "field"
    assert got["Shape"] == ("interface", ("io.Writer",))
    assert got["Shape.Area"][0] == "method"
    assert got["A"] == ("const", ()) and got["B"] == ("const", ())
    assert got["Circle.Area"][0] == "method" and got["List.Len"][0] == "method"
    assert facts("go", GO).package == "shapes"


def test_go_resolution() -> None:
    ctx = FileContext("shapes/shapes.go", "example.com/m/shapes")
    rows = process(("shapes/shapes.go", GO.encode(), "go", ctx))
    full = {d[2]: d[3] for d in rows[1]}
    assert full["Circle.Area"] == "example.com/m/shapes#Circle.Area"
    bases = {b for _, b in rows[6]}
    assert {"example.com/m/shapes#Base", "io#Reader", "io#Writer"} <= bases
    assert ("example.com/m/shapes#Alias", "gopkg.in/yaml.v3#Node") in rows[4]
    targets = {(r[0], r[8]) for r in rows[2]}
    assert ("helper", "example.com/m/shapes#Circle.helper") in targets  # c.helper(), c: *Circle
    assert ("R", "example.com/m/shapes#Circle.R") in targets
    assert not any(r[0] in ("c", "n", "T") and not r[6] for r in rows[2])  # locals dropped


def test_go_module_keys() -> None:
    files = {
        "go.mod": b"module example.com/root\n\ngo 1.21\n",
        "tools/go.mod": b"// nested module\nmodule \"example.com/tools\"\n",
    }
    got = keys("go", ["main.go", "pkg/a/a.go", "tools/gen/gen.go", "tools/t.go"], files.get)
    assert {p: c.module for p, c in got.items()} == {
        "main.go": "example.com/root", "pkg/a/a.go": "example.com/root/pkg/a",
        "tools/gen/gen.go": "example.com/tools/gen", "tools/t.go": "example.com/tools"}
    gopath = keys("go", ["gopath/src/github.com/x/y/y.go", "z/z.go"], lambda p: None)
    assert gopath["gopath/src/github.com/x/y/y.go"].module == "github.com/x/y"
    assert gopath["z/z.go"].module == "z"


def test_go_external_test_package() -> None:
    text = 'package shapes_test\n\nimport "example.com/m/shapes"\n\n' \
           'func TestX() { shapes.New(); helper() }\n'
    ctx = FileContext("shapes/x_test.go", "example.com/m/shapes")
    rows = process(("shapes/x_test.go", text.encode(), "go", ctx))
    targets = {r[0]: r[8] for r in rows[2]}
    assert targets["New"] == "example.com/m/shapes#New"
    assert targets["helper"] == "example.com/m/shapes_test#helper"
    assert rows[1][0][3] == "example.com/m/shapes_test#TestX" and rows[1][0][4] == "test"


# -- JavaScript / TypeScript -----------------------------------------------------------------

def resolve_js(path: str, text: str, language: str = "typescript",
               files: dict[str, bytes] | None = None) -> tuple[dict[str, str | None],
                                                               list[tuple[object, ...]]]:
    ctx = keys("javascript", [path], (files or {}).get)[path]
    rows = process((path, text.encode(), language, ctx))
    return ({f"{r[6]}.{r[0]}" if r[6] else str(r[0]): None if r[8] is None else str(r[8])
             for r in rows[2]}, rows[4])


def test_js_module_keys_and_tsconfig() -> None:
    tsconfig = b"""{
      // paths relative to baseUrl
      "extends": "./tsconfig.base.json",
      "compilerOptions": {"baseUrl": "src", "paths": {"@lib/*": ["lib/*",], "cfg": ["config/index.ts"]},},
      /* trailing commas and comments are fine */
    }"""
    files = {"tsconfig.json": tsconfig, "tsconfig.base.json": b'{"compilerOptions": {}}'}
    got = keys("javascript", ["src/index.ts", "src/a/index.tsx", "src/b.d.ts", "index.js",
                               "src/c.mjs"], files.get)
    assert {p: c.module for p, c in got.items()} == {
        "src/index.ts": "src", "src/a/index.tsx": "src/a", "src/b.d.ts": "src/b", "index.js": "",
        "src/c.mjs": "src/c"}
    settings = dict(got["src/index.ts"].settings)
    assert settings["baseUrl"] == "src" and '"@lib/*":["src/lib/*"]' in settings["paths"]
    text = ("import { x } from '@lib/util';\nimport cfg from 'cfg';\nimport { y } from './a';\n"
            "import { z } from 'lodash';\nimport { w } from 'feature/flags';\nx(); cfg(); y(); z(); w();\n")
    targets, _ = resolve_js("src/main.ts", text, files=files)
    assert targets["x"] == "src/lib/util#x"
    assert targets["cfg"] == "src/config#default"
    assert targets["y"] == "src/a#y"
    assert targets["z"] == "lodash#z"
    assert targets["w"] == "src/feature/flags#w"  # baseUrl-relative (inferred)


def test_js_reexport_aliases() -> None:
    text = """import { helper } from './helper';
export { a as b, c } from './m.js';
export * from './all';
export * as ns from './ns';
export { helper as renamed, local };
const local = 1;
export default local;
"""
    _, aliases = resolve_js("src/index.ts", text)
    assert set(aliases) == {
        ("src#b", "src/m#a"), ("src#c", "src/m#c"), ("src#*", "src/all#*"), ("src#ns", "src/ns"),
        ("src#renamed", "src/helper#helper"), ("src#default", "src#local")}
    _, aliases = resolve_js("src/k.ts", "export default class Klass {}\n")
    assert aliases == [("src/k#default", "src/k#Klass")]
    got = defs("typescript", "export default function () {}\n")
    assert got == {"default": ("func", ())}


def test_ts_classes_and_members() -> None:
    text = """export class Service extends Base implements IA, ns.IB, IC<number> {
  private cache = new Map<string, number>();
  constructor(private readonly db: Db, plain: number) { super(); }
  get(key: string): number { return this.db.read(key) + this.lookup(key); }
  lookup<T>(key: T): number { return helper(key); }
}
function helper<T>(x: T): number { return 1; }
"""
    got = defs("typescript", text)
    assert got["Service"] == ("class", ("Base", "IA", "ns.IB", "IC"))
    assert got["Service.db"][0] == "field" and "Service.plain" not in got
    assert got["Service.cache"][0] == "field" and got["Service.get"][0] == "method"
    targets, _ = resolve_js("src/service.ts", text)
    assert targets["this.lookup"] == "src/service#Service.lookup"
    assert targets["this.db"] == "src/service#Service.db"
    assert targets["helper"] == "src/service#helper"
    assert "T" not in targets and "key" not in targets  # type parameters and params are local


def test_js_commonjs_and_namespace() -> None:
    text = """const path = require('path');
const util = require('./util');
const { a, b: c } = require('./lib');
import * as ns from './ns';
exports.run = function () { util.go(); a(); c(); ns.f(); exports.run(); };
"""
    targets, _ = resolve_js("src/main.js", text, "javascript")
    assert targets["util.go"] == "src/util#go"
    assert targets["a"] == "src/lib#a" and targets["c"] == "src/lib#b"
    assert targets["ns.f"] == "src/ns#f"
    assert targets["exports.run"] == "src/main#run"
    assert defs("javascript", text)["run"][0] == "func"


def test_broken_code_gives_partial_facts() -> None:
    for language, text in (("go", "package p\nfunc A() {\nfunc B( {\n"),
                           ("typescript", "export function a() {}\nclass B { m( {}\n"),
                           ("javascript", "function a() {}\nconst = ;\n"),
                           ("tsx", "export function ok() {}\nexport const A = () => <div><span></div>;\n")):
        got = facts(language, text)
        assert got.diagnostics, language
        assert got.definitions, language


def test_go_member_through_typed_field() -> None:
    text = """package p

import "example.com/m/metrics"

type wrapper struct{ inner Collector; reg *metrics.Registry }

var Default = &wrapper{}

func (w *wrapper) Describe() { w.inner.Describe(); w.reg.Register() }

func use() { Default.Describe(); metrics.DefaultRegistry.Register() }
"""
    rows = process(("p/p.go", text.encode(), "go", FileContext("p/p.go", "example.com/m/p")))
    aliases = set(rows[4])
    assert ("example.com/m/p#wrapper.inner.*", "example.com/m/p#Collector.*") in aliases
    assert ("example.com/m/p#wrapper.reg.*", "example.com/m/metrics#Registry.*") in aliases
    assert ("example.com/m/p#Default.*", "example.com/m/p#wrapper.*") in aliases
    assert not rows[6], "a field's type is not a base"
    targets = {(r[6], r[0]): (r[8], r[9]) for r in rows[2]}
    assert targets[("w.inner", "Describe")] == ("example.com/m/p#wrapper.inner.Describe",
                                                "inferred")
    assert targets[("Default", "Describe")] == ("example.com/m/p#Default.Describe", "inferred")
    assert targets[("metrics.DefaultRegistry", "Register")] == (
        "example.com/m/metrics#DefaultRegistry.Register", "inferred")


def test_ts_member_through_typed_field() -> None:
    text = """import { Db } from './db';
export const registry: Registry = create();
export class Service {
  private cache = new Map<string, number>();
  constructor(private readonly db: Db) {}
  run() { this.db.query(); this.cache.get('x'); registry.add(); }
}
"""
    targets, aliases = resolve_js("src/service.ts", text)
    assert ("src/service#Service.db.*", "src/db#Db.*") in aliases
    assert ("src/service#registry.*", "src/service#Registry.*") in aliases
    assert not any(a.startswith("src/service#Service.cache") for a, _ in aliases)  # Map: builtin
    assert targets["this.db.query"] == "src/service#Service.db.query"
    assert targets["registry.add"] == "src/service#registry.add"


def test_go_type_assertions_in_call_chains_are_manifest_data() -> None:
    src = "package p\nfunc f(x any) { x.(*T).M(); y.(T).N.O() }\n"
    quals = {r.name: r.qualifier for r in facts("go", src).references if r.name in "MNO"}
    assert quals == {"M": "T", "N": "T", "O": "T.N"}  # the chain starts afresh at T
    go = all_packs()["go"]
    off = replace(go, manifest={**go.manifest, "call_chains_type_assertions": False})
    quals = {r.name: r.qualifier for r in extract(off, src.encode()).references
             if r.name in "MNO"}
    assert quals == {"M": "?", "N": "?", "O": "?"}  # without it: a receiver of unknown shape
