"""The security suite's figures in the pytest report, also when xdist workers ran the tests:
tests record them as user properties, which travel with the reports to the controller."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

KEY = "security_summary"
COUNT_KEY = "security_count"  # [label, scenarios, surfaces, canaries] (hostile-git suite)
_RECORDS: list[dict[str, Any]] = []


def record(record_property: Callable[[str, object], None], **data: Any) -> None:
    record_property(KEY, json.dumps(data))


def pytest_runtest_logreport(report: Any) -> None:
    if report.when != "call":
        return
    for k, v in getattr(report, "user_properties", ()):
        if k == KEY:
            _RECORDS.append(json.loads(v))
        elif k == COUNT_KEY:
            label, scenarios, surfaces, canaries = v
            _RECORDS.append({"kind": "count", "label": str(label), "scenarios": int(scenarios),
                             "surfaces": int(surfaces), "canaries": int(canaries)})


def lines(records: list[dict[str, Any]]) -> list[str]:
    fuzz: dict[str, Counter[str]] = {}
    for r in records:
        if r["kind"] == "fuzz":
            fuzz.setdefault(r["surface"], Counter()).update(r["counts"])
    out: list[str] = []
    if fuzz:
        total: Counter[str] = sum(fuzz.values(), start=Counter())
        n = max(c["calls"] for c in fuzz.values())
        out.append(f"confinement fuzz: {n} paths x {len(fuzz)} surfaces, {total['leaks']} "
                   f"leaks, {total['tracebacks']} tracebacks, {total['server_errors']} 5xx, "
                   f"{total['unwritable']} non-UTF-8 outputs, {total['raw_control']} raw "
                   "control characters in CLI output")
        for surface, c in fuzz.items():
            extra = (f"; {c['client_refused']} URLs over the HTTP client's 64 KiB limit"
                     if c["client_refused"] else "")
            out.append(f"  {surface}: {c['calls']} calls, {c['answered']} answered, the rest "
                       f"refused with a reason{extra}")
    out += [r["line"] for r in records if r["kind"] in ("race", "line")]
    store = [r for r in records if r["kind"] == "store"]
    if store:
        scenarios = {r["scenario"] for r in store}
        surfaces = {r["surface"] for r in store}
        out.append(f"store writes: {len(store)} runs ({len(scenarios)} hostile scenarios x up "
                   f"to {len(surfaces)} surfaces: {', '.join(sorted(surfaces))}), "
                   f"{sum(r['harmed'] for r in store)} writes outside the root, "
                   f"{sum(r['tracebacks'] for r in store)} tracebacks, "
                   f"{sum(r['wrong'] for r in store)} wrong outcomes")
    counts: dict[str, list[int]] = {}
    for r in records:
        if r["kind"] == "count":
            c = counts.setdefault(r["label"], [0, 0, 0])
            c[0] += r["scenarios"]
            c[1] = max(c[1], r["surfaces"])
            c[2] += r["canaries"]
    out += [f"{label}: {n} scenarios x {s} surfaces, {canaries} canaries"
            for label, (n, s, canaries) in sorted(counts.items())]
    return out


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _RECORDS:
        terminalreporter.section("security suite")
        for line in lines(_RECORDS):
            terminalreporter.write_line(line)
