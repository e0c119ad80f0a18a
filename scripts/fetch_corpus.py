"""Fetch pinned real-world projects (PyPI sdists, npm packages, Debian Go sources, Debian
sources and source zips shipped in Debian packages, original tarballs of Debian's source
archive) into a cache.

Debian packages are installed by `scripts/bootstrap.sh --corpora` (it asks
`--debian-packages` which), never here; with $SPYGLASS_CORPORA_OFFLINE set (the test suite
sets it) nothing is downloaded either: a corpus missing from the cache is a FetchError
saying how to fetch it. `--tests` fetches what the test suite uses (TEST_CORPORA).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Kind = Literal["pypi", "npm", "go", "debzip", "debian", "debsrc"]


@dataclass(frozen=True)
class Corpus:
    """One pinned project: where it comes from and the directory it unpacks to."""

    name: str
    kind: Kind
    package: str
    version: str
    dirname: str
    archive: str = ""  # debzip: the zip of sources the Debian package installs; debsrc:
    # the original tarball's path in the Debian archive (`pool/main/…`, its .dsc beside it)
    sha256: str = ""  # debsrc: the tarball's SHA-256, as the package's .dsc lists it;
    # pypi/npm: the sdist's or npm tarball's, checked before it is unpacked when set
    members: str = ""  # debzip: only the members under this folder
    source_root: str = ""  # debzip: the folder of the zip that is the corpus's root


CORPORA: dict[str, Corpus] = {
    c.name: c
    for c in (
        Corpus("flask", "pypi", "flask", "3.1.3", "flask-3.1.3"),
        Corpus("requests", "pypi", "requests", "2.34.2", "requests-2.34.2"),
        Corpus("httpx", "pypi", "httpx", "0.28.1", "httpx-0.28.1"),
        Corpus("django", "pypi", "django", "5.1", "Django-5.1"),
        Corpus("trpc", "npm", "@trpc/server", "11.25.2", "trpc-server-11.25.2"),
        Corpus("rxjs", "npm", "rxjs", "7.8.2", "rxjs-7.8.2"),
        Corpus("cobra", "go", "golang-github-spf13-cobra-dev", "1.6.1", "github.com/spf13/cobra"),
        Corpus(
            "client_golang",
            "go",
            "golang-github-prometheus-client-golang-dev",
            "1.14",
            "github.com/prometheus/client_golang",
        ),
        # Held-out accuracy corpora (bench/accuracy/README.md, "Held-out corpora").
        Corpus("packaging", "pypi", "packaging", "26.3", "packaging-26.3"),
        Corpus("urllib3", "pypi", "urllib3", "2.8.0", "urllib3-2.8.0"),
        Corpus("idna", "pypi", "idna", "3.20", "idna-3.20"),
        Corpus("golang_protobuf", "go", "golang-github-golang-protobuf-1-5-dev", "1.5.2",
               "github.com/golang/protobuf"),
        Corpus("jsoniter", "go", "golang-github-json-iterator-go-dev", "1.1.12",
               "github.com/json-iterator/go"),
        Corpus("prom_common", "go", "golang-github-prometheus-common-dev", "0.39.0",
               "github.com/prometheus/common"),
        Corpus("query_core", "npm", "@tanstack/query-core", "5.108.0", "tanstack-query-core-5.108.0"),
        Corpus("react_query", "npm", "@tanstack/react-query", "5.108.0", "tanstack-react-query-5.108.0"),
        Corpus("virtual_core", "npm", "@tanstack/virtual-core", "3.19.11",
               "tanstack-virtual-core-3.19.11"),
        # More held-out corpora (issue 25; bench/accuracy/README.md "More held-out
        # corpora"): TypeScript frameworks, Java libraries of Apache Commons (original
        # tarballs of Debian's source archive) and C libraries vendored by PyPI sdists.
        Corpus("prosemirror_view", "npm", "prosemirror-view", "1.42.9", "prosemirror-view-1.42.9",
               sha256="d92a5d70b1c9d20ffa582c710ba62f86a58cb8a7ec5c58b9abe402c8e9e5d403"),
        Corpus("tiptap_core", "npm", "@tiptap/core", "3.35.0", "tiptap-core-3.35.0",
               sha256="4a08b5f835215d909c481266fa676bb3b7430879045d00165d9042bdf04a3d0f"),
        Corpus("tldraw_editor", "npm", "@tldraw/editor", "5.5.2", "tldraw-editor-5.5.2",
               sha256="84cafe0cd28b6efcc7c5661f25f95e93b6f61687ee47acd1aab663902b3226bb"),
        Corpus("commons_codec", "debsrc", "libcommons-codec-java", "1.15", "commons-codec-1.15",
               archive="pool/main/libc/libcommons-codec-java/libcommons-codec-java_1.15.orig.tar.xz",
               sha256="857c58c23bfe6b284b174d89f323de438042ce9a005b2a81afa658962caff90f"),
        Corpus("commons_csv", "debsrc", "commons-csv", "1.9.0", "commons-csv-1.9.0",
               archive="pool/main/c/commons-csv/commons-csv_1.9.0.orig.tar.xz",
               sha256="661252998cf2b9aac1aa12fe9e104dc23190761a8971384f83a6c1fc02536867"),
        Corpus("commons_exec", "debsrc", "commons-exec", "1.3", "commons-exec-1.3",
               archive="pool/main/c/commons-exec/commons-exec_1.3.orig.tar.gz",
               sha256="db0742fa59b7d69375e5d99e827aee0bf06ac527aa6def63618950e40c24cb9f"),
        Corpus("tree_sitter_lib", "pypi", "tree-sitter", "0.26.1", "tree_sitter-0.26.1",
               sha256="9919cbaf02d17fa9a4cd0e6da496aecf901b758e6eacf122eee393e3ef08aacd"),
        Corpus("libargon2", "pypi", "argon2-cffi-bindings", "26.2.0",
               "argon2_cffi_bindings-26.2.0",
               sha256="f21ab89bb9850f32b9ca038d9961424bb0d3669d579cbbbfed068cffa6fc0643"),
        Corpus("hiredis", "pypi", "hiredis", "3.5.0", "hiredis-3.5.0",
               sha256="c227592cc56b7df247abe4755c26723965be68972be2149fa441ac33d82131ba"),
        # C: the accuracy corpus of the C pack (clangd oracle) and its real-project test.
        Corpus("pycryptodome", "pypi", "pycryptodome", "4.4.0", "pycryptodome-4.4.0"),
        # C++: the clangd accuracy corpus of the C++ pack (bench/accuracy/README.md, "C++").
        Corpus("nanobind", "pypi", "nanobind", "3.1.0", "nanobind-3.1.0"),
        # Java, Kotlin and C# (the langs-jvm packs): a Debian-shipped Java demo (the Java
        # accuracy corpus), an npm package shipping its Android sources in Java and
        # Kotlin (src/main/java), and a PyPI sdist holding its C# runtime.
        Corpus("j2ddemo", "debzip", "openjdk-17-demo", "17", "J2Ddemo-17",
               archive="/usr/share/doc/openjdk-17-jre-headless/demo/jfc/J2Ddemo/src.zip"),
        Corpus("swingset2", "debzip", "openjdk-17-demo", "17", "SwingSet2-17",
               archive="/usr/share/doc/openjdk-17-jre-headless/demo/jfc/SwingSet2/src.zip"),
        # The JDK's own java.util.zip (Debian openjdk-17-source): the held-out Java corpus.
        Corpus("jdk_zip", "debzip", "openjdk-17-source", "17", "jdk17-java.util.zip",
               archive="/usr/lib/jvm/java-17-openjdk-amd64/lib/src.zip",
               members="java.base/java/util/zip/", source_root="java.base"),
        Corpus("rn_webview", "npm", "react-native-webview", "16.0.0",
               "react-native-webview-16.0.0"),
        Corpus("pythonnet", "pypi", "pythonnet", "3.2.1", "pythonnet-3.2.1"),
        # Kotlin alone: an Expo module whose npm package ships its Android sources, all
        # Kotlin.
        Corpus("expo_fs", "npm", "expo-file-system", "58.0.2", "expo-file-system-58.0.2"),
        # One real project per language of the Rust/Ruby/PHP/Swift/Lua/Bash packs
        # (tests/langs/test_lang_corpora.py): Debian packages install their sources under
        # the absolute `dirname`; @capacitor/ios ships its Swift sources on npm.
        Corpus("semver_rs", "debian", "librust-semver-dev", "1.0.14",
               "/usr/share/cargo/registry/semver-1.0.14"),
        Corpus("thor", "debian", "ruby-thor", "1.2.1",
               "/usr/share/rubygems-integration/all/gems/thor-1.2.1"),
        Corpus("composer_semver", "debian", "php-composer-semver", "3.3.2",
               "/usr/share/php/Composer/Semver"),
        Corpus("penlight", "debian", "lua-penlight", "1.13.1", "/usr/share/lua/5.1/pl"),
        Corpus("bats", "debian", "bats", "1.8.2", "/usr/lib/bats-core"),
        # C: the held-out accuracy corpus (bench/accuracy/corpora.py names its rule).
        Corpus("libxcrypt", "debian", "libxcrypt-source", "4.4.33", "/usr/src/libxcrypt"),
        # C++: CLI11's headers (header-only; tests/langs/test_cpp_corpus.py).
        Corpus("cli11", "debian", "libcli11-dev", "2.1.2", "/usr/include/CLI"),
        Corpus("capacitor_ios", "npm", "@capacitor/ios", "8.5.2", "capacitor-ios-8.5.2"),
        # Scala: jawn, a JSON parser: the original tarball of Debian's source package
        # `jawn` (its .dsc lists the SHA-256; Debian's binary package holds only a jar).
        # tests/langs/test_scala_corpus.py.
        Corpus("jawn", "debsrc", "jawn", "0.6.0", "jawn-0.6.0",
               archive="pool/main/j/jawn/jawn_0.11.1+really0.6.0.orig.tar.xz",
               sha256="bcb8ad48f73475d6f63510dbac4a96cff2cdb648dca8744bc783b6b6cd39bffb"),
        # and json4s 3.2.10 (source package `json4s`, Debian's libjson4s-java): package
        # objects, implicit conversions, specs2 suites.
        Corpus("json4s", "debsrc", "json4s", "3.2.10", "json4s-3.2.10",
               archive="pool/main/j/json4s/json4s_3.5.1+really3.2.10.orig.tar.xz",
               sha256="7b0dd89a60bddd59152a90d8756f91afd89bd614e492f060c5910367354b4cc1"),
    )
}

# The corpora the test suite reads (tests marked `network`; Go ones also `system`).
TEST_CORPORA = ("flask", "requests", "httpx", "trpc", "rxjs", "cobra", "client_golang",
                # held-out accuracy corpora (bench/accuracy/README.md)
                "packaging", "urllib3", "idna", "golang_protobuf", "jsoniter", "prom_common",
                "query_core", "react_query", "virtual_core",
                "prosemirror_view", "tiptap_core", "tldraw_editor",
                "commons_codec", "commons_csv", "commons_exec", "tree_sitter_lib", "libargon2",
                "hiredis",
                # C and C++ (tests/langs/test_c_corpus.py and test_cpp_corpus.py, the clangd
                # accuracy floors)
                "pycryptodome", "libxcrypt", "cli11", "nanobind",
                # Java / Kotlin / C# packs (tests/langs/test_jvm_corpora.py)
                "j2ddemo", "swingset2", "jdk_zip", "rn_webview", "pythonnet", "expo_fs",
                # the Rust, Ruby, PHP, Lua, Bash and Swift packs' real projects
                "semver_rs", "thor", "composer_semver", "penlight", "bats", "capacitor_ios",
                # the Scala pack's (tests/langs/test_scala_corpus.py)
                "jawn", "json4s")
OFFLINE_ENV = "SPYGLASS_CORPORA_OFFLINE"
GOCODE = Path("/usr/share/gocode/src")
APT_SOURCES = (Path("/etc/apt/sources.list"), Path("/etc/apt/sources.list.d"))
MIRROR_ENV = "DEBIAN_MIRROR"
FIXED_DATE = "2000-01-01T00:00:00+0000"
REPO_ROOT = Path(__file__).resolve().parent.parent


class FetchError(Exception):
    """A corpus could not be fetched or prepared."""


def default_dest() -> Path:
    """The cache directory: $SPYGLASS_CORPORA, else ~/.cache/spyglass/corpora."""
    env = os.environ.get("SPYGLASS_CORPORA")
    return Path(env) if env else Path.home() / ".cache" / "spyglass" / "corpora"


def _run(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        raise FetchError(f"{' '.join(cmd)} failed ({proc.returncode}): " + " | ".join(tail))


def ensure_owned(root: Path) -> None:
    """Make every file under root owned by the current user (git refuses 'dubious ownership')."""
    uid, gid = os.getuid(), os.getgid()
    if root.lstat().st_uid == uid:
        return
    for dirpath, dirnames, filenames in os.walk(root):
        for entry in [dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)]:
            if os.lstat(entry).st_uid != uid:
                os.lchown(entry, uid, gid)


def _extract(archive: Path, into: Path) -> None:
    """Unpack a tarball with the 'data' filter (safe paths, ownership reset to ours)."""
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")


def _unpack_single_top(archive: Path, target: Path) -> None:
    """Unpack an archive whose members share one top directory, renaming that directory to target."""
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".unpack-") as tmp:
        _extract(archive, Path(tmp))
        tops = [p for p in Path(tmp).iterdir()]
        if len(tops) != 1 or not tops[0].is_dir():
            raise FetchError(f"{archive.name}: expected one top-level directory, found {len(tops)}")
        tops[0].rename(target)
    ensure_owned(target)


def debian_packages() -> list[str]:
    """The Debian packages holding the Go corpora's sources, the Debian corpora and the
    source zips (installed by bootstrap.sh)."""
    return list(dict.fromkeys(c.package for c in CORPORA.values()
                              if c.kind in ("go", "debzip", "debian")))


def _offline(c: Corpus) -> None:
    """Refuse to download when $SPYGLASS_CORPORA_OFFLINE is set (inside the test suite)."""
    if os.environ.get(OFFLINE_ENV):
        raise FetchError(f"{c.name} is not fetched and {OFFLINE_ENV} forbids downloading: run "
                         f"`bash scripts/bootstrap.sh --corpora` first (scripts/test.sh does), "
                         f"or deselect with -m 'not network'")


def _check_sha256(c: Corpus, archive: Path) -> None:
    """Refuse an archive whose SHA-256 is not the pinned one (when one is pinned)."""
    if not c.sha256:
        return
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != c.sha256:
        raise FetchError(f"{c.name}: {archive.name} has SHA-256 {digest}, "
                         f"the pinned one is {c.sha256}")


def _fetch_pypi(c: Corpus, dest: Path) -> Path:
    target = dest / c.dirname
    if target.is_dir():
        return target
    _offline(c)
    with tempfile.TemporaryDirectory(dir=dest, prefix=".download-") as tmp:
        _run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", c.package,
              f"{c.package}=={c.version}", "-d", tmp])
        archives = sorted(Path(tmp).glob("*.tar.gz"))
        if len(archives) != 1:
            raise FetchError(f"{c.name}: expected one .tar.gz sdist, got {[a.name for a in archives]}")
        _check_sha256(c, archives[0])
        _unpack_single_top(archives[0], target)
    return target


def _fetch_npm(c: Corpus, dest: Path) -> Path:
    target = dest / c.dirname
    if target.is_dir():
        return target
    _offline(c)
    with tempfile.TemporaryDirectory(dir=dest, prefix=".download-") as tmp:
        _run(["npm", "pack", "--silent", f"{c.package}@{c.version}", "--pack-destination", tmp], cwd=Path(tmp))
        archives = sorted(Path(tmp).glob("*.tgz"))
        if len(archives) != 1:
            raise FetchError(f"{c.name}: expected one .tgz from npm pack, got {[a.name for a in archives]}")
        _check_sha256(c, archives[0])
        _unpack_single_top(archives[0], target)
    return target


def _fetch_go(c: Corpus, dest: Path, git: bool) -> Path:
    source = GOCODE / c.dirname
    if not source.is_dir():
        raise FetchError(f"{c.name}: {source} is missing: the Debian package {c.package} is "
                         f"not installed (`bash scripts/bootstrap.sh --corpora` installs it)")
    if not git:
        return source
    # Never turn a system directory into a repository: --git works on a private copy.
    target = dest / f"{c.name}-{c.version}"
    if not target.is_dir():
        with tempfile.TemporaryDirectory(dir=dest, prefix=".copy-") as tmp:
            shutil.copytree(source, Path(tmp) / "tree", symlinks=True)
            (Path(tmp) / "tree").rename(target)
    return target


def _fetch_debzip(c: Corpus, dest: Path) -> Path:
    """A zip of sources a Debian package installs, unpacked (safe member names only)."""
    target = dest / c.dirname
    if target.is_dir():
        return target
    archive = Path(c.archive)
    if not archive.is_file():
        raise FetchError(f"{c.name}: {archive} is missing: the Debian package {c.package} is "
                         f"not installed (`bash scripts/bootstrap.sh --corpora` installs it)")
    with tempfile.TemporaryDirectory(dir=dest, prefix=".unpack-") as tmp:
        tree = Path(tmp) / "tree"
        with zipfile.ZipFile(archive) as zf:
            wanted = [m for m in zf.namelist() if m.startswith(c.members)]
            for member in wanted:
                parts = Path(member).parts
                if member.startswith("/") or ".." in parts:
                    raise FetchError(f"{c.name}: unsafe member {member!r} in {archive}")
            zf.extractall(tree, members=wanted)
        tree = tree / c.source_root if c.source_root else tree
        tree.rename(target)
    return target


def _fetch_debian(c: Corpus, dest: Path) -> Path:
    """A private copy of an installed Debian package's source tree: the folder itself
    under `<name>-<version>/` (`pl/` stays `pl/`, as Lua's `require "pl.utils"` names it),
    so that indexing never writes into a system directory."""
    source = Path(c.dirname)
    if not source.is_dir():
        raise FetchError(f"{c.name}: {source} is missing: the Debian package {c.package} is "
                         f"not installed (`bash scripts/bootstrap.sh --corpora` installs it)")
    target = dest / f"{c.name}-{c.version}"
    if not target.is_dir():
        with tempfile.TemporaryDirectory(dir=dest, prefix=".copy-") as tmp:
            shutil.copytree(source, Path(tmp) / "tree" / source.name, symlinks=True)
            (Path(tmp) / "tree").rename(target)
    return target


def debian_mirror(sources: tuple[Path, ...] = APT_SOURCES) -> str:
    """The Debian archive apt fetches from: $DEBIAN_MIRROR, else the first `deb` source of
    apt's configuration (one-line or deb822 `.sources`) that is not a security archive."""
    env = os.environ.get(MIRROR_ENV)
    if env:
        return env.rstrip("/")
    files = [f for s in sources for f in (sorted(s.iterdir()) if s.is_dir() else [s])
             if f.is_file() and f.suffix in (".list", ".sources")]
    for f in files:
        text = f.read_text(encoding="utf-8", errors="replace")
        if f.suffix == ".list":
            entries = [(m.group(1), m.group(2)) for m in re.finditer(
                r"^\s*deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+(\S+)", text, re.MULTILINE)]
        else:
            entries = []
            for stanza in re.split(r"\n\s*\n", text):
                fields = dict(re.findall(r"^(\w[\w-]*):\s*(.*)$", stanza, re.MULTILINE))
                if "deb" in fields.get("Types", "").split() and fields.get("Enabled", "yes") != "no":
                    entries += [(uri, fields.get("Suites", "")) for uri in fields.get("URIs", "").split()]
        for uri, suites in entries:
            if uri.startswith(("http://", "https://")) and "security" not in uri + suites:
                return uri.rstrip("/")
    raise FetchError(f"no Debian archive in apt's sources ({', '.join(map(str, sources))}); "
                     f"set ${MIRROR_ENV}")


def _fetch_debsrc(c: Corpus, dest: Path) -> Path:
    """An original tarball of Debian's source archive, checked against its pinned SHA-256
    before it is unpacked (one top folder, renamed to `dirname`)."""
    target = dest / c.dirname
    if target.is_dir():
        return target
    _offline(c)
    url = f"{debian_mirror()}/{c.archive}"
    with tempfile.TemporaryDirectory(dir=dest, prefix=".download-") as tmp:
        archive = Path(tmp) / Path(c.archive).name
        digest = hashlib.sha256()
        with urllib.request.urlopen(url, timeout=120) as response, archive.open("wb") as out:
            while chunk := response.read(1 << 16):
                digest.update(chunk)
                out.write(chunk)
        if digest.hexdigest() != c.sha256:
            raise FetchError(f"{c.name}: {url} has SHA-256 {digest.hexdigest()}, "
                             f"the pinned one is {c.sha256}")
        _unpack_single_top(archive, target)
    return target


def make_git_repo(root: Path) -> None:
    """Turn root into a git repository with one reproducible commit of all files, unless it is one."""
    if (root / ".git").exists():
        return
    ensure_owned(root)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_DATE": FIXED_DATE,
        "GIT_COMMITTER_DATE": FIXED_DATE,
    }
    git = ["git", "-c", f"safe.directory={root}"]
    _run([*git, "init", "-q", "--template=", "-b", "main", str(root)], env=env)
    for key, value in (("user.name", "spyglass corpus"), ("user.email", "corpus@spyglass.invalid"),
                       ("commit.gpgsign", "false"), ("core.autocrlf", "false"), ("gc.auto", "0")):
        _run([*git, "config", key, value], cwd=root, env=env)
    _run([*git, "add", "-A", "-f", "."], cwd=root, env=env)
    _run([*git, "commit", "-q", "--no-verify", "-m", f"corpus {root.name}"], cwd=root, env=env)
    # Pack in the foreground: no detached auto-gc may rewrite .git while callers copy the tree.
    _run([*git, "gc", "-q"], cwd=root, env=env)


def fetch(name: str, dest: Path | None = None, git: bool = False) -> Path:
    """Fetch one named corpus into dest (idempotent) and return its unpacked directory."""
    corpus = CORPORA.get(name)
    if corpus is None:
        raise FetchError(f"unknown corpus {name!r}; known: {', '.join(CORPORA)}")
    dest = (dest or default_dest()).expanduser().resolve()
    if dest == REPO_ROOT or REPO_ROOT in dest.parents:
        raise FetchError(f"refusing to fetch into the repository ({dest}); corpora live outside it")
    dest.mkdir(parents=True, exist_ok=True)
    if corpus.kind == "pypi":
        path = _fetch_pypi(corpus, dest)
    elif corpus.kind == "npm":
        path = _fetch_npm(corpus, dest)
    elif corpus.kind == "debzip":
        path = _fetch_debzip(corpus, dest)
    elif corpus.kind == "debian":
        path = _fetch_debian(corpus, dest)
    elif corpus.kind == "debsrc":
        path = _fetch_debsrc(corpus, dest)
    else:
        path = _fetch_go(corpus, dest, git)
        if not git:
            return path
    ensure_owned(path)
    if git:
        make_git_repo(path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"one of: {', '.join(CORPORA)}")
    parser.add_argument("--tests", action="store_true",
                        help=f"fetch the test suite's corpora ({', '.join(TEST_CORPORA)})")
    parser.add_argument("--debian-packages", action="store_true",
                        help="print the Debian packages the Go corpora need, one a line")
    parser.add_argument("--dest", type=Path, default=None, help="cache directory (default: $SPYGLASS_CORPORA or ~/.cache/spyglass/corpora)")
    parser.add_argument("--git", action="store_true", help="make each tree a git repo with one commit")
    args = parser.parse_args(argv)
    if args.debian_packages:
        print("\n".join(debian_packages()))
        return 0
    if args.tests:
        args.names = [*args.names, *TEST_CORPORA]
    if not args.names:
        parser.error("name a corpus, or give --tests")
    unknown = [n for n in args.names if n not in CORPORA]
    if unknown:
        parser.error(f"unknown corpus: {', '.join(unknown)} (known: {', '.join(CORPORA)})")
    status = 0
    for name in args.names:
        try:
            print(fetch(name, args.dest, args.git), flush=True)
        except (FetchError, OSError, tarfile.TarError) as exc:  # urllib's URLError is an OSError
            print(f"fetch_corpus: {name}: {exc}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
