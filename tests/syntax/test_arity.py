"""Argument and parameter counts (syntax/arity.py) as the JVM, .NET and C++ packs capture them,
and the store they live in: a store of the schema before the counts is rebuilt, not read."""

from __future__ import annotations

from pathlib import Path

import pytest

from spyglass.errors import IndexUnavailable
from spyglass.index import store
from spyglass.syntax.extract import extract
from spyglass.syntax.langpack import all_packs
from spyglass.types import FileFacts


def _facts(language: str, code: str) -> FileFacts:
    return extract(all_packs()[language], code.encode())


def _calls(facts: FileFacts) -> list[tuple[str, int]]:
    counts = facts.call_args or (-1,) * len(facts.references)
    assert len(counts) == len(facts.references)  # one count per reference
    return [(r.name, n) for r, n in zip(facts.references, counts) if r.role == "call"]


def _params(facts: FileFacts) -> dict[str, tuple[int, int]]:
    return {d.qualname: (d.params_min, d.params_max) for d in facts.definitions
            if d.kind in ("func", "method")}


JAVA = """package p;
class A {
    void f(int a, String... rest) {
        g(1, /* two */ 2);
        this.h();
        g((x, y) -> x + y, java.util.Map.<String, Integer>of("k", 1));
        this.<String>h(
            a,
            "b");
        java.util.function.Consumer<String> c = A::h;
    }
    void g(int a, int b) { }
    void h() { }
}
"""


def test_java_counts_items_not_commas_inside_them() -> None:
    facts = _facts("java", JAVA)
    assert _params(facts) == {"A.f": (1, -1), "A.g": (2, 2), "A.h": (0, 0)}
    calls = _calls(facts)
    assert calls[:3] == [("g", 2), ("h", 0), ("g", 2)]  # a comment is no argument
    assert ("of", 2) in calls  # a generic call's type arguments come before its name
    assert ("h", 2) in calls  # arguments over several lines
    assert calls[-1] == ("h", -1)  # a method reference passes no counted arguments


def test_kotlin_defaults_varargs_and_trailing_lambdas() -> None:
    facts = _facts("kotlin", """package p
class A {
    fun f(a: Int, b: Map<String, Int> = mapOf(), vararg c: String) { }
    fun g() {
        f(1) { 2 }
        f(1, mapOf(), "x", "y")
        other.z { 3 }
    }
}
""")
    assert _params(facts)["A.f"] == (1, -1)
    assert _calls(facts) == [("f", 2), ("f", 4), ("z", 1)]


def test_scala_counts_every_parameter_list() -> None:
    facts = _facts("scala", """package p
class A {
  def f(a: Int, b: Int = 2)(implicit c: C): Int = a
  def g(xs: Int*): Int = 0
  def h: Int = 1
  def k(): Unit = { f(1)(c); f(1, 2); g(); run(1) { 2 } }
}
""")
    params = _params(facts)
    assert params["A.f"] == (1, 3)  # a default value and an implicit list may be left out
    assert params["A.g"] == (0, -1)
    assert params["A.h"] == (-1, -1)  # no parameter list: never told apart by counts
    assert [c for c in _calls(facts) if c[0] in ("f", "g", "run")] == [
        ("f", 2), ("f", 2), ("g", 0), ("run", 2)]


def test_csharp_params_defaults_and_extension_receivers() -> None:
    facts = _facts("csharp", """namespace N {
static class A {
    static void F(this string s, int a, int b = 2, params string[] rest) { }
    static void G() { F("x", 1); "y".F(1, 2, "z"); H<int>(3); }
}
}
""")
    assert _params(facts)["A.F"] == (1, -1)
    assert _calls(facts)[:3] == [("F", 2), ("F", 3), ("H", 1)]


def test_cpp_void_defaults_c_varargs_and_parameter_packs() -> None:
    facts = _facts("cpp", """namespace n {
int none(void) { return 0; }
int logf(const char* fmt, ...) { return 0; }
template <typename... Ts> int pack(Ts&&... xs) { return 0; }
class S {
 public:
  void put(int a, int b = 2, int c = 3);
};
void S::put(int a, int b, int c) { none(); logf("x", 1); pack<int>(1, 2); this->put(a); }
}
""")
    params = _params(facts)
    assert params["n.none"] == (0, 0)  # `(void)` takes no argument
    assert params["n.logf"] == (1, -1)  # C's `, ...` is no parameter but any number
    assert params["n.pack"] == (0, -1)  # a parameter pack
    assert params["n.S.put"] == (1, 3)  # declared in the class, with its defaults
    assert params["S.put"] == (-1, -1)  # out of line: its defaults are the declaration's
    assert _calls(facts) == [("none", 0), ("logf", 2), ("pack", 2), ("put", 1)]


def test_cpp_counts_constructor_calls() -> None:
    facts = _facts("cpp", """class P { public: P(int a) {} P(int a, int b) {} };
P* mk() { P q = P(1); return new P(1, 2); }
""")
    assert {(d.params_min, d.params_max) for d in facts.definitions
            if d.qualname == "P.P"} == {(1, 1), (2, 2)}
    assert _calls(facts) == [("P", 1), ("P", 2)]  # `P(1)` and `new P(1, 2)`


def test_c_counts_nothing() -> None:
    facts = _facts("c", "int f(int a, ...) { return g(1, 2); }\n")
    assert {(d.params_min, d.params_max) for d in facts.definitions} == {(-1, -1)}
    assert facts.call_args == ()  # the C pack captures no counts: C is unchanged


def test_a_pack_without_counts_counts_nothing() -> None:
    facts = _facts("python", "def f(a, b=1):\n    return g(1, 2)\n")
    assert {(d.params_min, d.params_max) for d in facts.definitions} == {(-1, -1)}
    assert facts.call_args == ()  # nothing counted, nothing stored per reference


def test_a_store_of_the_previous_schema_is_rebuilt(tmp_path: Path) -> None:
    conn = store.connect(tmp_path, create=True)
    conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema'")
    conn.close()
    with pytest.raises(IndexUnavailable, match="another spyglass version"):
        store.connect(tmp_path)  # a reader never reads it
    conn = store.connect(tmp_path, create=True)  # the writer rebuilds it
    try:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == (
            store.SCHEMA_VERSION,)
        cols = {r[1] for r in conn.execute("PRAGMA table_info(refs)")}
        assert "args" in cols
        assert {"params_min", "params_max"} <= {
            r[1] for r in conn.execute("PRAGMA table_info(defs)")}
    finally:
        conn.close()
