"""Compact text renderings of result envelopes: what the model reads next to structuredContent."""

from __future__ import annotations

import json
from typing import Any

MAX_ROWS = 200
MAX_TEXT = 200


def _cut(text: str, limit: int = MAX_TEXT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _span(d: dict[str, Any]) -> str:
    start, end = d.get("start_line"), d.get("end_line")
    where = f"{d.get('path', '?')}:{start}"
    return where if end in (None, start) else f"{where}-{end}"


def _location(d: dict[str, Any]) -> str:
    row = f"{_span(d)}  {d.get('kind', '')}  {d.get('symbol', '')}".rstrip()
    flags = []
    if d.get("stale"):
        flags.append("stale")
    if d.get("uncertain"):
        flags.append("uncertain")
    if flags:
        row += f"  [{', '.join(flags)}]"
    if d.get("evidence"):
        row += f"  ({_cut(str(d['evidence']), 160)})"
    return row


def _citations(label: str, values: Any) -> list[str]:
    if not values:
        return []
    if isinstance(values, list):
        shown = ", ".join(str(v) if not isinstance(v, dict) else _span(v) for v in values[:8])
        more = f" (+{len(values) - 8} more)" if len(values) > 8 else ""
        return [f"    {label}: {shown}{more}"]
    return [f"    {label}: {values}"]


def _row(d: dict[str, Any]) -> list[str]:
    if "content_hash" in d and "text" in d:
        head = f"{_span(d)}  sha1:{str(d['content_hash'])[:12]}"
        if d.get("truncated"):
            head += "  [truncated at max_capture_bytes]"
        return [head, str(d["text"]).rstrip("\n")]
    if "message" in d and "severity" in d:
        where = f"{d.get('path')}:{d.get('start_line')}:{d.get('column')}"
        return [f"{where}  {d['severity']}  {_cut(str(d['message']))}"]
    if "capture" in d and "node_type" in d:
        text = _cut(str(d.get("text", "")), 120)
        return [f"{_span(d)}:{d.get('start_column')}  @{d['capture']}  {d['node_type']}  {text}"]
    if "path" in d and "start_line" in d:
        out = [_location(d)]
        for key in ("command", "callers", "callees", "tests", "references"):
            if key in d and key != "command":
                out += _citations(key, d[key])
            elif key in d:
                out.append(f"    run: {d[key]}")
        return out
    return [_cut(json.dumps(d, separators=(",", ":"), default=str), 400)]


def _status(d: dict[str, Any]) -> list[str]:
    out = [f"root {d.get('root')}  repo {d.get('repo')}"]
    if d.get("indexed"):
        out.append(f"snapshot {d.get('snapshot_ref')} {str(d.get('snapshot_commit') or 'disk')[:12]}"
                   f" indexed_at {d.get('indexed_at')}  job {d.get('job_state')}")
    else:
        out.append(f"{d.get('hint') or 'no index'} (or call code_status with index=true)")
    langs = ", ".join(f"{x['language']} {x['files']} files" for x in d.get("languages", []))
    out.append(f"languages: {langs or 'none'}")
    changed = [f"{len(d.get(k, []))} {k.removeprefix('overlay_')}"
               for k in ("overlay_added", "overlay_modified", "overlay_deleted")]
    out.append("fresh" if d.get("fresh") else "workspace overlay applied: " + ", ".join(changed))
    if d.get("job_error"):
        out.append(f"last index job failed: {d['job_error']}")
    out.append("tools: " + ", ".join(d.get("tools", [])))
    return out


def _extras(payload: dict[str, Any]) -> list[str]:
    """The sections blast radius, tests and explore add next to their results."""
    out: list[str] = []
    change = payload.get("change")
    if isinstance(change, dict) and change.get("files"):
        files = change["files"]
        out.append(f"change ({change.get('origin', '?')}): {', '.join(files[:8])}"
                   + (f" (+{len(files) - 8} more)" if len(files) > 8 else ""))
    packages = payload.get("packages")
    if isinstance(packages, list) and packages:
        out.append("packages: " + ", ".join(
            f"{p.get('path') or '.'} (d{p.get('distance')})" for p in packages[:12]
            if isinstance(p, dict)))
    files = payload.get("files")
    if isinstance(files, list) and files:
        tests = sum(1 for f in files if isinstance(f, dict) and f.get("test"))
        out.append(f"files: {len(files)} affected, {tests} of them tests")
    symbols = payload.get("symbols")
    if isinstance(symbols, list):
        for entry in symbols[:5]:
            if isinstance(entry, dict) and entry.get("callers"):
                sites = ", ".join(f"{c.get('path')}:{c.get('line')}" for c in entry["callers"][:6]
                                  if isinstance(c, dict))
                out.append(f"{entry.get('symbol')} ← {sites}")
    for diag in (payload.get("diagnostics") or [])[:5]:
        if isinstance(diag, dict):
            out.append(f"diagnostic: {diag.get('path')}:{diag.get('start_line')} "
                       f"{_cut(str(diag.get('message', '')), 120)}")
    for command in (payload.get("commands") or [])[:5]:
        if isinstance(command, dict) and command.get("command"):
            out.append(f"run: {_cut(str(command['command']), 1000)}")
    out += [f"note: {_cut(str(n), 300)}" for n in (payload.get("notes") or [])[:5]]
    return out


def render(payload: dict[str, Any], tool: str = "") -> str:
    """A few lines per result plus truncation, limitations and provenance notes."""
    results = payload.get("results", [])
    lines: list[str] = []
    for r in results[:MAX_ROWS]:
        if isinstance(r, dict):
            lines += _status(r) if tool == "code_status" and "indexed" in r else _row(r)
        else:
            lines.append(_cut(str(r)))
    if len(results) > MAX_ROWS:
        lines.append(f"… {len(results) - MAX_ROWS} more rows in structuredContent")
    if not results:
        lines.append("no results")
    lines += _extras(payload)
    if payload.get("truncated"):
        lines.append("truncated at the token budget: raise budget or narrow with path"
                     if tool == "code_explore" else
                     "truncated: narrow the request (path, kind) or raise the limits")
    coverage = payload.get("coverage") or {}
    for limitation in coverage.get("limitations", []):
        lines.append(f"limitation: {limitation}")
    prov = payload.get("provenance") or {}
    if prov.get("worktree_mismatch"):
        lines.append(f"warning: worktree mismatch: {prov['worktree_mismatch']}")
    if prov:
        snap = (f"snapshot {str(prov.get('commit'))[:12]} indexed_at {prov.get('indexed_at')}"
                if prov.get("indexed_at") else "no index (live parsing)")
        lines.append(f"[{len(results)} result(s); {prov.get('repo')}@{prov.get('ref')}; {snap}]")
    return "\n".join(lines)
