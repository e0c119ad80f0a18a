"""The preprocessor conditions reader: which `#if` branches a compile command leaves out."""

from __future__ import annotations

from spyglass.syntax import conditionals as C
from spyglass.syntax import expansions as E
from spyglass.syntax import include_walk as W

SOURCE = b"""#ifdef EKS
int a;
#else
int b;
#endif
#if defined(__aarch64__) || \\
    defined(_M_ARM64)
int arm;
#if X
int nested;
#endif
#endif
#define LEVEL 2
#if LEVEL > 1 && !defined(BAR) /* a comment */
int yes;
#elif 1
int no;
#endif
#if HAVE(3)
int unknown;
#else
int unknown_else;
#endif
#ifndef K
#define K
#endif
#ifdef K
int k;
#else
int not_k;
#endif
#ifdef NOTE
#define LATER 1
#endif
#if LATER
int later;
#endif
"""


def test_branches_decided_from_defines_and_the_files_own_defines() -> None:
    got = [r for r in C.inactive_regions(SOURCE, {"BAR2": "1"}, ["__aarch64__", "_M_ARM64"])
           if not r.undecided]
    assert [(r.start, r.end) for r in got] == [(2, 2), (8, 11), (17, 17), (30, 30),
                                              (33, 33), (36, 36)]
    assert got[0].why == "#ifdef EKS"
    assert got[2].why == "#elif 1 (after `#if LEVEL > 1 && !defined(BAR)`)"
    assert got[3].why == "#else of `#ifdef K`"


def test_a_define_flag_takes_the_other_branch() -> None:
    got = C.inactive_regions(SOURCE, {"EKS": "1", "BAR": "1", "NOTE": "1"},
                             ["__aarch64__", "_M_ARM64"])
    spans = [(r.start, r.end) for r in got]
    assert (4, 4) in spans and (2, 2) not in spans  # #else of #ifdef EKS
    assert (15, 15) in spans  # !defined(BAR) is false; `#elif 1` is taken
    assert (36, 36) not in spans  # LATER is defined under NOTE


def test_unknown_names_never_make_a_branch_inactive() -> None:
    # reserved names the pack does not list, function-like macros: unknown, not flagged
    text = b"#if defined(__clang__)\nint a;\n#else\nint b;\n#endif\n#if F(1)\nint c;\n#endif\n"
    assert [r for r in C.inactive_regions(text, {}) if not r.undecided] == []
    # … but undecided: neither branch of `__clang__` is provably taken (a site there is
    # flagged), nor the one of `F(1)`; read without a compile command, nothing is
    assert [(r.start, r.end, r.undecided) for r in C.inactive_regions(text, {})] == [
        (2, 2, True), (4, 4, True), (7, 7, True)]
    assert C.inactive_regions(text, {}, closed=True) == []
    # `-U` undefines; an `#undef` in the file too
    text = b"#ifdef A\nint a;\n#endif\n#define B\n#undef B\n#ifdef B\nint b;\n#endif\n"
    assert [(r.start, r.end) for r in C.inactive_regions(text, {"A": None})] == [(2, 2), (7, 7)]


def test_encode_decode_round_trip() -> None:
    regions = C.inactive_regions(SOURCE, {}, ["__aarch64__"])
    assert C.decode(C.encode(regions)) == regions


FILES = {
    "config.h": b"#define HAVE_ZERO 1\n",
    "port.h": b"""#ifndef _PORT_H
#define _PORT_H
#include "config.h"
#define INCLUDE_wipe 0
#if defined HAVE_ZERO
int system_zero;
#else
#undef INCLUDE_wipe
#define INCLUDE_wipe 1
int fallback;
#endif
#ifdef OTHER
int other;
#endif
#define __contract__(x)
#endif
""",
    "a.c": b"""#include "port.h"
#include "port.h"
#if INCLUDE_wipe
int wipe;
#endif
""",
    "b.c": b"""#define OTHER 1
#include "port.h"
""",
}


def _walk() -> W.IncludeWalk:
    return W.IncludeWalk(lambda p: C.directives(FILES[p]) if p in FILES else None,
                         lambda _includer, written: written.strip('"') if written.startswith('"')
                         else None)


def test_include_walk_decides_a_unit_by_its_headers_macros() -> None:
    walk = _walk()
    regions = walk.unit("a.c", {})
    assert regions is not None
    # INCLUDE_wipe is port.h's 0 (config.h defines HAVE_ZERO): known, not assumed
    assert [(r.start, r.end, r.assumed) for r in regions] == [(4, 4, ())]


def test_a_headers_branch_is_inactive_only_when_every_includer_leaves_it_out() -> None:
    walk = _walk()
    walk.unit("a.c", {})
    only_a = {(r.start, r.end) for r in walk.headers()["port.h"]}
    assert only_a == {(8, 10), (13, 13)}  # the fallback branch, and #ifdef OTHER
    walk.unit("b.c", {})
    both = {(r.start, r.end) for r in walk.headers()["port.h"]}
    assert both == {(8, 10)}  # b.c defines OTHER: taken by one includer


def test_a_guarded_header_included_twice_is_read_once_and_its_guard_found() -> None:
    lines = C.directives(FILES["port.h"])
    assert C.guard_name(lines) == "_PORT_H"
    assert C.guard_name(C.directives(b"#ifndef A\n#define A\n#endif\n#if B\n#endif\n")) is None
    walk = _walk()
    walk.unit("a.c", {})
    assert len(walk.visits["port.h"]) == 1


def test_a_walk_over_its_budget_gives_up() -> None:
    walk = W.IncludeWalk(lambda p: C.directives(FILES[p]) if p in FILES else None,
                         lambda _i, w: w.strip('"'), budget=5)
    assert walk.unit("a.c", {}) is None


def test_macros_that_expand_to_nothing_and_their_arguments_blanked() -> None:
    walk = _walk()
    walk.unit("a.c", {})
    assert walk.empty_macros() == frozenset({"__contract__"})
    text = b"#define __contract__(x)\nvoid f(int *p)\n__contract__(requires(p != (int *)0)\n  );\n"
    out = E.blank_arguments(text, ["__contract__"])
    assert len(out) == len(text) and out.count(b"\n") == text.count(b"\n")
    assert b"requires" not in out and b"#define __contract__(x)" in out
    assert out.split(b"\n")[2].startswith(b"__contract__(") and b");" in out


def test_a_macro_whose_value_is_an_expression_is_read_as_one() -> None:
    text = b"""#define BIG 0
#define USE_BE (BIG || defined(FORCE_BE))
#define LOOP LOOP
#if USE_BE
int be;
#else
int le;
#endif
#if LOOP
int unknown;
#endif
"""
    regions = [r for r in C.inactive_regions(text, {}) if not r.undecided]
    assert [(r.start, r.end) for r in regions] == [(5, 5)]


def test_an_if_not_defined_guard_counts_as_a_guard() -> None:
    header = b"#if !defined(_LIB_H)\n#define _LIB_H\n#ifdef _LIB_H\nint in;\n#else\nint out;\n#endif\n#endif\n"
    lines = C.directives(header)
    assert C.guard_name(lines) == "_LIB_H"
    files = {"lib.h": header, "u.c": b'#include "lib.h"\n#include "lib.h"\n'}
    walk = W.IncludeWalk(lambda p: C.directives(files[p]) if p in files else None,
                         lambda _i, w: w.strip('"'))
    assert walk.unit("u.c", {}) == []
    assert [(r.start, r.end) for r in walk.headers()["lib.h"]] == [(6, 6)]


def test_arguments_no_live_body_names_are_found_and_blanked() -> None:
    files = {
        "common.h": b"""#if !defined(CUSTOM_FREE)
#define FREE(v, T, N) do { zero(alloc_##v, (N)); (v) = 0; } while (0)
#else
#define FREE(v, T, N) custom(v, sizeof(T) * (N))
#endif
#define KEEP(a, b) ((a) + (b))
#define LOG(fmt, ...) printf(fmt, __VA_ARGS__)
""",
        "u.c": b'#include "common.h"\n',
    }
    walk = W.IncludeWalk(lambda p: C.directives(files[p]) if p in files else None,
                         lambda _i, w: w.strip('"'))
    walk.unit("u.c", {})
    # T is never named by the live FREE (the custom one is in a branch not taken)
    assert walk.unused_arguments() == {"FREE": (1,)}
    assert walk.empty_macros() == frozenset()
    text = b'FREE(s2, polyveck, f(1, ","));\n'
    out = E.blank_arguments(text, ["FREE:1"])
    assert out == b'FREE(s2,' + b' ' * 9 + b', f(1, ","));\n'


def test_a_definition_in_a_branch_that_may_be_taken_keeps_every_argument() -> None:
    files = {"h.h": b"#if __clang__\n#define F(x) x\n#else\n#define F(x)\n#endif\n",
             "u.c": b'#include "h.h"\n'}
    walk = W.IncludeWalk(lambda p: C.directives(files[p]) if p in files else None,
                         lambda _i, w: w.strip('"'))
    walk.unit("u.c", {})
    assert walk.unused_arguments() == {}


def test_specifier_macros_are_expanded_in_place_outside_directives() -> None:
    text = b"#ifndef STATIC\n#define STATIC static inline\n#endif\nSTATIC int f(void);\nAPI\nvoid g(void);\n"
    out = E.expand_specifiers(text, ["STATIC=static", "API"])
    assert len(out) == len(text) and out.count(b"\n") == text.count(b"\n")
    lines = out.split(b"\n")
    assert lines[0] == b"#ifndef STATIC" and lines[1] == b"#define STATIC static inline"
    assert lines[3] == b"static int f(void);" and lines[4] == b"   "


def test_the_walk_records_the_sources_a_unit_includes_and_its_macros() -> None:
    files = {"keccak.c": b"#ifdef EMBED\n#define API static inline\n#else\n#define API\n#endif\n",
             "k12.c": b'#define EMBED\n#include "keccak.c"\n#include "k12.h"\n', "k12.h": b""}
    walk = W.IncludeWalk(lambda p: C.directives(files[p]) if p in files else None,
                         lambda _i, w: w.strip('"'), is_source=lambda p: p.endswith(".c"))
    walk.unit("k12.c", {})
    walk.unit("keccak.c", {})
    assert walk.sources == {"k12.c": ["keccak.c"]}
    assert walk.values["k12.c"]["API"] == "static inline"
    assert walk.object_bodies()["API"] == frozenset({"static inline", ""})


def test_directive_lines_inside_block_comments_are_not_directives() -> None:
    text = b"""/* #define CUSTOM_FREE
   #if !defined(__ASSEMBLER__)
   #define FREE(v) free(v)
   #endif
*/
#define A /* an opening
#define B */
// a path: src/*.c
#define C
const char *s = "/*";
#define D
"""
    assert [rest for _, _, _, rest in C.directives(text)] == ["A /* an opening", "C", "D", ""]


def test_a_headers_branch_no_includer_provably_takes_is_undecided() -> None:
    files = {"t.h": b"#ifdef __AVX2__\nint wide;\n#endif\n#ifdef WIDE\nint w;\n#endif\n",
             "a.c": b'#include "t.h"\n', "b.c": b'#define WIDE 1\n#include "t.h"\n'}
    walk = W.IncludeWalk(lambda p: C.directives(files[p]) if p in files else None,
                         lambda _i, w: w.strip('"'))
    walk.unit("a.c", {})
    # `__AVX2__` is the compiler's (undecided for a.c); WIDE is undefined for a.c
    assert sorted((r.start, r.end, r.undecided) for r in walk.headers()["t.h"]) == [
        (2, 2, True), (5, 5, False)]
    walk.unit("b.c", {})  # b.c takes `#ifdef WIDE`: that branch is neither
    assert [(r.start, r.end, r.undecided) for r in walk.headers()["t.h"]] == [(2, 2, True)]
    files["c.c"] = b'#include "t.h"\n'
    walk.unit("c.c", {"__AVX2__": "1"})  # -D__AVX2__: c.c takes it, so it is not flagged
    assert walk.headers()["t.h"] == []
