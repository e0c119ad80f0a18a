"""Name-matched candidates are ranked and capped per answer (query/candidates.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from spyglass.query.candidates import MAX_NAME_MATCHES
from spyglass.query.facade import CodeIntel

MakeRepo = Callable[..., Path]
EXTRA = 30


def test_common_name_cannot_flood_an_answer(make_repo: MakeRepo) -> None:
    n = MAX_NAME_MATCHES + EXTRA
    far = "".join(f"def use{i}(a, b):\n    (a or b).flush()\n\n\n" for i in range(n))
    near = "def near(a, b):\n    (a or b).flush()\n\n\ndef own(store):\n    store.flush()\n"
    root = make_repo({
        "pkg/__init__.py": "",
        "pkg/buffer.py": "class Buffer:\n    def flush(self):\n        return 1\n\n\n"
                         "def helper(buffer, other):\n    (buffer or other).flush()\n",
        "pkg/near.py": near,
        "other/far.py": far,
    })
    ci = CodeIntel(root)
    ci.index()
    answer = ci.references(path="pkg/buffer.py", line=2, column=9)
    names = [r for r in answer.results if "matched by name" in r.evidence]
    assert len(names) == MAX_NAME_MATCHES  # capped, the rest counted in the limitations
    notes = [n for n in answer.coverage.limitations if "name-matched candidate" in n]
    assert len(notes) == 1 and notes[0].startswith(f"{n + 2 - MAX_NAME_MATCHES} ")
    paths = {r.path for r in names}
    assert {"pkg/buffer.py", "pkg/near.py"} <= paths  # nearest to the definition kept
    assert sum(r.path == "other/far.py" for r in names) == MAX_NAME_MATCHES - 2
