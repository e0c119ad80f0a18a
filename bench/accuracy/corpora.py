"""The accuracy corpora: language, which folders are sampled, which the oracle analyses."""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def fetch_module() -> Any:
    """scripts/fetch_corpus.py as the module `fetch_corpus`, loaded once per process (the
    benchmarks and the test suite share it)."""
    module = sys.modules.get("fetch_corpus")
    if module is None:
        spec = importlib.util.spec_from_file_location("fetch_corpus",
                                                      REPO / "scripts" / "fetch_corpus.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules["fetch_corpus"] = module
        spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class AccuracyCorpus:
    """One corpus of the accuracy benchmark (fetched by scripts/fetch_corpus.py)."""

    name: str
    language: str
    source_dirs: tuple[str, ...]  # sampled for targets
    include: tuple[str, ...]  # analysed by the oracle (and searched for sites)
    n: int = 80
    go_import_path: str = ""  # Go: where the tree sits under GOPATH/src
    config: tuple[tuple[str, str], ...] = ()  # files written into the oracle's and spyglass's copies
    group: str = "tune"  # "tune": rules developed on it; "heldout": picked by the README's rule
    compile_flags: tuple[str, ...] = ()  # C, C++: compile_commands.json generated with these flags
    javac_options: tuple[str, ...] = ()  # Java: options of the oracle's compile ({root})
    ci_targets: int = 0  # CI scores this many targets, spread evenly (0: all); floors too


def _pyright(include: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    return (("pyrightconfig.json", json.dumps({"include": list(include),
                                                "typeCheckingMode": "standard"})),)


TRPC_TSCONFIG = json.dumps({
    "compilerOptions": {
        "target": "es2022", "module": "esnext", "moduleResolution": "bundler", "strict": True,
        "noEmit": True, "skipLibCheck": True, "baseUrl": ".",
        "paths": {"@trpc/server": ["./src/@trpc/server/index.ts"],
                  "@trpc/server/http": ["./src/@trpc/server/http.ts"],
                  "@trpc/server/*": ["./src/*"]}},
    "include": ["src/**/*"]}, indent=1)


def _tsconfig(package: str, src: str = "src") -> str:
    """A tsconfig including src/ whose paths map the package's own name to it (like trpc's)."""
    return json.dumps({
        "compilerOptions": {
            "target": "es2022", "module": "esnext", "moduleResolution": "bundler",
            "strict": True, "noEmit": True, "skipLibCheck": True, "jsx": "react-jsx",
            "baseUrl": ".", "paths": {package: [f"./{src}/index.ts"],
                                      f"{package}/*": [f"./{src}/*"]}},
        "include": [f"{src}/**/*"]}, indent=1)


HELDOUT: tuple[AccuracyCorpus, ...] = (  # bench/accuracy/README.md "Held-out corpora"
    AccuracyCorpus("packaging", "python", ("src",), ("src", "tests"),
                   config=_pyright(("src", "tests")), group="heldout"),
    AccuracyCorpus("urllib3", "python", ("src",), ("src", "test"),
                   config=_pyright(("src", "test")), group="heldout"),
    AccuracyCorpus("idna", "python", ("idna",), ("idna", "tests"),
                   config=_pyright(("idna", "tests")), group="heldout"),
    AccuracyCorpus("golang_protobuf", "go", (".",), (".",),
                   go_import_path="github.com/golang/protobuf", group="heldout"),
    AccuracyCorpus("jsoniter", "go", (".",), (".",),
                   go_import_path="github.com/json-iterator/go", group="heldout"),
    AccuracyCorpus("prom_common", "go", (".",), (".",),
                   go_import_path="github.com/prometheus/common", group="heldout"),
    AccuracyCorpus("query_core", "typescript", ("src",), ("src",), group="heldout",
                   config=(("tsconfig.json", _tsconfig("@tanstack/query-core")),)),
    AccuracyCorpus("react_query", "typescript", ("src",), ("src",), group="heldout",
                   config=(("tsconfig.json", _tsconfig("@tanstack/react-query")),)),
    AccuracyCorpus("virtual_core", "typescript", ("src",), ("src",), group="heldout",
                   config=(("tsconfig.json", _tsconfig("@tanstack/virtual-core")),)),
    # Issue 25's more held-out corpora (README "More held-out corpora"): TS v3 frameworks
    # with class hierarchies and chained member access; sibling packages stay unresolved.
    AccuracyCorpus("prosemirror_view", "typescript", ("src",), ("src",), group="heldout",
                   config=(("tsconfig.json", _tsconfig("prosemirror-view")),), ci_targets=24),
    AccuracyCorpus("tiptap_core", "typescript", ("src",), ("src",), group="heldout",
                   config=(("tsconfig.json", _tsconfig("@tiptap/core")),), ci_targets=24),
    AccuracyCorpus("tldraw_editor", "typescript", ("src",), ("src",), group="heldout",
                   config=(("tsconfig.json", _tsconfig("@tldraw/editor")),), ci_targets=24),
)


# C: pycryptodome's C sources (src/, tests in src/test/ under CMake) with a generated
# compile_commands.json (bench/accuracy/README.md, "Oracles").
# The held-out C corpus, by a rule written before it was measured (2026-12-01): among
# Debian bookworm's packages named `*-source` whose description names a C library
# ("C library" or "shared library"), not a kernel module or driver, the smallest by
# Installed-Size: libxcrypt-source 4.4.33 (2,040 kB; glibc-, newlib- and uclibc-source are
# larger). Its tree needs configure's generated headers; `_xcrypt_config` writes the ones a
# Linux/glibc configure would (every hash enabled, as Debian builds it) under `gen/`,
# read, like the -D flags, from the compile command; nothing in lib/ or test/ is changed.
_XCRYPT_HASHES = ("yescrypt", "gost_yescrypt", "scrypt", "bcrypt", "bcrypt_y", "bcrypt_a",
                  "bcrypt_x", "sha512crypt", "sha256crypt", "sha1crypt", "sunmd5",
                  "md5crypt", "nt", "bsdicrypt", "bigcrypt", "descrypt")
_XCRYPT_HAVE = ("ENDIAN_H", "EXPLICIT_BZERO", "FCNTL_H", "FUNC_ATTRIBUTE_SYMVER", "GETENTROPY",
                "GETRANDOM", "MAX_ALIGN_T", "STATIC_ASSERT_IN_ASSERT_H", "SYMVER", "SYSCALL",
                "SYS_CDEFS_H", "SYS_CDEFS_THROW", "SYS_PARAM_H", "SYS_RANDOM_H", "SYS_STAT_H",
                "SYS_SYSCALL_H", "SYS_TYPES_H", "UNISTD_H", "_STATIC_ASSERT")


def _xcrypt_config() -> tuple[tuple[str, str], ...]:
    config = "".join(f"#define HAVE_{h} 1\n" for h in _XCRYPT_HAVE) + \
        "#define ENDIANNESS_IS_BIG 0\n#define ENDIANNESS_IS_LITTLE 1\n" \
        "#define ENDIANNESS_IS_PDP 0\n#define ENABLE_OBSOLETE_API 1\n" \
        "#define ENABLE_OBSOLETE_API_ENOSYS 0\n#define ENABLE_FAILURE_TOKENS 1\n"
    hashes = "".join(f"#define INCLUDE_{h} 1\n" for h in _XCRYPT_HASHES) + \
        "#define HASH_ALGORITHM_DEFAULT \"$y$\"\n"
    return (("libxcrypt/gen/config.h", config), ("libxcrypt/gen/crypt-hashes.h", hashes),
            ("libxcrypt/gen/crypt-symbol-vers.h", ""))


C_CORPORA: tuple[AccuracyCorpus, ...] = (
    AccuracyCorpus("pycryptodome", "c", ("src",), ("src",),
                   compile_flags=("-std=c11", "-Isrc", "-Isrc/test", "-DHAVE_STDINT_H",
                                  "-DHAVE_UINT128", "-msse2", "-mssse3", "-maes", "-mpclmul",
                                  "-mavx2", "-mbmi2", "-madx", "-msha")),
    AccuracyCorpus("libxcrypt", "c", ("libxcrypt/lib",), ("libxcrypt/lib", "libxcrypt/test"),
                   group="heldout", config=_xcrypt_config(),
                   compile_flags=("-std=gnu11", "-DHAVE_CONFIG_H", "-DIN_LIBCRYPT", "-DPIC",
                                  "-Ilibxcrypt/gen", "-Ilibxcrypt/lib")),
    # C v2 (README "More held-out corpora"): C libraries with heavy macro use vendored by
    # PyPI sdists; the folder and its include/ on the include path, nothing generated.
    AccuracyCorpus("tree_sitter_lib", "c", ("tree_sitter/core/lib",), ("tree_sitter/core/lib",),
                   group="heldout", ci_targets=24, compile_flags=(
                       "-std=gnu11", "-Itree_sitter/core/lib",
                       "-Itree_sitter/core/lib/include")),
    AccuracyCorpus("libargon2", "c", ("extras/libargon2",), ("extras/libargon2",),
                   group="heldout", ci_targets=24, compile_flags=(
                       "-std=gnu11", "-Iextras/libargon2", "-Iextras/libargon2/include")),
    # (under vendor/, which spyglass skips by default: its copy's spyglass.toml brings it back)
    AccuracyCorpus("hiredis", "c", ("vendor/hiredis",), ("vendor/hiredis",), group="heldout",
                   ci_targets=24, compile_flags=("-std=gnu11", "-Ivendor/hiredis"),
                   config=(("spyglass.toml", '[index]\ninclude = ["vendor/hiredis/**"]\n'),)),
)

# C++: nanobind's library (src/, include/) and its C++ test modules (tests/), picked by the
# rule of bench/accuracy/README.md "C++"; measured before any C++ rule was written for it,
# then tuned on (a tune corpus).
CPP_CORPORA: tuple[AccuracyCorpus, ...] = (
    AccuracyCorpus("nanobind", "cpp", ("src", "include"), ("src", "include", "tests"),
                   compile_flags=("-std=c++17", "-Iinclude", "-Iext/robin_map/include",
                                  "-I/usr/include/python3.11", "-I/usr/include/eigen3")),
)

# Translation units of a compile_commands.json, per language: (suffixes, compiler driver).
UNITS = {"c": ((".c",), "cc"), "cpp": ((".cpp", ".cc", ".cxx", ".c++"), "c++")}


def write_compile_commands(corpus: AccuracyCorpus, root: Path) -> None:
    """A compile_commands.json for every translation unit (`.c`; C++: `.cpp`, `.cc`, …)
    under the analysed folders (C and C++ corpora)."""
    if not corpus.compile_flags:
        return
    suffixes, driver = UNITS[corpus.language]
    entries = []
    for sub in corpus.include:
        for path in sorted(p for p in (root / sub).rglob("*") if p.suffix in suffixes):
            rel = path.relative_to(root).as_posix()
            entries.append({"directory": str(root), "file": rel,
                            "arguments": [driver, *corpus.compile_flags, "-c", rel]})
    (root / "compile_commands.json").write_text(json.dumps(entries, indent=1) + "\n")


CORPORA: dict[str, AccuracyCorpus] = {c.name: c for c in (
    AccuracyCorpus("flask", "python", ("src",), ("src", "tests"),
                   config=_pyright(("src", "tests"))),
    AccuracyCorpus("requests", "python", ("src",), ("src", "tests"),
                   config=_pyright(("src", "tests"))),
    AccuracyCorpus("httpx", "python", ("httpx",), ("httpx", "tests"),
                   config=_pyright(("httpx", "tests"))),
    AccuracyCorpus("cobra", "go", (".",), (".",), go_import_path="github.com/spf13/cobra"),
    AccuracyCorpus("client_golang", "go", ("prometheus",), (".",),
                   go_import_path="github.com/prometheus/client_golang"),
    AccuracyCorpus("trpc", "typescript", ("src",), ("src",),
                   config=(("tsconfig.json", TRPC_TSCONFIG),)),
    *HELDOUT,
    *C_CORPORA,
    *CPP_CORPORA,
    # Java: the JDK compiler API is the oracle (accuracy/javac.py); the whole tree.
    AccuracyCorpus("j2ddemo", "java", (".",), (".",)),
    AccuracyCorpus("swingset2", "java", (".",), (".",)),
    # The JDK's java.util.zip compiled as a patch of module java.base: measured once,
    # never tuned on (bench/accuracy/README.md, "Java").
    AccuracyCorpus("jdk_zip", "java", (".",), (".",), group="heldout",
                   javac_options=("--patch-module", "java.base={root}")),
    # Java v2 (README "More held-out corpora"): Apache Commons libraries from Debian's
    # source archive; their main sources only (the tests need JUnit, absent here).
    *(AccuracyCorpus(name, "java", ("src/main/java",), ("src/main/java",), group="heldout",
                     ci_targets=24) for name in ("commons_codec", "commons_csv", "commons_exec")),
)}
