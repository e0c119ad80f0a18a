"""Names a C macro pastes from its arguments: `SDS_HDR(16, s)` with `struct sdshdr##T`.

A function-like macro whose body pastes a parameter to a word (`sdshdr##T`, `T##_free`)
makes a name at each invocation from that argument; clangd counts the invocation as a use
of the name it makes. The index extracts nothing there for that name, so a use would be
silent. This reads the macros of the target's file and of the files including it directly,
and for each one that pastes a word the target's name starts or ends with, the invocations
whose argument completes the name (docs/c.md "Macros that paste names"). An operand of `##`
is pasted as written, never expanded, so the name is proven (`proven`: listed certain) when
the invocation is bound to the macro for certain, the macro has one definition, and the
name made has one definition, the target; else listed flagged.
"""

from __future__ import annotations

import re

from spyglass.query import accounting, proofs
from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import (
    DEF_COLS,
    DEF_FROM,
    REF_COLS,
    REF_FROM,
    chunks,
    defs,
    defs_by_full,
    marks,
    refs,
)
from spyglass.query.view import View

MAX_FILES = 256  # files whose macros are read for one name (more: none are, a bound)
MAX_LINES = 16  # continuation lines of one `#define` read
_PASTE = re.compile(r"(\w*)\s*##\s*(\w*)")
_PARAMS = re.compile(r"#\s*define\s+\w+\(([^)]*)\)(.*)", re.DOTALL)


def sites(view: View, d: DefRow) -> list[tuple[RefRow, str, bool]]:
    """Invocations of macros that paste `d`'s name from an argument, with the evidence and
    whether the name made is proven to be `d` (module docstring)."""
    if d.kind not in ("struct", "type", "func", "var", "macro", "const") or len(d.name) < 3:
        return []
    files = _direct_includers(view, d.path)
    if len(files) > MAX_FILES:
        return []
    out: list[tuple[RefRow, str, bool]] = []
    alone = _only_definition(view, d)
    for macro in _macros(view, files):
        at = _pasted_at(view, macro, d.name)
        if at is None:
            continue
        one = alone and len(defs_by_full(view, [macro.full])) == 1
        proven = proofs.prover(view, macro) if one else None
        index, prefix, suffix = at
        why = (f"macro {macro.name} ({macro.path}:{macro.name_line}) pastes "
               f"`{prefix}##…##{suffix}` from its argument, which makes {d.name} here")
        for r in refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.name = ? AND "
                                "r.target = ?", (macro.name, macro.full))):
            arg = _argument(view, r, index)
            if arg is not None and prefix + arg + suffix == d.name:
                out.append((RefRow(unit=r.unit, name=d.name, line=r.line, col=r.col,
                                   end_col=r.end_col, role="ref", scope=r.scope, qualifier="",
                                   head="", target=d.full, conf="inferred", path=r.path,
                                   language=r.language, source=r.source, stale=r.stale), why,
                            proven is not None and (r.conf == "exact" or proven(r))))
    return out


def _only_definition(view: View, d: DefRow) -> bool:
    """Whether `d` is the one definition of its name in `d`'s language (the name made by a
    paste then means it)."""
    return all((o.unit, o.idx) == (d.unit, d.idx) for o in defs(view.each(
        f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.name = ?", (d.name,))) if o.language == d.language)


def _direct_includers(view: View, path: str) -> set[str]:
    """`path` and the files whose `#include` names it (one level: the whole closure of a
    widely included header would cost every C answer a walk)."""
    return {path} | {str(p) for (p,) in view.each(
        "SELECT DISTINCT f.path FROM {refs} r JOIN temp.vfiles f ON f.unit = r.unit WHERE "
        "r.target = ? AND r.role = 'import'", (path,))}


def _macros(view: View, files: set[str]) -> list[DefRow]:
    out: list[DefRow] = []
    for chunk in chunks(sorted(files)):
        out += defs(view.each(f"SELECT {DEF_COLS} {DEF_FROM} WHERE d.kind = 'macro' AND "
                              f"f.path IN ({marks(chunk)})", tuple(chunk)))
    return out


def _pasted_at(view: View, macro: DefRow, name: str) -> tuple[int, str, str] | None:
    """(parameter position, word before, word after) when `macro`'s body pastes one of its
    parameters to a word `name` starts or ends with (`sdshdr##T`: (0, "sdshdr", ""))."""
    lines = accounting.file_lines(view, macro.path)
    first = macro.name_line - 1
    if first >= len(lines) or "##" not in "".join(lines[first:first + MAX_LINES]):
        return None
    text, i = lines[first], first
    while text.rstrip().endswith("\\") and i + 1 < len(lines) and i - first < MAX_LINES:
        i += 1
        text = text.rstrip()[:-1] + " " + lines[i]
    m = _PARAMS.search(text)
    if m is None:
        return None
    params = [p.strip() for p in m.group(1).split(",")]
    for paste in _PASTE.finditer(m.group(2)):
        left, right = paste.group(1), paste.group(2)
        if right in params and left not in params:
            at, before, after = params.index(right), left, ""
        elif left in params and right not in params:
            at, before, after = params.index(left), "", right
        else:
            continue
        if (before or after) and name.startswith(before) and name.endswith(after) \
                and len(name) > len(before) + len(after):
            return at, before, after
    return None


def _argument(view: View, r: RefRow, index: int) -> str | None:
    """The `index`th argument of the invocation at `r`, as written on its line (one word),
    or None."""
    lines = accounting.file_lines(view, r.path)
    if r.line - 1 >= len(lines):
        return None
    rest = lines[r.line - 1][r.end_col:].lstrip()
    if not rest.startswith("("):
        return None
    depth, args, cur = 0, [], ""
    for ch in rest[1:]:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                args.append(cur.strip())
                break
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
            continue
        cur += ch
    else:
        return None
    arg = args[index] if index < len(args) else ""
    return arg if re.fullmatch(r"\w+", arg) else None
