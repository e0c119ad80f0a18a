"""Real projects in Java, Kotlin and C# indexed through CodeIntel (fetched from the
registries by `scripts/bootstrap.sh --corpora`), with hand-checked sites: J2Ddemo (Debian
openjdk-17-demo), react-native-webview's Android sources (npm; Java and Kotlin under
src/main/java), expo-file-system's Android sources (npm; Kotlin only), pythonnet's C#
runtime (PyPI sdist). Scala's real project is jawn (tests/langs/test_scala_corpus.py)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from corpora import reads

from spyglass.query.facade import CodeIntel

WEBVIEW = "android/src/main/java/com/reactnativecommunity/webview"
EXPO_FS = "src/main/java/expo/modules/filesystem"


def _index(src: Path, tmp_path: Path) -> CodeIntel:
    """A copy of the corpus indexed from disk (the cache is never written)."""
    root = tmp_path / src.name
    shutil.copytree(src, root, ignore=shutil.ignore_patterns(".git", ".spyglass"))
    ci = CodeIntel(root)
    ci.index()
    return ci


def _lines(result: object, path: str) -> set[int]:
    return {r.start_line for r in result.results if r.path == path}  # type: ignore[attr-defined]


def _symbols(ci: CodeIntel, path: str) -> dict[str, str]:
    return {r.symbol: r.kind for r in ci.structure(path).results}  # type: ignore[attr-defined]


@reads("j2ddemo")
def test_j2ddemo_java(corpus: Callable[[str], Path], tmp_path: Path) -> None:
    ci = _index(corpus("j2ddemo"), tmp_path)
    outline = _symbols(ci, "java2d/Surface.java")
    assert outline["java2d.Surface"] == "class"
    assert outline["java2d.Surface.render"] == "method"
    status = ci.diagnostics(["java2d/Surface.java"])
    assert not status.results  # type: ignore[attr-defined]
    # Surface (abstract, `extends JPanel`) is extended across packages: `extends Surface`
    # in java2d/demos/*/ files that import java2d.Surface.
    refs = ci.references(path="java2d/Surface.java", line=78, column=23)
    files = {r.path for r in refs.results}  # type: ignore[attr-defined]
    assert "java2d/demos/Colors/BullsEye.java" in files
    # javac (bench/accuracy/JavaOracle.java) finds uses in 19 files; grep finds the word
    # in 27 (comments, Intro's own nested `Surface`, other classes' members).
    assert len(files) == 19 and "java2d/Intro.java" not in files


@reads("rn_webview")
def test_react_native_webview_java_and_kotlin(corpus: Callable[[str], Path],
                                              tmp_path: Path) -> None:
    ci = _index(corpus("rn_webview"), tmp_path)
    java = f"{WEBVIEW}/RNCWebView.java"
    assert _symbols(ci, java)["com.reactnativecommunity.webview.RNCWebView"] == "class"
    # dispatchEvent (line 408) is called bare in RNCWebView's methods: lines 138, 193,
    # 346 (inside an inner class), 357, 404.
    calls = ci.callers(path=java, line=408, column=20)
    assert {138, 193, 357, 404} <= _lines(calls, java)
    kotlin = f"{WEBVIEW}/RNCWebViewManager.kt"
    outline = _symbols(ci, kotlin)
    assert outline["com.reactnativecommunity.webview.RNCWebViewManager"] == "class"
    name = "com.reactnativecommunity.webview.RNCWebViewManager.getDownloadingMessageOrDefault"
    assert outline[name] == "method"
    used = ci.references(path=kotlin, line=271, column=17)
    assert _lines(used, kotlin) == {159, 164}
    # Kotlin calling Java in the same package: `view.webView.setMessagingEnabled(value)`
    # (view: RNCWebViewWrapper, a Kotlin class whose `webView` is the Java RNCWebView).
    messaging = ci.references(path=java, line=287, column=18)
    assert _lines(messaging, kotlin) == {561}


@reads("expo_fs")
def test_expo_file_system_kotlin(corpus: Callable[[str], Path], tmp_path: Path) -> None:
    ci = _index(corpus("expo_fs") / "android", tmp_path)  # the Kotlin sources only
    legacy = f"{EXPO_FS}/legacy/FileSystemLegacyModule.kt"
    outline = _symbols(ci, legacy)
    assert outline["expo.modules.filesystem.legacy.FileSystemLegacyModule"] == "class"
    assert not ci.diagnostics([legacy]).results  # type: ignore[attr-defined]
    # Two private overloads share one name: ensurePermission(uri, permission, errorMsg)
    # (line 791) and ensurePermission(uri, permission) (line 798, which calls the first
    # three times). Each call binds to the one taking its argument count, certain; the
    # call at 249 spreads its three arguments over four lines.
    three = ci.callers(path=legacy, line=791, column=15)
    assert {(r.start_line, r.uncertain) for r in three.results} == {  # type: ignore[attr-defined]
        (n, False) for n in (211, 249, 280, 800, 803, 805)}
    two = ci.callers(path=legacy, line=798, column=15)
    assert _lines(two, legacy) == {131, 183, 195, 255, 282, 341, 359, 394, 395, 408, 424,
                                   443, 556, 879}
    # validatePermission, a method of the abstract FileSystemPath, is called bare from its
    # subclasses FileSystemFile and FileSystemDirectory and on typed values (`to.`).
    path = f"{EXPO_FS}/FileSystemPath.kt"
    used = ci.references(path=path, line=132, column=7)
    assert _lines(used, f"{EXPO_FS}/FileSystemDirectory.kt") == {27, 34, 59, 79, 88, 110}
    assert {87, 166, 167, 177, 178, 191} == _lines(used, path)
    assert 65 in _lines(used, f"{EXPO_FS}/FileSystemDownload.kt")
    # write(String, …), write(NativeArrayBuffer, …) and write(ByteArray, …) all take two
    # arguments: the count does not decide, so each call is a flagged candidate.
    writes = ci.references(path=f"{EXPO_FS}/FileSystemFile.kt", line=125, column=7)
    module = f"{EXPO_FS}/FileSystemModule.kt"
    assert _lines(writes, module) == {46, 48, 53}
    assert all(r.uncertain and "overloads" in r.evidence  # type: ignore[attr-defined]
               for r in writes.results)  # type: ignore[attr-defined]


@reads("pythonnet")
def test_pythonnet_csharp(corpus: Callable[[str], Path], tmp_path: Path) -> None:
    ci = _index(corpus("pythonnet"), tmp_path)
    engine = "src/runtime/PythonEngine.cs"
    outline = _symbols(ci, engine)
    assert outline["Python.Runtime.PythonEngine"] == "class"
    assert outline["Python.Runtime.PythonEngine.Initialize"] == "method"
    # Runtime.Initialize (Runtime.cs:101) is called as `Runtime.Initialize(initSigs)` from
    # PythonEngine.Initialize (a class of the same namespace, seen bare).
    calls = ci.callers(path="src/runtime/Runtime.cs", line=101, column=30)
    assert 214 in _lines(calls, engine)
    # `#if` lines inside a parameter list are beyond the grammar: the file's diagnostics
    # say so, and its members are still there, under the namespace its text declares.
    finalizer = ci.diagnostics(["src/runtime/Finalizer.cs"])
    assert finalizer.results  # type: ignore[attr-defined]
    assert _symbols(ci, "src/runtime/Finalizer.cs")["Python.Runtime.CollectArgs"] == "class"
