"""The written, reproducible rule that picks the target symbols of one corpus.

Rule (version 1):

1. Candidates are the definitions spyglass's extraction finds in every supported source file
   under the corpus's ``source_dirs`` that is not a test file (by the language pack's test
   conventions), walking directories in sorted order and skipping spyglass's skipped
   directories. Kinds: functions, methods, classes (and struct/interface/type/enum),
   constants. Dunder names (``__x__``), names shorter than two characters and
   ``init``/``main`` functions are left out.
2. Candidates fall in five groups: ``common`` (a function or method whose name is one of
   COMMON_NAMES, e.g. get, run, write), ``method``, ``func``, ``class``, ``const``.
3. A ``random.Random(f"{corpus}:{SEED}")`` shuffles each group's candidates (listed in
   (path, line) order). Picks go in rounds, one per group in GROUPS order while the group
   is under its quota (QUOTAS × n), each taking the group's next candidate whose file has
   fewer than MAX_PER_FILE picks. Places left over go to the groups in GROUPS order.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path

from spyglass.config import DEFAULT_SKIP_DIRS, UNTRACKED_SKIP_DIRS
from spyglass.index.source import ALWAYS_SKIPPED

SKIP_DIRS = frozenset({*DEFAULT_SKIP_DIRS, *UNTRACKED_SKIP_DIRS, *ALWAYS_SKIPPED})
from spyglass.syntax.extract import extract
from spyglass.syntax.langpack import pack_for_path

SEED = 1
MAX_PER_FILE = 4
COMMON_NAMES = frozenset({
    "get", "set", "run", "write", "read", "close", "open", "send", "request", "update",
    "add", "build", "call", "handle", "execute", "start", "stop", "load", "save", "delete",
    "put", "post", "parse", "render", "dispatch", "process", "apply", "copy", "reset",
    "register", "next", "pipe", "subscribe", "complete", "error", "create", "String",
    "Error", "Write", "Read", "Close", "Run", "Execute", "Get", "Set", "Add", "Name",
    "Collect", "Describe", "Inc", "Observe", "Reset", "Help", "Usage", "Flags",
})
GROUPS = ("common", "method", "func", "class", "const")
QUOTAS = {"common": 0.15, "method": 0.30, "func": 0.25, "class": 0.18, "const": 0.12}
CLASS_KINDS = frozenset({"class", "struct", "interface", "type", "enum"})


@dataclass(frozen=True)
class Target:
    """One sampled definition: where its name is and what it is."""

    path: str
    line: int  # 1-based line of the name
    col: int  # 0-based column of the name
    name: str
    kind: str
    group: str


def _group(kind: str, name: str) -> str | None:
    if kind in ("func", "method") and name in COMMON_NAMES:
        return "common"
    if kind == "method":
        return "method"
    if kind == "func":
        return "func"
    if kind in CLASS_KINDS:
        return "class"
    if kind == "const":
        return "const"
    return None


def source_files(root: Path, source_dirs: tuple[str, ...], family: str | None = None
                 ) -> list[str]:
    """Supported, non-test files under the source dirs, as sorted relative paths (with
    `family`, only the files of packs resolved by that pack's resolver: a C corpus's
    Python helper scripts are not targets of clangd)."""
    out: list[str] = []
    for sub in source_dirs:
        for dirpath, dirnames, filenames in os.walk(root / sub):
            dirnames[:] = sorted(d for d in dirnames
                                 if d not in SKIP_DIRS and not d.startswith("."))
            for name in sorted(filenames):
                rel = Path(dirpath, name).relative_to(root).as_posix()
                pack = pack_for_path(rel)
                if pack is not None and not pack.is_test_file(rel) \
                        and (family is None or pack.resolver == family) \
                        and not rel.endswith((".d.ts", ".d.mts", ".d.cts")):
                    out.append(rel)
    return sorted(set(out))


def candidates(root: Path, source_dirs: tuple[str, ...], family: str | None = None
               ) -> list[Target]:
    """Every candidate definition of rule step 1, in (path, line) order."""
    out: list[Target] = []
    for rel in source_files(root, source_dirs, family):
        text = (root / rel).read_bytes()
        pack = pack_for_path(rel, text)  # a `.h` whose text is C++ is the C++ pack's
        assert pack is not None
        facts = extract(pack, text)
        for d in facts.definitions:
            name = d.name
            if len(name) < 2 or (name.startswith("__") and name.endswith("__")):
                continue
            if d.kind == "func" and name in ("init", "main"):
                continue
            group = _group(d.kind, name)
            if group is not None:
                out.append(Target(rel, d.name_line, d.name_col, name, d.kind, group))
    out.sort(key=lambda t: (t.path, t.line, t.col))
    return out


def sample(corpus: str, root: Path, source_dirs: tuple[str, ...], n: int,
           family: str | None = None) -> list[Target]:
    """Apply the rule: n targets spread over files and groups, reproducibly."""
    rng = random.Random(f"{corpus}:{SEED}")
    found = candidates(root, source_dirs, family)
    pool = {g: [t for t in found if t.group == g] for g in GROUPS}
    for g in GROUPS:
        rng.shuffle(pool[g])
    per_file: dict[str, int] = {}
    want = {g: round(QUOTAS[g] * n) for g in GROUPS}
    got = dict.fromkeys(GROUPS, 0)
    picked: list[Target] = []
    cursor = dict.fromkeys(GROUPS, 0)

    def draw(g: str) -> bool:
        while cursor[g] < len(pool[g]):
            t = pool[g][cursor[g]]
            cursor[g] += 1
            if per_file.get(t.path, 0) < MAX_PER_FILE:
                per_file[t.path] = per_file.get(t.path, 0) + 1
                picked.append(t)
                got[g] += 1
                return True
        return False

    progress = True
    while progress and len(picked) < n:  # rounds: one pick per group still under quota
        progress = False
        for g in GROUPS:
            if got[g] < want[g] and len(picked) < n:
                progress = draw(g) or progress
    for g in GROUPS:  # places a group could not fill go to the next groups, in order
        while len(picked) < n and draw(g):
            pass
    return sorted(picked, key=lambda t: (t.path, t.line, t.col))
