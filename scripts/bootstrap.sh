#!/usr/bin/env bash
# Create .venv and install spyglass; install git if the machine lacks it.
#
#   bootstrap.sh            spyglass with its dev tools (mypy, ruff, pytest, …) in .venv
#   bootstrap.sh --demo     spyglass alone: what scripts/demo.sh needs, nothing more
#   bootstrap.sh --corpora  the dev install, the test tools (bubblewrap, clangd, npm,
#                           scip-python, chromium, playwright: test_tools below) and the
#                           corpora: the Debian packages of the Go, Rust, Ruby, PHP, Lua,
#                           Bash and Java sources (clangd and a JDK for the oracles) and every
#                           corpus the test suite reads (tests marked `network` / `system`;
#                           PyPI sdists, npm packages, Scala's jawn as a checked tarball of
#                           Debian's source archive): nothing is installed or downloaded
#                           from inside a test.
#   bootstrap.sh --kernel   as --corpora, plus Debian's linux-source 6.1 for bench/kernel.py
#
# Every apt call waits for the dpkg lock (another apt running) instead of failing at once.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE="${1:-}"
APT=(apt-get -o DPkg::Lock::Timeout=600)
can_apt() { command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; }
apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "bootstrap: $* required (no apt-get to install it)" >&2; exit 1
  fi
  ("${APT[@]}" update -qq && DEBIAN_FRONTEND=noninteractive "${APT[@]}" install -y -qq "$@") >&2
}
# Like apt_install, but a failure only skips the tests needing the package.
apt_try() {
  local what="$1"; shift
  can_apt || return 0
  ("${APT[@]}" update -qq && DEBIAN_FRONTEND=noninteractive "${APT[@]}" install -y -qq "$@") \
    >&2 || echo "bootstrap: could not install $*; $what" >&2
}

# The tools some tests use (each test skips without its tool); not needed to run spyglass.
test_tools() {
  # bubblewrap: the sandbox language servers run in (execution = "sandbox", docs/bridge.md).
  command -v bwrap >/dev/null 2>&1 || apt_try "sandboxed bridges will not start" bubblewrap
  # clangd: the C/C++ bridge tests/bridge/test_clangd.py runs under the sandbox; npm:
  # installs scip-python below (Debian's nodejs/npm when there is none).
  command -v clangd >/dev/null 2>&1 || apt_try "the clangd bridge test will skip" clangd
  command -v npm >/dev/null 2>&1 || apt_try "scip-python and the browser test will skip" npm
  # scip-python: produces the SCIP file tests/bridge/test_scip.py imports.
  local tools="${HOME}/.cache/spyglass/tools"
  if [ ! -x "${tools}/node_modules/.bin/scip-python" ] && command -v npm >/dev/null 2>&1; then
    npm install -s --prefix "${tools}" @sourcegraph/scip-python@0.6.6 >&2 \
      || echo "bootstrap: could not install scip-python; the SCIP import test will skip" >&2
  fi
  # Browser end-to-end test of the web page (tests/web/test_browser.py): Debian's
  # chromium, and npm playwright-core + axe-core from tests/web/e2e/package-lock.json (npm
  # ci: the locked versions; node_modules is not committed).
  command -v chromium >/dev/null 2>&1 || apt_try "the browser test will skip" chromium
  if command -v npm >/dev/null 2>&1 && [ ! -f tests/web/e2e/node_modules/axe-core/axe.min.js ]; then
    npm ci --silent --no-audit --no-fund --prefix tests/web/e2e >&2 \
      || echo "bootstrap: could not install playwright-core/axe-core; the browser test will skip" >&2
  fi
}

if ! command -v git >/dev/null 2>&1; then
  apt_install git
fi
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
if [ "$MODE" = "--demo" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -e . >&2
  exit 0
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]' >&2
if [ "$MODE" = "--corpora" ] || [ "$MODE" = "--kernel" ]; then
  test_tools
  # C/C++: clangd is the accuracy oracle of the C pack (bench/accuracy, `run.py oracle
  # pycryptodome`; the tests read its stored answers and never start it).
  command -v clangd >/dev/null 2>&1 || apt_install clangd
  # the C++ corpus nanobind's Eigen headers and tests include <Eigen/...> (oracle only)
  [ -d /usr/include/eigen3 ] || apt_install libeigen3-dev
fi
if [ "$MODE" = "--kernel" ]; then
  [ -f /usr/src/linux-source-6.1.tar.xz ] || apt_install linux-source-6.1
fi
if [ "$MODE" = "--corpora" ]; then
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
