#!/usr/bin/env bash
# Install spyglass, fetch the flask 3.1.3 sdist, index it and ask who uses get_debug_flag.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh --demo   # spyglass alone: no dev or test tools
flask_dir=$(.venv/bin/python scripts/fetch_corpus.py flask --git)
.venv/bin/spyglass -C "$flask_dir" index
.venv/bin/spyglass -C "$flask_dir" status
echo "--- who references get_debug_flag (src/flask/helpers.py:28)?"
.venv/bin/spyglass -C "$flask_dir" refs --at src/flask/helpers.py:28:5
echo "--- who calls it?"
.venv/bin/spyglass -C "$flask_dir" callers get_debug_flag
