"""The accounting of references and callers (docs/contract.md "Accounting"), one case per
category of issue 25: every occurrence of the target's name is listed certain, listed
flagged with evidence, excluded with certainty, or counted; never silently dropped."""

from __future__ import annotations

from pathlib import Path

from accounting_check import assert_accounted
from fixture import write_files

from spyglass.query.facade import CodeIntel
from spyglass.types import CodeLocation, ToolResult


def _index(root: Path, files: dict[str, str]) -> CodeIntel:
    write_files(root, files)
    ci = CodeIntel(root)
    ci.index()
    return ci


def _rows(result: ToolResult) -> list[CodeLocation]:
    return [r for r in result.results if isinstance(r, CodeLocation)]


BROKEN = {
    "pkg/__init__.py": "",
    "pkg/mod.py": ("def helper():\n    return 1\n\n\ndef after(:\n    return helper()\n\n\n"
                   "class Half:\n    def m(self)\n        return helper()\n"),
    "pkg/ok.py": "from pkg.mod import helper\n\n\ndef fine():\n    return helper()\n",
}


def test_callers_in_broken_code_are_not_certain(tmp_path: Path) -> None:
    ci = _index(tmp_path, BROKEN)
    out = ci.callers(path="pkg/mod.py", line=1, column=5)
    rows = {(r.path, r.start_line): r for r in _rows(out)}
    for line in (6, 11):  # the enclosing definition is not proven: flagged, with why
        r = rows[("pkg/mod.py", line)]
        assert r.uncertain and "failed to parse" in r.evidence, r
    assert not rows[("pkg/ok.py", 5)].uncertain  # a file that parsed stays certain
    assert_accounted(ci, out, "pkg/mod.py", 1, 5, calls=True)


DYNAMIC = {
    "shop/__init__.py": "",
    "shop/query.py": ("class QuerySet:\n    def filter(self, **kw):\n        return self\n\n\n"
                      "class Manager:\n    @classmethod\n    def from_queryset(cls, qs):\n"
                      "        return type('M', (cls, qs), {})\n\n\nclass Proxy:\n"
                      "    def __getattr__(self, name):\n"
                      "        return getattr(QuerySet(), name)\n"),
    "shop/models.py": ("from shop.query import Manager, Proxy, QuerySet\n\n"
                       "ItemManager = Manager.from_queryset(QuerySet)\n\n\nclass Item:\n"
                       "    objects = ItemManager()\n\n\ndef use():\n"
                       "    Item.objects.filter(a=1)\n    Proxy().filter(b=2)\n"),
}


def test_members_made_at_run_time_are_flagged_or_counted(tmp_path: Path) -> None:
    ci = _index(tmp_path, DYNAMIC)
    out = ci.references(path="shop/query.py", line=2, column=9)
    rows = {(r.path, r.start_line): r for r in _rows(out)}
    # a class with `__getattr__` (manifest dynamic_member_hooks): listed, flagged
    r = rows[("shop/models.py", 12)]
    assert r.uncertain and "makes members at run time" in r.evidence, r
    # a manager built `from_queryset`: its type is not known; counted, with a limitation
    assert ("shop/models.py", 11) not in rows
    acct = out.coverage.accounting
    assert acct is not None and not acct.complete
    assert (acct.flagged, acct.cut) == (1, 1) and dict(acct.by_rule)["cut: undeclared member"] == 1
    assert any(n.startswith("1 occurrence(s) of `filter` counted") and "shop/models.py:11"
               in n for n in out.coverage.limitations), out.coverage.limitations
    assert out.coverage.limitations[-1].startswith("not complete:")
    assert_accounted(ci, out, "shop/query.py", 2, 9, calls=False)


def _many_setters(n: int) -> dict[str, str]:
    files = {"go.mod": "module example.com/m\n",
             "flag/flag.go": ("package flag\n\ntype Value interface {\n\tSet(string) error\n}\n\n"
                              "func Parse(v Value, s string) error {\n\treturn v.Set(s)\n}\n")}
    for i in range(n):
        files[f"kinds/k{i}.go"] = (
            f"package kinds\n\ntype K{i} struct{{ v string }}\n\n"
            f"func (k *K{i}) Set(s string) error {{ k.v = s; return nil }}\n\n"
            f"func use{i}(x interface{{ Set(string) error }}) {{ x.Set(\"a\") }}\n")
    return files


def test_a_common_name_is_counted_not_dropped(tmp_path: Path) -> None:
    # 40 methods named Set: the receivers of unknown type are too many to list by name,
    # so they are counted (cut) with a limitation naming the first places; never silent.
    ci = _index(tmp_path, _many_setters(40))
    out = ci.references(path="flag/flag.go", line=4, column=2)
    acct = out.coverage.accounting
    assert acct is not None and acct.cut == 40 and not acct.complete
    assert any(n.startswith("40 occurrence(s) of `Set` counted") for n in
               out.coverage.limitations), out.coverage.limitations
    assert_accounted(ci, out, "flag/flag.go", 4, 2, calls=False)


def test_a_complete_answer_says_so(tmp_path: Path) -> None:
    ci = _index(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "def solo():\n    return 1\n",
                           "pkg/b.py": "from pkg.a import solo\n\nsolo()\n"})
    out = ci.references(path="pkg/a.py", line=1, column=5)
    acct = out.coverage.accounting
    assert acct is not None and acct.complete
    assert (acct.certain, acct.flagged, acct.cut) == (2, 0, 0)
    assert out.coverage.limitations[-1].startswith("complete: each of the 3 occurrence(s)")
    assert_accounted(ci, out, "pkg/a.py", 1, 5, calls=False)


def test_exact_only_counts_what_it_leaves_out(tmp_path: Path) -> None:
    ci = _index(tmp_path, DYNAMIC)
    out = ci.references(path="shop/query.py", line=2, column=9, exact_only=True)
    acct = out.coverage.accounting
    assert acct is not None and not _rows(out)
    assert acct.cut == 2 and acct.flagged == 0 and dict(acct.by_rule)["cut: exact only"] == 1


def test_a_bound_on_sites_read_counts_what_it_cut(tmp_path: Path) -> None:
    # 30 calls and an import, a cap of 5 per answer: 2 × 5 sites are read, the other 21
    # are counted (cut by the site bound) and the answer is not complete.
    from dataclasses import replace

    from spyglass.config import load_config
    calls = "".join(f"f({i})\n" for i in range(30))
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "def f(x):\n    return x\n",
                           "pkg/b.py": "from pkg.a import f\n\n" + calls})
    config = load_config(repo_root=tmp_path)
    config = replace(config, limits=replace(config.limits, max_matches_per_request=5))
    ci = CodeIntel(tmp_path, config=config)
    ci.index()
    out = ci.references(path="pkg/a.py", line=1, column=5)
    acct = out.coverage.accounting
    assert acct is not None and not acct.complete
    assert dict(acct.by_rule)["cut: site bound"] == 21, acct
    assert (acct.certain, acct.occurrences) == (10, 32)  # and the declaration, excluded
    assert any("more than 10 sites" in n for n in out.coverage.limitations), out.coverage


IGNORED = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def helper(x):\n    return x\n\n\ndef run(helper=0):\n    return helper\n",
    "pkg/b.py": "from pkg.a import helper, run\n\nrun(helper=1)\nhelper(2)\n",
}


def test_a_token_the_pack_ignores_is_an_occurrence(tmp_path: Path) -> None:
    # `run(helper=1)`: the keyword's name is an @ignore capture, no reference; it is an
    # occurrence, excluded by the pack's data (a keyword argument names a parameter).
    ci = _index(tmp_path, IGNORED)
    out = ci.references(path="pkg/a.py", line=1, column=5)
    acct = out.coverage.accounting
    assert acct is not None
    assert dict(acct.by_rule).get("excluded: ignored by the pack") == 1, acct
    assert_accounted(ci, out, "pkg/a.py", 1, 5, calls=False)


PACKAGE_SEGMENT = {
    "p/Runner.java": "package p;\n\npublic class Runner {\n    public void exec() {}\n}\n",
    "p/exec/Tool.java": "package p.exec;\n\npublic class Tool {}\n",
    "q/Use.java": ("package q;\n\nimport p.exec.Tool;\n\npublic class Use {\n"
                   "    Tool t;\n}\n"),
}


def test_an_import_path_segment_is_no_member(tmp_path: Path) -> None:
    # `import p.exec.Tool;` names `exec` in a segment of an import's path: a package or a
    # class, never the method `exec` (manifest `tokens.not_a_member`): excluded, and the
    # answer is complete.
    ci = _index(tmp_path, PACKAGE_SEGMENT)
    out = ci.references(path="p/Runner.java", line=4, column=17)
    acct = out.coverage.accounting
    assert acct is not None and acct.complete, acct
    # the import's segment and the package declaration's
    assert dict(acct.by_rule).get("excluded: ignored by the pack") == 2, acct
    assert "cut: token not read" not in dict(acct.by_rule), acct
    assert_accounted(ci, out, "p/Runner.java", 4, 17, calls=False)


LOWER_CLASS = {
    "p/util.java": "package p;\n\npublic class util {\n}\n",
    "q/Use.java": ("package q;\n\nimport r.util.Tool;\n\npublic class Use {\n"
                   "    Tool t;\n}\n"),
}


def test_a_token_the_pack_does_not_read_is_counted(tmp_path: Path) -> None:
    # `import r.util.Tool;` names `util` in a segment the pack ignores; the target is a
    # class (a segment may name a class): never silent; counted, the answer not complete.
    ci = _index(tmp_path, LOWER_CLASS)
    out = ci.references(path="p/util.java", line=3, column=14)
    acct = out.coverage.accounting
    assert acct is not None and not acct.complete, acct
    assert dict(acct.by_rule).get("cut: token not read") == 1, acct
    assert any("q/Use.java:3" in n and "does not read" in n
               for n in out.coverage.limitations), out.coverage.limitations
    assert_accounted(ci, out, "p/util.java", 3, 14, calls=False)


NESTED_IMPORT = {
    "p/Outer.java": "package p;\n\npublic class Outer {\n    public static class Inner {}\n}\n",
    "q/Use.java": ("package q;\n\nimport p.Outer.Inner;\nimport static p.Outer.X;\n\n"
                   "public class Use {\n    Inner i;\n}\n"),
}


def test_an_import_path_names_its_classes_from_any_package(tmp_path: Path) -> None:
    # `import p.Outer.Inner;` and `import static p.Outer.X;` from another package name
    # the class Outer: listed certain (it was excluded as "a member of a value")
    ci = _index(tmp_path, NESTED_IMPORT)
    out = ci.references(path="p/Outer.java", line=3, column=14)
    rows = {(r.path, r.start_line) for r in _rows(out)}
    assert rows == {("q/Use.java", 3), ("q/Use.java", 4)}, out
    acct = out.coverage.accounting
    assert acct is not None and acct.complete, acct
    assert_accounted(ci, out, "p/Outer.java", 3, 14, calls=False)


PROTOTYPES = {
    "shapes.h": "int area(int w, int h);\n#define twice(x) ((x) * 2)\nint twice(int x);\n",
    "shapes.c": ('#include "shapes.h"\n\nint area(int w, int h)\n{\n\treturn w * h;\n}\n\n'
                 "int use(void)\n{\n\treturn area(2, 3);\n}\n"),
}


def test_a_prototype_is_a_declaration_not_a_use(tmp_path: Path) -> None:
    # `int area(int w, int h);` declares the function: excluded with certainty (a
    # declaration), so the answer is complete; a macro's "prototype" may be an invocation
    # (`int twice(int x);` after `#define twice(x)`): counted, not excluded.
    ci = _index(tmp_path, PROTOTYPES)
    out = ci.references(path="shapes.c", line=3, column=5)
    acct = out.coverage.accounting
    assert acct is not None
    assert dict(acct.by_rule).get("excluded: declaration", 0) >= 2, acct
    assert "cut: token not read" not in dict(acct.by_rule), acct
    assert acct.complete, acct
    assert [(r.path, r.start_line) for r in _rows(out)] == [("shapes.c", 10)]
    assert_accounted(ci, out, "shapes.c", 3, 5, calls=False)
    macro = ci.references(path="shapes.h", line=2, column=9).coverage.accounting
    assert macro is not None and dict(macro.by_rule).get("cut: token not read", 0) >= 1, macro
