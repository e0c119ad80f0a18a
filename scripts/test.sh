#!/usr/bin/env bash
# The whole test suite: install, type-check, then pytest (real corpora are fetched on demand).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
.venv/bin/mypy
.venv/bin/python -m ruff check src tests bench
if [ -f scripts/inspector_check.sh ]; then
  bash scripts/inspector_check.sh
fi
# Every pinned corpus (PyPI sdists, npm tarballs, Debian Go packages) before pytest, so no
# test installs system packages; a fetch failure shows here, and the tests that need it fail.
.venv/bin/python scripts/fetch_corpus.py --all >/dev/null || echo "test.sh: some corpora could not be fetched" >&2
set +e
.venv/bin/python -m pytest -n 2 -p no:cacheprovider "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "test.sh: pytest collected no tests" >&2
  exit 1
fi
exit "$status"
