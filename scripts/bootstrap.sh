#!/usr/bin/env bash
# Create .venv and install spyglass with its dev tools; install git if the machine lacks it.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v git >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && apt-get install -y -qq git) >&2
  else
    echo "bootstrap: git is required" >&2; exit 1
  fi
fi
# bubblewrap: the sandbox language servers run in (execution = "sandbox", docs/bridge.md).
if ! command -v bwrap >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 \
    && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && apt-get install -y -qq bubblewrap) >&2 \
    || echo "bootstrap: could not install bubblewrap; sandboxed bridges will not start" >&2
fi
# scip-python: produces the SCIP file tests/bridge/test_scip.py imports (skipped without it).
TOOLS="${HOME}/.cache/spyglass/tools"
if [ ! -x "${TOOLS}/node_modules/.bin/scip-python" ] && command -v npm >/dev/null 2>&1; then
  npm install -s --prefix "${TOOLS}" @sourcegraph/scip-python@0.6.6 >&2 \
    || echo "bootstrap: could not install scip-python; the SCIP import test will skip" >&2
fi
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]' >&2
