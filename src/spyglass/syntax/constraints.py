"""Build constraints: the expression a file's header comments restrict its build to."""

from __future__ import annotations

from spyglass.syntax.langpack import LanguagePack

HEADER_BYTES = 16384  # a build constraint sits in the file's leading comments


def build_constraint(pack: LanguagePack, data: bytes) -> str:
    """The file's build constraint as written (manifest `build_constraint`, a regex whose
    group 1 is the expression, matched on the comment lines before the first code line:
    Go ``//go:build linux && !cgo``); read, never evaluated; "" if none."""
    regex = pack.constraint_pattern
    if regex is None:
        return ""
    for raw in data[:HEADER_BYTES].splitlines():
        line = raw.decode("utf-8", "replace").strip()
        if not line:
            continue
        if not line.startswith(("//", "/*", "*")):
            return ""  # the header ends at the first code line (`package x`)
        m = regex.match(line)
        if m:
            return m.group(1).strip()
    return ""
