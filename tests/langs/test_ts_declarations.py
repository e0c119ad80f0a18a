"""TypeScript declaration sites (manifest `declaration_sites`): overload signatures are
declarations, listed only when declarations are asked for; import lines, name-keeping
ones too, are references with role `import` (docs/contract.md "Import sites")."""

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


def test_overloads_are_declarations_and_imports_references(tmp_path: Path) -> None:
    parse_fixture(FILES).write(tmp_path)
    uses = {("src/index.ts", 1), ("src/index.ts", 2), ("src/app.ts", 1), ("src/app.ts", 2),
            ("src/app.ts", 3)}
    assert _sites(tmp_path, declaration=False) == uses
    declared = {("src/lib.ts", 1), ("src/lib.ts", 2), ("src/lib.ts", 3)}
    assert _sites(tmp_path, declaration=True) == uses | declared


def test_import_sites_carry_the_import_role(tmp_path: Path) -> None:
    parse_fixture(FILES).write(tmp_path)
    ci = CodeIntel(tmp_path)
    ci.index()
    result = ci.references(path="src/lib.ts", line=1, column=18)
    roles = {(r.path, r.start_line): r.kind for r in result.results}  # type: ignore[attr-defined]
    assert roles == {("src/index.ts", 1): "import", ("src/index.ts", 2): "import",
                     ("src/app.ts", 1): "import", ("src/app.ts", 2): "import",
                     ("src/app.ts", 3): "call"}
