"""Security suite: the figures the fuzz and race tests collected, in the terminal report."""

from __future__ import annotations

from collections import Counter
from typing import Any

import surfaces


def pytest_terminal_summary(terminalreporter: Any) -> None:
    fuzz = surfaces.FUZZ
    if not fuzz and not surfaces.SUMMARY:
        return
    terminalreporter.section("security suite")
    if fuzz:
        n = max(c["calls"] for c in fuzz.values())
        total: Counter[str] = sum(fuzz.values(), start=Counter())
        terminalreporter.write_line(
            f"confinement fuzz: {n} paths x {len(fuzz)} surfaces, {total['leaks']} leaks, "
            f"{total['tracebacks']} tracebacks, {total['server_errors']} 5xx, "
            f"{total['unwritable']} non-UTF-8 outputs")
        for surface, c in fuzz.items():
            extra = (f"; {c['client_refused']} URLs over the HTTP client's 64 KiB limit"
                     if c["client_refused"] else "")
            terminalreporter.write_line(
                f"  {surface}: {c['calls']} calls, {c['answered']} answered, the rest refused "
                f"with a reason{extra}")
    for line in surfaces.SUMMARY:
        terminalreporter.write_line(line)
