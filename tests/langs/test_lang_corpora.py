"""Real code: every Go/TS/JS file of cobra, @trpc/server and rxjs extracts and resolves sanely."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from corpora import params, reads
from fixture import commit_all

from spyglass.index.worker import process, resolver_for
from spyglass.query.facade import CodeIntel
from spyglass.syntax.langpack import pack_for_path

Rows = dict[str, tuple[object, ...]]



def indexed_copy(tmp_path_factory: pytest.TempPathFactory, corpus: Callable[[str], Path],
                 name: str) -> CodeIntel:
    """A fetched corpus copied as a git repository of its own, indexed once."""
    root = tmp_path_factory.mktemp(name) / name
    shutil.copytree(corpus(name), root)
    commit_all(root)
    ci = CodeIntel(root)
    ci.index()
    return ci


def sites(result: object) -> set[tuple[str, int]]:
    """(path, line) of an answer's results."""
    return {(r.path, r.start_line) for r in result.results}  # type: ignore[attr-defined]


def call_sites(result: object) -> set[tuple[str, int, str]]:
    """(path, line, enclosing symbol) of a callers answer's results."""
    return {(r.path, r.start_line, r.symbol) for r in result.results}  # type: ignore[attr-defined]

def run(root: Path, suffixes: tuple[str, ...]) -> Rows:
    """Process every matching file under root as the builder would; return rows by path."""
    paths = sorted(str(p.relative_to(root)) for p in root.rglob("*")
                   if p.is_file() and p.name.endswith(suffixes) and "node_modules" not in p.parts)
    assert paths, root

    def read(path: str) -> bytes | None:
        target = root / path
        return target.read_bytes() if target.is_file() else None

    by_lang: dict[str, list[str]] = {}
    for path in paths:
        pack = pack_for_path(path)
        assert pack is not None, path
        by_lang.setdefault(pack.name, []).append(path)
    out: Rows = {}
    for language, group in by_lang.items():
        module = resolver_for(pack_for_path(group[0]).resolver)  # type: ignore[union-attr]
        assert module is not None
        contexts = module.module_keys(group, read)
        for path in group:
            out[path] = process((path, (root / path).read_bytes(), language, contexts[path]))
    return out


def defs_by_full(rows: Rows) -> dict[str, str]:
    return {str(d[3]): str(d[4]) for r in rows.values() for d in r[1]}  # type: ignore[attr-defined]


def targets(rows: Rows) -> Counter[str]:
    return Counter(str(x[8]) for r in rows.values() for x in r[2] if x[8])  # type: ignore[attr-defined]


@reads("cobra")
def test_cobra(corpus: Callable[[str], Path]) -> None:
    rows = run(corpus("cobra"), (".go",))
    assert not [p for p, r in rows.items() if r[5]], "cobra parses without diagnostics"
    full = defs_by_full(rows)
    assert full["github.com/spf13/cobra#Command"] == "struct"
    assert full["github.com/spf13/cobra#Command.Flags"] == "method"
    assert full["github.com/spf13/cobra#Command.Use"] == "field"
    assert full["github.com/spf13/cobra/doc#GenManTree"] == "func"
    assert full["github.com/spf13/cobra#TestSingleCommand"] == "test"
    used = targets(rows)
    assert used["github.com/spf13/cobra#Command.Flags"] > 10  # c.Flags() in methods
    assert used["github.com/spf13/cobra#Command"] > 100
    assert used["github.com/spf13/pflag#FlagSet"] > 0  # imported package, external
    # Of the targets inside cobra's own packages, most bind to a definition (the rest are
    # members reached through values: fields of structs, methods of embedded types).
    own = {t: n for t, n in used.items() if t.startswith("github.com/spf13/cobra")}
    bound = sum(n for t, n in own.items() if t in full)
    assert bound / sum(own.values()) > 0.7


@reads("trpc")
def test_trpc_server(corpus: Callable[[str], Path]) -> None:
    rows = run(corpus("trpc"), (".ts", ".tsx", ".js", ".mjs", ".cjs"))
    full = defs_by_full(rows)
    assert full["src/unstable-core-do-not-import/error/TRPCError#TRPCError"] == "class"
    aliases = {a for r in rows.values() for a in r[4]}  # type: ignore[attr-defined]
    assert ("src/@trpc/server#TRPCError",
            "src/unstable-core-do-not-import#TRPCError") in aliases
    used = targets(rows)
    assert used["src/unstable-core-do-not-import/error/TRPCError#TRPCError"] > 5


@reads("rxjs")
def test_rxjs(corpus: Callable[[str], Path]) -> None:
    root = corpus("rxjs")
    rows = run(root, (".ts", ".js"))
    broken = [p for p, r in rows.items() if r[5]]
    assert all(p.startswith("dist/types/") for p in broken), broken  # grammar gaps in .d.ts only
    full = defs_by_full(rows)
    assert full["src/internal/Observable#Observable.subscribe"] == "method"
    assert full["src/internal/Subject#Subject"] == "class"
    # `from 'rxjs'` inside the package resolves through tsconfig.json paths to src/index.
    module = resolver_for("javascript")
    assert module is not None
    ctx = module.module_keys(
        ["src/internal/x.ts"], lambda p: (root / p).read_bytes() if (root / p).is_file() else None)
    assert dict(ctx["src/internal/x.ts"].settings)["paths"].startswith("{")


@pytest.mark.parametrize("name", params(["cobra", "trpc"]))
def test_every_file_has_facts(corpus: Callable[[str], Path], name: str) -> None:
    suffixes = (".go",) if name == "cobra" else (".ts", ".js", ".mjs", ".cjs")
    rows = run(corpus(name), suffixes)
    empty = [p for p, r in rows.items() if not r[1] and not r[2]]
    assert len(empty) <= len(rows) // 20, empty
