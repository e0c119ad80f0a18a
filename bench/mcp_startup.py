"""Benchmark `spyglass serve`: start-up to an answered tools/list against a one-tool MCPServer
floor started the same way, and per-tool round-trip latency on the flask sdist index."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
FETCH_SCRIPT = REPO_ROOT / "scripts" / "fetch_corpus.py"

FLOOR_SERVER = '''
from mcp.server.mcpserver import MCPServer

server = MCPServer("floor")


@server.tool()
def echo(text: str) -> str:
    """Echo the text."""
    return text


server.run("stdio")
'''

DIRECT_SERVE = "from pathlib import Path; from spyglass.mcp.server import serve; serve(Path('.'))"

HANDSHAKE = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]

# One representative call per tool on flask 3.1.3.
FLASK_CALLS: dict[str, dict[str, Any]] = {
    "code_explore": {"query": "debug flag"},
    "code_find_symbol": {"name": "get_debug_flag"},
    "code_references": {"path": "src/flask/helpers.py", "line": 28, "column": 5},
    "code_callers": {"name": "get_debug_flag"},
    "code_structure": {"path": "src/flask/app.py"},
    "code_blast_radius": {"targets": ["src/flask/helpers.py:28"]},
    "code_suggest_tests": {"targets": ["src/flask/helpers.py:28"]},
    "code_status": {},
    "code_context": {"spans": [{"path": "src/flask/helpers.py", "start_line": 28,
                                "end_line": 33}]},
    "code_diagnostics": {"paths": ["src/flask"]},
    "code_ast_query": {"query": "(call) @c", "paths": ["src/flask/helpers.py"]},
}


def time_to_tools_list(cmd: list[str], cwd: Path, env: dict[str, str]
                       ) -> tuple[float, float, int]:
    """Wall seconds from spawning the server to reading the tools/list answer, the CPU
    seconds the process used by then (insensitive to other load), and the tool count."""
    payload = "".join(json.dumps(m) + "\n" for m in HANDSHAKE).encode()
    began = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(payload)
    proc.stdin.flush()
    try:
        for line in proc.stdout:
            message = json.loads(line)
            if message.get("id") == 2:
                elapsed = time.perf_counter() - began
                proc.kill()
                _, _, usage = os.wait4(proc.pid, 0)
                proc.returncode = -9
                return elapsed, usage.ru_utime + usage.ru_stime, len(message["result"]["tools"])
        raise RuntimeError(f"{cmd}: no tools/list answer")
    finally:
        if proc.returncode is None:
            proc.kill()
            proc.wait()


def startup(repo: Path, runs: int, env: dict[str, str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        floor = Path(tmp) / "floor_server.py"
        floor.write_text(FLOOR_SERVER)
        commands = {
            "floor (one-tool MCPServer)": [sys.executable, str(floor)],
            "spyglass serve": [sys.executable, "-m", "spyglass", "serve"],
            # The same server without the CLI module's eager imports: what `spyglass serve`
            # costs once the CLI imports the query layer only for the commands that use it.
            "spyglass.mcp.server.serve()": [sys.executable, "-c", DIRECT_SERVE],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        tools: dict[str, int] = {}
        for name, cmd in commands.items():  # warm the page cache once, unmeasured
            time_to_tools_list(cmd, repo, env)
        for _ in range(runs):
            for name, cmd in commands.items():
                seconds, cpu_seconds, count = time_to_tools_list(cmd, repo, env)
                times[name].append(seconds)
                cpu[name].append(cpu_seconds)
                tools[name] = count
    medians = {name: statistics.median(values) for name, values in times.items()}
    minima = {name: min(values) for name, values in times.items()}
    floor = next(iter(medians))
    cpu_medians = {name: statistics.median(values) for name, values in cpu.items()}
    return {"runs": runs, "median_seconds": medians, "min_seconds": minima, "tools": tools,
            "all_seconds": times, "cpu_median_seconds": cpu_medians,
            "cpu_overhead_seconds": {name: cpu_medians[name] - cpu_medians[floor]
                                     for name in cpu_medians if name != floor},
            "overhead_seconds": {name: medians[name] - medians[floor] for name in medians
                                 if name != floor},
            "overhead_min_seconds": {name: minima[name] - minima[floor] for name in minima
                                     if name != floor}}


def flask_repo(work: Path) -> Path:
    out = subprocess.run([sys.executable, str(FETCH_SCRIPT), "flask", "--git"],
                         capture_output=True, text=True, check=True)
    src = Path(out.stdout.strip().splitlines()[-1])
    dest = work / src.name
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(".spyglass"), symlinks=True)
    return dest


async def _latency(repo: Path, runs: int, env: dict[str, str]) -> dict[str, Any]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "spyglass", "serve"],
                                   cwd=str(repo), env=env)
    out: dict[str, Any] = {}
    with open(os.devnull, "w") as devnull:  # noqa: ASYNC230 - the child's stderr, not I/O here
        async with Client(stdio_client(params, errlog=devnull),  # type: ignore[arg-type]
                          mode="legacy", read_timeout_seconds=300) as client:
            offered = [t.name for t in (await client.list_tools()).tools]
            for name, args in FLASK_CALLS.items():
                if name not in offered:
                    out[name] = {"skipped": "not offered"}
                    continue
                first = time.perf_counter()
                result = await client.call_tool(name, args)
                cold = time.perf_counter() - first
                samples = []
                for _ in range(runs):
                    began = time.perf_counter()
                    result = await client.call_tool(name, args)
                    samples.append(time.perf_counter() - began)
                out[name] = {
                    "first_ms": round(cold * 1000, 1),
                    "median_ms": round(statistics.median(samples) * 1000, 1),
                    "results": len((result.structured_content or {}).get("results", [])),
                    "error": result.content[0].text[:200] if result.is_error else None,
                }
    return out


def latency(repo: Path, runs: int, env: dict[str, str]) -> dict[str, Any]:
    import anyio
    return anyio.run(_latency, repo, runs, env)


def report(start: dict[str, Any], lat: dict[str, Any] | None) -> str:
    load = f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    lines = ["## MCP start-up: process start → tools/list answered",
             "", f"{start['runs']} runs each, interleaved; load average at the end {load}", "",
             ("| server | tools | wall, median | wall, fastest | CPU, median | "
              "Δ wall median | Δ wall fastest | Δ CPU |"),
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, seconds in start["median_seconds"].items():
        deltas = [start[key].get(name) for key in
                  ("overhead_seconds", "overhead_min_seconds", "cpu_overhead_seconds")]
        extra = " | ".join("–" if d is None else f"{d:+.3f} s" for d in deltas)
        lines.append(f"| {name} | {start['tools'][name]} | {seconds:.3f} s | "
                     f"{start['min_seconds'][name]:.3f} s | "
                     f"{start['cpu_median_seconds'][name]:.3f} s | {extra} |")
    lines += ["", "target: spyglass within 0.25 s of the floor"]
    if lat is not None:
        lines += ["", "## Per-tool round trip (stdio, flask 3.1.3 indexed)", "",
                  "| tool | first call | median | results |", "|---|---:|---:|---:|"]
        for name, row in lat.items():
            if "skipped" in row:
                lines.append(f"| {name} | – | – | {row['skipped']} |")
            else:
                note = f" (error: {row['error']})" if row["error"] else ""
                lines.append(f"| {name} | {row['first_ms']} ms | {row['median_ms']} ms | "
                             f"{row['results']}{note} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7, help="start-ups per server")
    parser.add_argument("--calls", type=int, default=5, help="timed calls per tool")
    parser.add_argument("--no-latency", action="store_true", help="start-up only")
    parser.add_argument("--json", metavar="FILE", help="also write the raw figures here")
    args = parser.parse_args()
    env = {**os.environ}
    with tempfile.TemporaryDirectory(prefix="spyglass-mcp-bench-") as tmp:
        work = Path(tmp)
        env["XDG_CONFIG_HOME"] = str(work / "xdg")  # no host config: defaults
        repo = flask_repo(work)
        subprocess.run([sys.executable, "-m", "spyglass", "index"], cwd=repo, env=env,
                       check=True, capture_output=True)
        start = startup(repo, args.runs, env)
        lat = None if args.no_latency else latency(repo, args.calls, env)
    print(report(start, lat))
    if args.json:
        Path(args.json).write_text(json.dumps({"startup": start, "latency": lat}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
