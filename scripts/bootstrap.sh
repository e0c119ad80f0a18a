#!/usr/bin/env bash
# Create .venv and install spyglass; install git if the machine lacks it.
#
#   bootstrap.sh            spyglass with its dev tools (mypy, ruff, pytest, …) in .venv
#   bootstrap.sh --demo     spyglass alone: what scripts/demo.sh needs, nothing more
#   bootstrap.sh --corpora  the dev install, the test tools (bubblewrap, clangd, npm,
#                           scip-python, chromium, playwright, language servers, the
#                           desktop's WebKit2GTK and Xvfb, podman: test_tools below) and the
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
  # The SCIP schema, pinned: @c4312/scip 0.1.0 ships scip.proto's descriptor (scip_pb.js);
  # the export tests read spyglass's SCIP files with it and the `protobuf` package (a dev
  # dependency) — an independent reader (tests/scip_reader.py). Nothing of it is committed.
  if [ ! -f "${tools}/node_modules/@c4312/scip/scip_pb.js" ] && command -v npm >/dev/null 2>&1; then
    npm install -s --prefix "${tools}" @sourcegraph/scip-python@0.6.6 @c4312/scip@0.1.0 >&2 \
      || echo "bootstrap: could not install @c4312/scip; the SCIP export reader tests skip" >&2
  fi
  # scip-typescript: the precise pass's TypeScript/JavaScript indexer (docs/precise.md),
  # in its own prefix so its TypeScript does not replace the one scip-python's tree holds.
  if [ ! -f "${tools}/scip-typescript/node_modules/@sourcegraph/scip-typescript/dist/src/main.js" ] \
      && command -v npm >/dev/null 2>&1; then
    npm install -s --no-audit --no-fund --prefix "${tools}/scip-typescript" \
      @sourcegraph/scip-typescript@0.4.0 >&2 \
      || echo "bootstrap: could not install scip-typescript; no precise pass for TypeScript" >&2
  fi
  # Language servers of the hostile-repository bridge test (tests/security/
  # test_hostile_servers.py, each skipped without its server): typescript-language-server
  # with its own typescript, and gopls 0.16.1 + Go 1.24 unpacked from Debian trixie by
  # bench/accuracy/get_gopls.sh (bookworm's Go 1.19 predates go.mod `toolchain` lines).
  if [ ! -x "${tools}/tsls/node_modules/.bin/typescript-language-server" ] \
      && command -v npm >/dev/null 2>&1; then
    npm install -s --no-audit --no-fund --prefix "${tools}/tsls" \
      typescript-language-server@6.0.2 typescript@5.9.3 >&2 \
      || echo "bootstrap: could not install typescript-language-server; its test will skip" >&2
  fi
  if command -v curl >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1; then
    bash bench/accuracy/get_gopls.sh >&2 \
      || echo "bootstrap: could not fetch gopls and Go 1.24; the gopls test will skip" >&2
  fi
  # The desktop window (`spyglass desktop`; tests/desktop/ skip without it): Debian's GTK
  # WebKit2 and PyGObject, Xvfb for the test; pywebview (the `desktop` extra, not in .venv)
  # goes into .venv-desktop, made from Debian's python3 with --system-site-packages so that
  # it sees python3-gi (PyGObject from PyPI would need a C toolchain and girepository headers).
  local want=()
  for pkg in python3-gi python3-venv gir1.2-webkit2-4.1 xvfb; do
    dpkg -s "$pkg" >/dev/null 2>&1 || want+=("$pkg")
  done
  if [ "${#want[@]}" -gt 0 ]; then
    apt_try "the desktop test will skip" "${want[@]}"
  fi
  if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import gi" 2>/dev/null; then
    [ -x .venv-desktop/bin/python ] || /usr/bin/python3 -m venv --system-site-packages .venv-desktop
    .venv-desktop/bin/python -m pip install -q --disable-pip-version-check -e '.[desktop]' >&2 \
      || echo "bootstrap: could not install pywebview; the desktop test will skip" >&2
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
  # compile with the JDK's javac, and so does the Java precise pass (docs/precise.md); the Java corpora are source zips of openjdk-17-demo and
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
      apt_try "the container tests skip" podman runc
    fi
    mkdir -p /etc/containers/containers.conf.d
    printf '%s\n' '[containers]' 'default_ulimits = []' '[engine]' 'runtime = "runc"' \
      'cgroup_manager = "cgroupfs"' 'events_logger = "file"' \
      > /etc/containers/containers.conf.d/spyglass.conf
  fi
fi
