"""The coverage table: per language, the depth reached, as each pack declares it.

Every pack states in its manifest's `[coverage]` table what it reaches for definitions,
references, resolution, callers and tests, and what it does not; the grammar and its
version come from the installed wheel. Languages recognised without a pack
(langs/unsupported.toml) get the explicit limitation of docs/contract.md: every tool
names the language instead of answering with nothing. The README's table and
`code_status` are both built here (scripts/coverage_table.py writes the README's)."""

from __future__ import annotations

from collections.abc import Iterable

from spyglass.query.results import LanguageCoverage
from spyglass.syntax.langpack import LanguagePack, all_packs, known_unsupported

ASPECTS = ("definitions", "references", "resolution", "callers", "tests")
UNDECLARED = "not declared by the pack"
UNSUPPORTED = ("not supported: no language pack; every code_* tool names the language as an "
               "explicit limitation (files listed as skipped) instead of an empty answer")


def of_pack(pack: LanguagePack) -> LanguageCoverage:
    """One pack's row: its `[coverage]` table, its grammar wheel and version."""
    table = pack.manifest.get("coverage", {})
    wheel = pack.grammar_module.replace("_", "-")
    definitions, references, resolution, callers, tests = (
        str(table.get(k, UNDECLARED)) for k in ASPECTS)
    return LanguageCoverage(pack.name, pack.extensions, f"{wheel} {pack.grammar_version}",
                            definitions, references, resolution, callers, tests,
                            str(table.get("limitations", "")))


def unsupported() -> dict[str, tuple[str, ...]]:
    """Languages recognised without a pack, with their extensions (a pack's win)."""
    owned = {e for p in all_packs().values() for e in p.extensions}
    out: dict[str, list[str]] = {}
    for ext, name in known_unsupported().items():
        if ext not in owned:
            out.setdefault(name, []).append(ext)
    return {name: tuple(exts) for name, exts in sorted(out.items())}


def of_unsupported(name: str, extensions: tuple[str, ...]) -> LanguageCoverage:
    """An unsupported language's row: the explicit limitation, nothing reached."""
    return LanguageCoverage(name, extensions, "", "—", "—", "—", "—", "—", UNSUPPORTED,
                            supported=False)


def table() -> tuple[LanguageCoverage, ...]:
    """Every pack's row (by name), then every unsupported language's."""
    packs = sorted(all_packs().values(), key=lambda p: p.name)
    return (*(of_pack(p) for p in packs if p.extensions),
            *(of_unsupported(n, e) for n, e in unsupported().items()))


def for_languages(packs: Iterable[str], others: Iterable[str]) -> tuple[LanguageCoverage, ...]:
    """The rows of the languages a repository holds: pack names, then unsupported ones."""
    loaded = all_packs()
    rows = [of_pack(loaded[n]) for n in sorted(set(packs)) if n in loaded]
    missing = unsupported()
    rows += [of_unsupported(n, missing.get(n, ())) for n in sorted(set(others))]
    return tuple(rows)


def markdown() -> str:
    """The README's table."""
    head = ("| language | grammar | definitions | references | resolution | callers | tests "
            "| limitations |")
    lines = [head, "|" + "---|" * 8]
    rows = table()
    for row in (r for r in rows if r.supported):
        name = f"{row.language} ({', '.join(row.extensions)})"
        cells = [name, row.grammar or "—", row.definitions, row.references, row.resolution,
                 row.callers, row.tests, row.limitations or "—"]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    others = ", ".join(f"{r.language} ({', '.join(r.extensions)})" for r in rows
                       if not r.supported)
    if others:
        lines.append(f"| {others} | — | — | — | — | — | — | {UNSUPPORTED} |")
    return "\n".join(lines) + "\n"
