"""The SPYGLASS_MCP_TOOLS filter: which tools a server offers, decided from the environment."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TextIO

from spyglass.config import ALL_TOOLS

ENV_VAR = "SPYGLASS_MCP_TOOLS"
ALWAYS = "code_explore"


@dataclass(frozen=True)
class ToolFilter:
    """The resolved filter: the selected names (in ALL_TOOLS order) and the names ignored.

    `present` records whether the variable was set at all: unset and empty are different
    answers (every tool versus `code_explore` alone)."""

    selected: tuple[str, ...]
    unknown: tuple[str, ...] = ()
    present: bool = False
    raw: str = ""


def parse_tool_filter(value: str) -> tuple[set[str], list[str]]:
    """Split a set value on commas; classify each non-empty name as known or unknown."""
    known: set[str] = set()
    unknown: list[str] = []
    for part in value.split(","):
        name = part.strip()
        if not name:
            continue
        if name in ALL_TOOLS:
            known.add(name)
        elif name not in unknown:
            unknown.append(name)
    return known, unknown


def resolve_tool_filter(environ: Mapping[str, str]) -> ToolFilter:
    """Unset → every tool; set → `code_explore` plus the named tools ("" → explore alone).

    Presence is membership in the environment, never the truthiness of its value."""
    if ENV_VAR not in environ:
        return ToolFilter(selected=ALL_TOOLS)
    raw = environ[ENV_VAR]
    known, unknown = parse_tool_filter(raw)
    known.add(ALWAYS)
    return ToolFilter(selected=tuple(t for t in ALL_TOOLS if t in known),
                      unknown=tuple(unknown), present=True, raw=raw)


def warn_tool_filter(out: TextIO, flt: ToolFilter, offered: Iterable[str] | None = None) -> None:
    """One stderr line per ignored name, then one line naming the resulting tool set.

    Never fatal, and never a silent fallback to the default set: a value made only of typos
    narrows the server to `code_explore`, and this line is what tells the operator so."""
    if not flt.unknown:
        return
    known = ", ".join(ALL_TOOLS)
    out.writelines(f"spyglass: {ENV_VAR}: unknown tool {name!r} ignored (known: {known})\n"
                   for name in flt.unknown)
    tools = list(offered) if offered is not None else list(flt.selected)
    out.write(f"spyglass: {ENV_VAR}={flt.raw!r} → serving {len(tools)} tool(s): "
              f"{', '.join(tools) or '(none)'}\n")
    out.flush()
