"""Change impact on TypeScript: imports, test files by reference and convention, vitest/jest."""

from __future__ import annotations

from pathlib import Path

import pytest
from impact_fixture import check

PROJECT = '''
#- package.json
{"name": "calc", "devDependencies": {"vitest": "^1.6.0"}}
#- src/math.ts
export function add(a: number, b: number): number {
  return a + b;$0
}
#- src/calc.ts
import { add } from "./math";

export function total(xs: number[]): number {
  return xs.reduce((a, b) => add(a, b), 0);
}
#- src/calc.test.ts
import { it, expect } from "vitest";
import { total } from "./calc";

it("totals", () => {
  expect(total([1, 2])).toBe(3);
});
#- src/__tests__/math.test.ts
import { it, expect } from "vitest";

it("is here", () => {
  expect(1).toBe(1);
});
'''

CASES = {
    "chain into a test file": PROJECT + '''
#? blast-radius $0
0 math.add
1 calc.total | calc.total calls math.add at src/calc.ts:4
2 src/calc.test | calls calc.total at src/calc.test.ts:5
''',
    "vitest from package.json; __tests__ by convention": PROJECT + '''
#? tests $0
src/__tests__/math.test.ts convention ? | naming convention: src/math.ts ↔ src/__tests__/math.test.ts
src/calc.test.ts reference
$ npx vitest run src/__tests__/math.test.ts src/calc.test.ts
''',
    "jest from its config file in a sub-project": '''
#- web/package.json
{"name": "web", "scripts": {"test": "jest"}}
#- web/jest.config.js
module.exports = {};
#- web/lib/fmt.ts
export function fmt(x: number): string {
  return String(x);
}
#- web/lib/fmt.spec.ts
import { fmt } from "./fmt";

test("fmt", () => {
  expect(fmt(1)).toBe("1");
});
#? tests web/lib/fmt.ts
web/lib/fmt.spec.ts convention ? | (also by reference
$ cd web && npx jest lib/fmt.spec.ts
''',
}


@pytest.mark.parametrize("name", list(CASES))
def test_typescript_impact(name: str, tmp_path: Path) -> None:
    check(CASES[name], tmp_path / "repo")
