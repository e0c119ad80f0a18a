"""Declarations a C macro renames: the tokens of a renamed name the index extracted nothing at.

`#define des_set_key _crypt_des_set_key` in a header renames every later token
`des_set_key` of a unit that reads it, also the prototype `extern void des_set_key(…);`
of another header, which the C pack extracts nothing at (a declaration is no reference).
clangd counts such a token as a use of the function it declares. This reads the text of
the files that may see the macro (the files including its file, and the headers those
include) and returns each token of the name outside comments, strings and directives
where the index has neither a reference nor a definition: listed flagged (docs/c.md
"Preprocessor conditions"), as the file may be read before the macro, unless the macro is
the same file's, above the token, or every file including the token's file includes the
macro's file on an earlier line (certain).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from spyglass.query import accounting, includes
from spyglass.query.results import DefRow, RefRow
from spyglass.query.rows import chunks, marks
from spyglass.query.view import View

MAX_FILES = 512  # files read for one renamed name (more: none are, a bound)
MAX_WORD_FILES = 1024  # files whose blanked text a view keeps (per state)
_WORD = re.compile(r"[A-Za-z_]\w*")
# What follows a declared name, by kind: a function's parameter list (a prototype), a
# variable's end of declarator (`extern int n;`, `extern char buf[…]`). A typedef's uses
# are all extracted; a name elsewhere (the argument of a macro the file blanks,
# `__contract__(… sizeof(T) …)`) is no declaration.
DECLARED = {"func": r"(?=\s*\()", "var": r"(?=\s*[;,=\[])"}
# Comments, string and character literals, and directive lines (with their continuations):
# blanked before the name's tokens are looked for.
_NOT_CODE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
                       r"|(?m:^[ \t]*#(?:[^\n]*\\\n)*[^\n]*)", re.DOTALL)


def declarations(view: View, d: DefRow, macros: list[DefRow]) -> list[tuple[RefRow, str]]:
    """Tokens of `d`'s name that the index extracted nothing at, in the files that may see
    one of `macros` (the live macros of `d`'s full name), each with the evidence ("" when
    certain: a macro of the same file, above it, renames the token wherever the file is
    read)."""
    if d.kind not in DECLARED:
        return []
    files: set[str] = set()
    for macro in macros:
        found = includes.includers(view, macro.path)
        if found is None:
            return []
        files |= found
    if len(files) > MAX_FILES:
        return []
    files |= _included(view, files)
    if len(files) > MAX_FILES:
        return []
    units = _units(view, files)
    taken = _extracted(view, d.name)
    first = macros[0]
    why = (f"a declaration of a name macro {first.name} renames ({first.path}:"
           f"{first.name_line}): the token is the macro's expansion, which the declared "
           "function's uses count; the file may read it before the macro")
    token = re.compile(rf"(?<![\w$]){re.escape(d.name)}{DECLARED[d.kind]}")
    out: list[tuple[RefRow, str]] = []
    read = _reader(view)
    homes = sorted({o.path for o in macros})
    for path in sorted(files):
        if path not in units:
            continue
        words, code = read(path)
        if d.name not in words:
            continue
        read_first = _macro_first(view, path, homes)
        for number, text in enumerate(code, 1):
            if d.name not in text:
                continue
            for m in token.finditer(text):
                if (path, number, m.start()) in taken:
                    continue
                above = read_first or any(o.path == path and o.name_line < number for o in macros)
                out.append((RefRow(unit=units[path], name=d.name, line=number, col=m.start(),
                                   end_col=m.end(), role="ref", scope=-1, qualifier="",
                                   head="", target=d.full,
                                   conf="exact" if above else "inferred", path=path,
                                   language=d.language, source=d.source, stale=False),
                            "" if above else why))
    return out


def read_after(view: View, files: set[str], homes: list[str]) -> set[str]:
    """The headers `files` include (one level) that every includer reads after one of
    `homes` (_macro_first): they see the macro though they do not include its file."""
    included = _included(view, files) - files
    return {h for h in included if _macro_first(view, h, homes)} \
        if len(included) <= MAX_FILES else set()


def _macro_first(view: View, path: str, homes: list[str]) -> bool:
    """Whether every file that includes `path` includes one of `homes` (the renaming
    macros' files) itself, on an earlier line (`#include "crypt-port.h"` then `#include
    "alg-des.h"`), and one file does: wherever the header is read, the macro is defined
    above it, so its tokens of the name are the macro's expansion."""
    if path in homes:
        return False
    first: dict[str, int] = {}
    home: dict[str, int] = {}
    wanted = (path, *homes)
    for p, line, target in view.each(
            "SELECT f.path, r.line, r.target FROM {refs} r JOIN temp.vfiles f ON "
            f"f.unit = r.unit WHERE r.role = 'import' AND r.target IN ({marks(wanted)})",
            wanted):
        into = first if str(target) == path else home
        key = str(p)
        into[key] = min(into.get(key, int(str(line))), int(str(line)))
    return bool(first) and all(f in home and home[f] < line for f, line in first.items())


def _reader(view: View) -> Callable[[str], tuple[frozenset[str], list[str]]]:
    """A file's identifiers and its lines with comments, strings and directives blanked,
    kept per state of the view (MAX_WORD_FILES files)."""
    memo = view.memo.get("renamed_code")
    if memo is None or memo[0] != view.state_key or not isinstance(memo[1], dict):
        memo = (view.state_key, {})
        view.memo["renamed_code"] = memo
    cache: dict[str, tuple[frozenset[str], list[str]]] = memo[1]  # type: ignore[assignment]

    def read(path: str) -> tuple[frozenset[str], list[str]]:
        if path not in cache:
            if len(cache) >= MAX_WORD_FILES:
                cache.pop(next(iter(cache)))
            text = "\n".join(accounting.file_lines(view, path))
            code = _NOT_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
            cache[path] = (frozenset(_WORD.findall(code)), code.split("\n"))
        return cache[path]
    return read


def _included(view: View, files: set[str]) -> set[str]:
    """The files `files` include (one level: the headers a unit reads after the macro)."""
    out: set[str] = set()
    for chunk in chunks(sorted(files)):
        out |= {str(t) for (t,) in view.each(
            "SELECT DISTINCT r.target FROM {refs} r JOIN temp.vfiles f ON f.unit = r.unit "
            f"WHERE f.path IN ({marks(chunk)}) AND r.role = 'import' AND r.target IS NOT NULL",
            tuple(chunk))}
    return out


def _units(view: View, files: set[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for chunk in chunks(sorted(files)):
        out.update({str(p): int(str(u)) for p, u in view.conn.execute(
            f"SELECT path, unit FROM temp.vfiles WHERE path IN ({marks(chunk)})",
            tuple(chunk)).fetchall()})
    return out


def _extracted(view: View, name: str) -> set[tuple[str, int, int]]:
    """(path, line, column) of every reference and definition of `name` the index holds."""
    refs = {(str(p), int(str(ln)), int(str(c))) for p, ln, c in view.each(
        "SELECT f.path, r.line, r.col FROM {refs} r JOIN temp.vfiles f ON f.unit = r.unit "
        "WHERE r.name = ?", (name,))}
    return refs | {(str(p), int(str(ln)), int(str(c))) for p, ln, c in view.each(
        "SELECT f.path, d.name_line, d.name_col FROM {defs} d JOIN temp.vfiles f ON "
        "f.unit = d.unit WHERE d.name = ?", (name,))}
