"""git for the benchmarks: porcelain (clone, checkout) on pinned corpora, with the git
gateway's static hardening (no hooks, fsmonitor, pager, external diff, transports)."""

from __future__ import annotations

import os

from spyglass.index.gitcall import static_options

GIT_SAFETY = static_options()


def git_env() -> dict[str, str]:
    """The caller's environment without GIT_* variables, system config or prompts."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0",
               LC_ALL="C")
    return env
