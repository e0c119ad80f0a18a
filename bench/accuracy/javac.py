"""The Java oracle: JavaOracle.java (the JDK compiler API, JavacTask + Trees) compiled at
bench time, run once over a corpus copy; its uses answer every sampled target."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

from accuracy.corpora import AccuracyCorpus
from accuracy.sample import SEED, Target

HERE = Path(__file__).resolve().parent
WORK = Path.home() / ".cache" / "spyglass" / "accuracy"
Use = tuple[str, int, int, str]  # path, line, col, role


def _tool(name: str) -> str:
    home = os.environ.get("JAVA_HOME")
    found = str(Path(home) / "bin" / name) if home else shutil.which(name)
    if not found:
        raise RuntimeError(f"{name} not found: the Java oracle needs a JDK (OpenJDK 17)")
    return found


def version() -> str:
    out = subprocess.run([_tool("javac"), "-version"], capture_output=True, text=True,
                         check=False)
    return (out.stdout or out.stderr).strip() + " (JavacTask + Trees, bench/accuracy/JavaOracle.java)"


def compile_oracle(work: Path = WORK) -> Path:
    """JavaOracle.java compiled into the work folder (again when the source changed)."""
    out = work / "java-oracle"
    source = HERE / "JavaOracle.java"
    stamp = out / "JavaOracle.class"
    if not stamp.exists() or stamp.stat().st_mtime < source.stat().st_mtime:
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run([_tool("javac"), "-d", str(out), str(source)], check=True)
    return out


def java_files(root: Path, include: tuple[str, ...]) -> list[str]:
    files: list[str] = []
    for sub in include:
        files += [p.relative_to(root).as_posix() for p in sorted((root / sub).rglob("*.java"))]
    return sorted(set(files))


def uses(root: Path, include: tuple[str, ...], work: Path = WORK,
         options: tuple[str, ...] = ()) -> dict[tuple[str, int, str], list[Use]]:
    """Every resolved use, by its declaration (path, line, name); `options` go to javac
    (``{root}`` is the corpus copy)."""
    classes = compile_oracle(work)
    table = classes / f"{root.name}.tsv"
    env = {**os.environ, "JAVA_ORACLE_OPTIONS": "\n".join(
        o.format(root=root) for o in options)}
    subprocess.run([_tool("java"), "-cp", str(classes), "JavaOracle", str(root), str(table),
                    *java_files(root, include)], check=True, env=env)
    out: dict[tuple[str, int, str], list[Use]] = defaultdict(list)
    for row in table.read_text(encoding="utf-8").splitlines():
        upath, uline, ucol, role, dpath, dline, _dcol, dname = row.split("\t")
        out[(dpath, int(dline), dname)].append((upath, int(uline), int(ucol), role))
    return out


def ask(corpus: AccuracyCorpus, root: Path, targets: list[Target],
        log: Any = print) -> dict[str, Any]:
    """The oracle document (the same shape as the language servers' answers)."""
    found = uses(root, corpus.include, options=corpus.javac_options)
    rows: list[dict[str, Any]] = []
    for i, t in enumerate(targets):
        sites = sorted(set(found.get((t.path, t.line, t.name), [])))
        refs = [[p, ln, c] for p, ln, c, _ in sites]
        calls = [[p, ln, c] for p, ln, c, role in sites if role == "call"]
        rows.append({"path": t.path, "line": t.line, "col": t.col, "name": t.name,
                     "kind": t.kind, "group": t.group, "refs": refs, "calls": calls})
        log(f"  [{i + 1}/{len(targets)}] {t.path}:{t.line} {t.name}: "
            f"{len(refs)} refs, {len(calls)} calls")
    return {"corpus": corpus.name, "language": corpus.language, "oracle": version(),
            "date": dt.date.today().isoformat(), "sample_rule": f"bench/accuracy/sample.py v1 "
            f"seed {SEED}", "dropped": [], "targets": rows}
