"""TypeScript declaration sites (manifest `declaration_sites`): name-keeping imports and
overload signatures are declarations, listed only when declarations are asked for."""

from __future__ import annotations

from pathlib import Path

from fixture import parse_fixture

from spyglass.query.facade import CodeIntel

FILES = """
#! references
#- src/lib.ts
export function pa$0rse(x: string): number;
export function parse(x: number): number;
export function parse(x: unknown): number { return 0; }
#- src/index.ts
export { parse } from './lib';
export { parse as parseValue } from './lib';
#- src/app.ts
import { parse } from './lib';
import { parse as p } from './lib';
export const n = parse('1') + p(2);
"""


def _sites(root: Path, declaration: bool) -> set[tuple[str, int]]:
    ci = CodeIntel(root)
    ci.index()
    result = ci.references(path="src/lib.ts", line=1, column=18,
                           include_declaration=declaration)
    return {(r.path, r.start_line) for r in result.results}  # type: ignore[attr-defined]


def test_name_keeping_imports_and_overloads_are_declarations(tmp_path: Path) -> None:
    parse_fixture(FILES).write(tmp_path)
    uses = {("src/index.ts", 2), ("src/app.ts", 2), ("src/app.ts", 3)}
    assert _sites(tmp_path, declaration=False) == uses
    declared = {("src/lib.ts", 1), ("src/lib.ts", 2), ("src/lib.ts", 3),
                ("src/index.ts", 1), ("src/app.ts", 1)}
    assert _sites(tmp_path, declaration=True) == uses | declared
