#!/usr/bin/env bash
# Create .venv and install spyglass with its dev tools; install git if the machine lacks it.
# With --corpora, also install the Debian packages of the Go corpora and fetch every corpus
# the test suite reads (tests marked `network` / `system`): nothing is installed or
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
