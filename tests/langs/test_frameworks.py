"""Test frameworks are pack data: detection from configuration files, commands and
shared fixture files come from the manifests' `frameworks` tables (docs/languages.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from spyglass.query.facade import CodeIntel
from spyglass.query.frameworks import (
    Framework,
    Frameworks,
    all_fixture_files,
    fixture_files,
)
from spyglass.syntax.langpack import all_packs


def _frameworks(root: Path) -> Frameworks:
    ci = CodeIntel(root)
    ci.index()
    return Frameworks(root, ci.view())


def test_detection_follows_the_declared_rules(make_repo: Callable[..., Path]) -> None:
    root = make_repo({
        "py/pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-q'\n",
        "py/tests/test_a.py": "def test_a(): pass\n",
        "plain/test_b.py": "def test_b(): pass\n",
        "svc/go.mod": "module example.com/svc\n",
        "svc/pkg/a_test.go": "package pkg\nfunc TestA(t *T) {}\nfunc BenchmarkA(b *B) {}\n",
        "web/package.json": '{"devDependencies": {"@vitest/ui": "1"}}',
        "web/src/a.test.ts": "it('works', () => {});\n",
        "old/package.json": '{"scripts": {"test": "node --test"}}',
        "old/a.test.js": "",
        "bare/package.json": "{}",
        "bare/a.test.js": "",
    })
    fw = _frameworks(root)
    py, go, ts = all_packs()["python"], all_packs()["go"], all_packs()["typescript"]
    js = all_packs()["javascript"]
    assert fw.for_pack(py, "py/tests/test_a.py") == Framework(
        "pytest", "", "py/pyproject.toml", "[tool.pytest.ini_options] in pyproject.toml")
    assert fw.for_pack(py, "plain/test_b.py").evidence.startswith("no pytest configuration")
    assert fw.for_pack(go, "svc/pkg/a_test.go") == Framework(
        "go", "svc", "svc/go.mod", "go.mod declares module example.com/svc")
    assert fw.for_pack(ts, "web/src/a.test.ts") == Framework(
        "vitest", "web", "web/package.json", "vitest in web/package.json")
    assert fw.for_pack(js, "old/a.test.js").name == "node"
    assert fw.for_pack(js, "bare/a.test.js") == Framework(
        "jest", "bare", "bare/package.json", "no test runner named in bare/package.json")


def test_commands_follow_the_declared_templates(make_repo: Callable[..., Path]) -> None:
    root = make_repo({
        "svc/go.mod": "module example.com/svc\n",
        "svc/pkg/a_test.go": "package pkg\nfunc TestA(t *T) {}\nfunc BenchmarkA(b *B) {}\n",
    })
    fw = _frameworks(root)
    pytest_fw = Framework("pytest", "", "", "")
    assert fw.command(pytest_fw, [("tests/test_a.py", "TestK.test_m"), ("tests/test_b.py", "")]
                      ) == "pytest tests/test_a.py::TestK::test_m tests/test_b.py"
    go_fw = Framework("go", "svc", "svc/go.mod", "")
    assert fw.command(go_fw, [("svc/pkg/a_test.go", "")]) == \
        "cd svc && go test ./pkg -run '^TestA$' -bench '^BenchmarkA$'"
    assert fw.command(go_fw, [("svc/pkg/a_test.go", "TestA")]) == \
        "cd svc && go test ./pkg -run '^TestA$'"
    vitest = Framework("vitest", "web", "web/package.json", "")
    assert fw.command(vitest, [("web/src/a.test.ts", "works")]) == \
        "cd web && npx vitest run src/a.test.ts -t works"


def test_commands_stay_runnable_one_per_package(make_repo: Callable[..., Path]) -> None:
    """Never a regular expression of hundreds of names: past MAX_SELECTION characters a
    package (Go) or the files, then the folders (pytest), run whole, and the note says so."""
    many = "".join(f"func TestBehaviourNumber{i}(t *T) {{}}\n" for i in range(80))
    root = make_repo({
        "svc/go.mod": "module example.com/svc\n",
        "svc/pkg/a_test.go": "package pkg\n" + many,
        "svc/other/b_test.go": "package other\nfunc TestB(t *T) {}\n",
    })
    fw = _frameworks(root)
    go_fw = Framework("go", "svc", "svc/go.mod", "")
    items = [(go_fw, ("svc/pkg/a_test.go", f"TestBehaviourNumber{i}")) for i in range(80)]
    items.insert(1, (go_fw, ("svc/other/b_test.go", "TestB")))
    commands = fw.group(items)
    assert [(c.command, c.targets, c.note) for c in commands] == [
        ("cd svc && go test ./pkg", 80, "80 tests selected in ./pkg: the whole package runs"),
        ("cd svc && go test ./other -run '^TestB$'", 1, "")]
    assert fw.command(go_fw, [("svc/pkg/a_test.go", "")]) == "cd svc && go test ./pkg"
    pytest_fw = Framework("pytest", "", "", "")
    ids = [(f"tests/unit/test_{i % 4}.py", f"TestCase.test_behaviour_{i}") for i in range(40)]
    (one,) = fw.group([(pytest_fw, item) for item in ids])
    assert one.command == ("pytest tests/unit/test_0.py tests/unit/test_1.py "
                           "tests/unit/test_2.py tests/unit/test_3.py")
    assert one.note == "40 tests selected in 4 file(s): the whole files run"
    files = [(f"tests/area{i % 3}/test_module_with_a_long_name_{i}.py", "") for i in range(60)]
    (wide,) = fw.group([(pytest_fw, item) for item in files])
    assert wide.command == "pytest tests/area0 tests/area1 tests/area2"
    assert wide.note == "60 tests selected in 60 files: their 3 folder(s) run whole"
    assert all(len(c.command) < 200 for c in (*commands, one, wide))


def test_fixture_files_are_declared_by_the_framework() -> None:
    assert fixture_files("pytest") == {"conftest.py"}
    assert fixture_files("go") == frozenset()
    assert all_fixture_files() == {"conftest.py"}


def test_a_new_pack_brings_its_framework(packs: None, make_repo: Callable[..., Path]) -> None:
    root = make_repo({"Cargo.toml": '[package]\nname = "shapes"\n',
                      "src/shapes_test.rs": "fn test_a() {}\n"})
    fw = _frameworks(root)
    found = fw.for_pack(all_packs()["rust-throwaway"], "src/shapes_test.rs")
    assert found == Framework("cargo-throwaway", "", "Cargo.toml", "Cargo.toml of crate shapes")
    assert fw.command(found, [("src/shapes_test.rs", "")]) == "cargo test"
    java = fw.for_pack(all_packs()["java-throwaway"], "src/ATest.java")
    assert java.name == "java-throwaway" and java.config == ""  # it declares none
