"""The preprocessor conditions reader: which `#if` branches a compile command leaves out."""

from __future__ import annotations

from spyglass.syntax import conditionals as C

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
    got = C.inactive_regions(SOURCE, {"BAR2": "1"}, ["__aarch64__", "_M_ARM64"])
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
    assert C.inactive_regions(text, {}) == []
    # `-U` undefines; an `#undef` in the file too
    text = b"#ifdef A\nint a;\n#endif\n#define B\n#undef B\n#ifdef B\nint b;\n#endif\n"
    assert [(r.start, r.end) for r in C.inactive_regions(text, {"A": None})] == [(2, 2), (7, 7)]


def test_encode_decode_round_trip() -> None:
    regions = C.inactive_regions(SOURCE, {}, ["__aarch64__"])
    assert C.decode(C.encode(regions)) == regions
