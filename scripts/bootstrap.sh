#!/usr/bin/env bash
# Create .venv and install spyglass with its dev tools; install git if the machine lacks it.
# With --corpora, also install the Debian packages of the corpora (Go, Rust, Ruby, PHP, Lua,
# Bash and Java sources; clangd and a JDK for the oracles) and fetch every corpus the test
# suite reads (tests marked `network` / `system`; PyPI sdists, npm packages, and Scala's
# jawn as a checked tarball of Debian's source archive): nothing is installed or
# downloaded from inside a test.
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
# clangd: the C/C++ bridge tests/bridge/test_clangd.py runs under the sandbox (skipped
# without it); npm: installs scip-python below (Debian's nodejs/npm when there is none).
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  for pair in clangd:clangd npm:npm; do
    if ! command -v "${pair%%:*}" >/dev/null 2>&1; then
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        "${pair##*:}") >&2 || echo "bootstrap: could not install ${pair##*:}" >&2
    fi
  done
fi
# scip-python: produces the SCIP file tests/bridge/test_scip.py imports (skipped without it).
TOOLS="${HOME}/.cache/spyglass/tools"
if [ ! -x "${TOOLS}/node_modules/.bin/scip-python" ] && command -v npm >/dev/null 2>&1; then
  npm install -s --prefix "${TOOLS}" @sourcegraph/scip-python@0.6.6 >&2 \
    || echo "bootstrap: could not install scip-python; the SCIP import test will skip" >&2
fi
# scip-typescript: the precise pass's TypeScript/JavaScript indexer (docs/precise.md), in
# its own prefix so its TypeScript does not replace the one scip-python's tree holds.
if [ ! -f "${TOOLS}/scip-typescript/node_modules/@sourcegraph/scip-typescript/dist/src/main.js" ] \
    && command -v npm >/dev/null 2>&1; then
  npm install -s --no-audit --no-fund --prefix "${TOOLS}/scip-typescript" \
    @sourcegraph/scip-typescript@0.4.0 >&2 \
    || echo "bootstrap: could not install scip-typescript; no precise pass for TypeScript" >&2
fi
# Browser end-to-end test of the web page (tests/web/test_browser.py, skipped without them):
# Debian's chromium, and npm playwright-core + axe-core from tests/web/e2e/package-lock.json
# (npm ci: the locked versions; node_modules is not committed).
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 \
    && [ "$(id -u)" = 0 ]; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >&2 \
    || echo "bootstrap: could not install chromium; the browser test will skip" >&2
fi
if command -v npm >/dev/null 2>&1 && [ ! -f tests/web/e2e/node_modules/axe-core/axe.min.js ]; then
  npm ci --silent --no-audit --no-fund --prefix tests/web/e2e >&2 \
    || echo "bootstrap: could not install playwright-core/axe-core; the browser test will skip" >&2
fi
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]' >&2
# C/C++: clangd is the accuracy oracle of the C pack (bench/accuracy, `run.py oracle
# pycryptodome`; the tests read its stored answers and never start it). With --kernel, also
# Debian's linux-source 6.1 (a tarball under /usr/src) for bench/kernel.py.
if [ "${1:-}" = "--corpora" ] || [ "${1:-}" = "--kernel" ]; then
  command -v clangd >/dev/null 2>&1 || apt_install clangd
  # the C++ corpus nanobind's Eigen headers and tests include <Eigen/...> (oracle only)
  [ -d /usr/include/eigen3 ] || apt_install libeigen3-dev
fi
if [ "${1:-}" = "--kernel" ]; then
  [ -f /usr/src/linux-source-6.1.tar.xz ] || apt_install linux-source-6.1
fi
if [ "${1:-}" = "--corpora" ]; then
  missing=()
  for pkg in $(.venv/bin/python scripts/fetch_corpus.py --debian-packages); do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  # langs-jvm: the Java accuracy oracle (bench/accuracy/JavaOracle.java) and its test
  # compile with the JDK's javac; the Java corpora are source zips of openjdk-17-demo and
  # openjdk-17-source (listed by --debian-packages above).
  if ! command -v javac >/dev/null 2>&1; then
    missing+=("openjdk-17-jdk-headless")
  fi
  if [ "${#missing[@]}" -gt 0 ]; then
    apt_install "${missing[@]}"
  fi
  .venv/bin/python scripts/fetch_corpus.py --tests >&2
fi
