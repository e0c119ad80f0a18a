#!/usr/bin/env bash
# Create .venv and install spyglass with its dev tools; install git if the machine lacks it.
# With --corpora, also install the Debian packages of the corpora (Go, Rust, Ruby, PHP, Lua
# and Bash sources) and fetch every corpus the test suite reads (tests marked `network` /
# `system`): nothing is installed or downloaded from inside a test.
set -euo pipefail
cd "$(dirname "$0")/.."
apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "bootstrap: $* required (no apt-get to install it)" >&2; exit 1
  fi
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@") >&2
}
if ! command -v git >/dev/null 2>&1; then
  apt_install git
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
if [ "${1:-}" = "--corpora" ]; then
  missing=()
  for pkg in $(.venv/bin/python scripts/fetch_corpus.py --debian-packages); do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    apt_install "${missing[@]}"
  fi
  .venv/bin/python scripts/fetch_corpus.py --tests >&2
fi
