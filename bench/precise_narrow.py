"""A later commit's narrowed precise pass against the full one (docs/precise.md, "A later
commit"): a private git copy of a Python repository is indexed and passed in full, then
one file gets a one-line change, committed, and the pass runs again; prints each pass's
time and peak memory, which folder the second re-ran, and whether the documents it
re-made equal the full run's (they must: the tool's symbols do not depend on its target).

    PYTHONPATH=src .venv/bin/python bench/precise_narrow.py REPO_DIR CHANGED_FILE

Prints JSON, then a table."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from spyglass.config import PreciseConfig, load_config
from spyglass.index.store import connect
from spyglass.query.facade import CodeIntel

GIT = ["git", "-c", "core.hooksPath=/dev/null", "-c", "user.name=bench",
       "-c", "user.email=bench@invalid"]


def measure(src: Path, rel: str) -> dict[str, Any]:
    parent = Path(tempfile.mkdtemp(prefix="spyglass-narrow-"))
    root = parent / src.name
    try:
        shutil.copytree(src, root, ignore=shutil.ignore_patterns(".git", ".spyglass"))
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        for args in (["add", "-A"], ["commit", "-qm", "base"]):
            subprocess.run(GIT + args, cwd=root, check=True)
        os.environ.pop("SPYGLASS_PRECISE", None)
        config = replace(load_config(repo_root=root), precise=PreciseConfig(
            enabled="true", timeout_s=7200, memory_mb=8192))
        ci = CodeIntel(root, config=config)
        first = ci.index(precise="off")
        full = ci.precise_pass(first.id, "wait")
        with (root / rel).open("a", encoding="utf-8") as fh:
            fh.write("\n# a one-line change (bench/precise_narrow.py)\n")
        subprocess.run(GIT + ["commit", "-qam", "one file"], cwd=root, check=True)
        start = time.perf_counter()
        second = ci.index(precise="off")
        index_s = time.perf_counter() - start
        narrow = ci.precise_pass(second.id, "wait")
        conn = connect(root)
        try:
            def docs(snap: int) -> dict[str, tuple[str, str]]:
                return {str(p): (str(o), str(i)) for p, o, i in conn.execute(
                    "SELECT path, occ, import FROM scip_docs WHERE snapshot = ?", (snap,))}
            a, b = docs(first.id), docs(second.id)
        finally:
            conn.close()
        remade = [p for p in b if b[p][1] != a.get(p, ("", ""))[1]]
        return {"repo": str(src), "changed": rel, "load": os.getloadavg(),
                "full": [{"state": r.state, "seconds": r.seconds, "peak_mb": r.peak_mb,
                          "files": r.files} for r in full],
                "commit_index_s": round(index_s, 2),
                "narrowed": [{"state": r.state, "seconds": r.seconds, "peak_mb": r.peak_mb,
                              "files": r.files, "note": r.error} for r in narrow],
                "remade": len(remade), "remade_differ": sorted(
                    p for p in remade if p in a and a[p][0] != b[p][0]),
                "documents": [len(a), len(b)]}
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = measure(Path(args[0]).resolve(), args[1])
    print(json.dumps(out, indent=1))
    for f, n in zip(out["full"], out["narrowed"]):
        print(f"full pass {f['seconds']} s, {f['peak_mb']} MB, {f['files']} files; 1-file "
              f"commit: index {out['commit_index_s']} s, pass {n['seconds']} s, "
              f"{n['peak_mb']} MB ({n['note']}); re-made {out['remade']} documents, "
              f"{len(out['remade_differ'])} differ from the full run's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
