#!/usr/bin/env bash
# The whole test suite: install (with the corpora and their system packages), type-check,
# then pytest; tests never install or download anything themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh --corpora
# the team store's tests (tests/team) read a PostgreSQL started here, never from a test
bash scripts/postgres.sh || echo "test.sh: PostgreSQL could not start; tests/team will skip" >&2
.venv/bin/mypy
.venv/bin/python -m ruff check src tests bench
if [ -f scripts/inspector_check.sh ]; then
  bash scripts/inspector_check.sh
fi
set +e
.venv/bin/python -m pytest -n 2 -p no:cacheprovider "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "test.sh: pytest collected no tests" >&2
  exit 1
fi
exit "$status"
