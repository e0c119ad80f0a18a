"""A reader process for the concurrency test: query in a loop, classify every answer."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from spyglass.config import Config
from spyglass.query.facade import CodeIntel


def main(root: str, name: str, expect_path: str) -> None:
    expect = json.loads(Path(expect_path).read_text())
    sets = {label: set(names) for label, names in expect["sets"].items()}
    commits = expect["commits"]
    ci = CodeIntel(root, config=Config(live_reparse=False))
    folder = Path(expect_path).parent
    seen_b = 0
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and seen_b < 5:
        try:
            result = ci.find_symbol("*")
            names = {r.symbol.rsplit(".", 1)[-1] for r in result.results}  # type: ignore[attr-defined]
            commit = result.provenance.commit
            label = next((k for k, v in sets.items() if v == names and commits[k] == commit),
                         None)
            out = {"answer": label or "MIXED", "commit": commit, "n": len(names)}
            if label is None:
                out["names"] = sorted(names)[:10]
        except Exception as exc:  # noqa: BLE001 - every error is a failure, `database is locked` included
            out = {"answer": "ERROR", "error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(out), flush=True)
        if out["answer"] == "B":
            seen_b += 1
        (folder / f"ready-{name}").touch()


if __name__ == "__main__":
    main(*sys.argv[1:4])
