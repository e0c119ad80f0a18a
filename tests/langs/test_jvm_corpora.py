"""Real projects in Java, Kotlin and C# indexed through CodeIntel (fetched from the
registries by `scripts/bootstrap.sh --corpora`), with hand-checked sites: J2Ddemo (Debian
openjdk-17-demo), react-native-webview's Android sources (npm; Java and Kotlin under
src/main/java), pythonnet's C# runtime (PyPI sdist)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from corpora import reads

from spyglass.query.facade import CodeIntel

WEBVIEW = "android/src/main/java/com/reactnativecommunity/webview"


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
