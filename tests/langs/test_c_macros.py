"""C macros read by the include walk: the declaration-specifier ones, and the file-local
names of the sources a unit includes (langs/c/specifiers.py, langs/c/resolver.py)."""

from __future__ import annotations

import json

from spyglass.langs.c import resolver as R
from spyglass.langs.c import specifiers as S
from spyglass.syntax import expansions as E


def test_macros_of_declaration_specifiers_only_are_told_apart() -> None:
    found = S.specifier_macros({
        "STATIC": frozenset({"static inline"}),
        "EXPORT_SYM": frozenset({""}),
        "API": frozenset({'__attribute__((visibility("default")))'}),
        "KECCAK_API": frozenset({"static inline", "EXPORT_SYM"}),  # static for one unit
        "LOCAL": frozenset({"EXPORT_SYM static"}),
        "SIZE": frozenset({"16"}),
        "RESTRICT": frozenset({"restrict", ""}),
        "lower": frozenset({""}),
    })
    assert found == {"STATIC": True, "EXPORT_SYM": False, "API": False,
                     "KECCAK_API": False, "LOCAL": True}
    assert S.static_under("KECCAK_API", {"KECCAK_API": "static inline"})
    assert not S.static_under("KECCAK_API", {"KECCAK_API": "EXPORT_SYM", "EXPORT_SYM": ""})


def test_a_unit_gets_the_file_local_names_of_the_sources_it_includes() -> None:
    files = {
        "compile_commands.json": json.dumps([
            {"directory": "/r", "file": f, "arguments": ["cc", "-c", f]}
            for f in ("keccak.c", "k12.c", "aes.c")]).encode(),
        "keccak.c": b"""#ifdef KECCAK_EMBEDDED
#define KECCAK_API static inline
#else
#define KECCAK_API
#endif
typedef struct { int rate; } keccak_state;
static int rol(int x) { return x; }
KECCAK_API int keccak_absorb(keccak_state *s) { return rol(s->rate); }
int keccak_public(void) { return 0; }
""",
        "k12.c": b'#define KECCAK_EMBEDDED\n#include "keccak.c"\nint k12(void) { return 0; }\n',
        "common.h": b"#ifndef STATIC\n#define STATIC static inline\n#endif\n",
        "aes.c": b'#include "common.h"\nSTATIC int expand_key(int n) { return n; }\n',
    }
    keys = R.module_keys([p for p in files if p.endswith((".c", ".h"))], files.get)
    k12 = R.included_locals(keys["k12.c"])
    # KECCAK_API is `static inline` in k12.c's unit: keccak.c's functions are its copies
    assert k12 == {n: f"keccak#{n}" for n in ("KECCAK_API", "keccak_state", "rol",
                                               "keccak_absorb")}
    assert R.included_locals(keys["keccak.c"]) == {}
    aes = dict(keys["aes.c"].settings)
    assert aes[E.SPECIFIER_MACROS] == "STATIC=static"
    prepared = E.prepared(files["aes.c"], keys["aes.c"].settings)
    assert b"\nstatic int expand_key" in prepared and len(prepared) == len(files["aes.c"])


def test_a_macro_is_expanded_only_in_files_that_a_unit_reading_it_reads() -> None:
    files = {
        "compile_commands.json": json.dumps([
            {"directory": "/r", "file": f, "arguments": ["cc", "-c", f]}
            for f in ("lib/a.c", "app/b.c")]).encode(),
        "lib/api.h": b"#define API\n#define CHECK(x)\n",
        "lib/a.c": b'#include "api.h"\nAPI int a(int n) { CHECK(n > 0); return n; }\n',
        "app/b.c": b"enum { API = 1 };\nint CHECK(int x) { return x; }\n"
                   b"int b(void) { return CHECK(API); }\n",
    }
    keys = R.module_keys([p for p in files if p.endswith((".c", ".h"))], files.get)
    a = dict(keys["lib/a.c"].settings)
    assert a[E.SPECIFIER_MACROS] == "API" and a[E.EMPTY_MACROS] == "CHECK:0"
    b = dict(keys["app/b.c"].settings)  # app/ never includes lib/api.h
    assert E.SPECIFIER_MACROS not in b and E.EMPTY_MACROS not in b


def test_a_header_that_includes_a_source_gets_its_file_local_names() -> None:
    files = {
        "compile_commands.json": json.dumps([
            {"directory": "/r", "file": "ec.c", "arguments": ["cc", "-c", "ec.c"]}]).encode(),
        "rows.c": b"typedef struct { int n; } Rows;\nstatic int rows_mul(int a) { return a; }\n",
        "field.h": b'#include "rows.c"\nstatic inline int mul(int a) { return rows_mul(a); }\n',
        "ec.c": b'#include "field.h"\nint ec(void) { return mul(1); }\n',
    }
    keys = R.module_keys([p for p in files if p.endswith((".c", ".h"))], files.get)
    assert R.included_locals(keys["field.h"]) == {"Rows": "rows#Rows", "rows_mul": "rows#rows_mul"}
    assert R.included_locals(keys["ec.c"]) == {}  # a source its header includes: not followed
