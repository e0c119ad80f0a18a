"""The team store the test suite reads: the PostgreSQL that scripts/postgres.sh starts."""

from __future__ import annotations

import os

RW_URL = os.environ.get("SPYGLASS_TEST_PG_RW",
                        "postgresql://spyglass_rw:spyglass-test-rw@127.0.0.1/spyglass_test")
RO_URL = os.environ.get("SPYGLASS_TEST_PG_RO",
                        "postgresql://spyglass_ro:spyglass-test-ro@127.0.0.1/spyglass_test")
