#!/usr/bin/env bash
# Drive `spyglass serve` with MCP Inspector's CLI mode (tools/list, then one tools/call) on a
# small fixture repository; exit non-zero when the inspector or the server misbehaves.
#
# Environment: INSPECTOR (npm spec, default pinned below), PYTHON (default .venv/bin/python),
# SPYGLASS_INSPECTOR_OPTIONAL=1 turns "the inspector cannot be installed" (offline) into a
# skip with exit 0; every other failure still fails.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
INSPECTOR=${INSPECTOR:-@modelcontextprotocol/inspector@2.12.0}

work=$(mktemp -d "${TMPDIR:-/tmp}/spyglass-inspector.XXXXXX")
trap 'rm -rf "$work"' EXIT
repo=$work/repo
mkdir -p "$repo/pkg"
printf 'def helper(x):\n    return x + 1\n' > "$repo/pkg/util.py"
printf 'from pkg.util import helper\n\n\ndef run():\n    return helper(1)\n' > "$repo/pkg/main.py"
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" -c user.name=ci -c user.email=ci@example.com commit -qm fixture
export XDG_CONFIG_HOME=$work/xdg  # defaults, whatever the host has
(cd "$repo" && "$PYTHON" -m spyglass index >/dev/null)

if ! npx -y "$INSPECTOR" --cli --help >/dev/null 2>"$work/npx.err"; then
  if [ "${SPYGLASS_INSPECTOR_OPTIONAL:-0}" = 1 ]; then
    echo "inspector_check: $INSPECTOR unavailable (offline?); skipped" >&2
    exit 0
  fi
  echo "inspector_check: cannot run $INSPECTOR:" >&2
  cat "$work/npx.err" >&2
  exit 1
fi

inspect() {  # inspect OUTFILE ARGS...: run the inspector CLI against spyglass serve over stdio
  local out=$1
  shift
  npx -y "$INSPECTOR" --cli --format json --cwd "$repo" "$@" -- "$PYTHON" -m spyglass serve \
    >"$out" 2>"$out.err" || {
    echo "inspector_check: inspector failed: $*" >&2
    cat "$out.err" "$out" >&2
    return 1
  }
}

inspect "$work/list.json" --method tools/list
inspect "$work/call.json" --method tools/call --tool-name code_find_symbol \
  --tool-args-json '{"name": "helper"}'
inspect "$work/status.json" --method tools/call --tool-name code_status --tool-args-json '{}'

"$PYTHON" - "$work" <<'EOF'
import json
import sys
from pathlib import Path

work = Path(sys.argv[1])


def load(name: str) -> dict:
    data = json.loads((work / name).read_text())
    return data.get("result", data) if isinstance(data, dict) else data


listing = load("list.json")
names = [t["name"] for t in listing["tools"]]
for needed in ("code_explore", "code_find_symbol", "code_references", "code_status"):
    assert needed in names, f"tools/list lacks {needed}: {names}"
for tool in listing["tools"]:
    assert tool.get("outputSchema"), f"{tool['name']} has no outputSchema"
    assert tool["annotations"]["readOnlyHint"] is True, tool["name"]
size = len(json.dumps(listing))
assert size < 12_000, f"tools/list is {size} characters"
for name in ("call.json", "status.json"):
    result = load(name)
    assert not result.get("isError"), f"{name}: {result}"
    assert {"results", "truncated", "coverage", "provenance"} <= set(result["structuredContent"])
found = load("call.json")["structuredContent"]["results"]
assert [(r["path"], r["start_line"]) for r in found] == [("pkg/util.py", 1)], found
print(f"inspector_check: ok ({len(names)} tools, tools/list {size} characters)")
EOF
