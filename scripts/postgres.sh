#!/usr/bin/env bash
# Start Debian's PostgreSQL cluster and make the test suite's team store: a database with
# the C collation (byte order, as SQLite compares text), a writer role and a read-only
# role (docs/team.md). Idempotent; run as root by scripts/test.sh before pytest.
# Prints nothing on success; the URLs are in tests/team/conftest.py.
set -euo pipefail
if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  (apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq postgresql) >&2
fi
version=$(ls /usr/lib/postgresql | sort -n | tail -1)
if ! pg_lsclusters -h | grep -q "^${version} main"; then
  pg_createcluster "${version}" main >&2
fi
pg_ctlcluster "${version}" main start 2>/dev/null || true
for _ in $(seq 1 30); do
  su postgres -c "psql -qAtc 'select 1'" >/dev/null 2>&1 && break
  sleep 1
done
psql_su() { su postgres -c "psql -v ON_ERROR_STOP=1 -qAt $*"; }
# two pytest workers, each test's facades, the servers and workers the tests start: more
# than the default 100 connections at peaks (pgbouncer's job in production, docs/team.md)
if [ "$(psql_su "-c 'SHOW max_connections'")" -lt 300 ]; then
  psql_su "-c 'ALTER SYSTEM SET max_connections = 300'"
  pg_ctlcluster "${version}" main restart >&2
  for _ in $(seq 1 30); do
    su postgres -c "psql -qAtc 'select 1'" >/dev/null 2>&1 && break
    sleep 1
  done
fi
db=${SPYGLASS_TEST_DB:-spyglass_test}
psql_su "-c \"DO \\\$\\\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname='spyglass_rw') THEN
    CREATE ROLE spyglass_rw LOGIN PASSWORD 'spyglass-test-rw'; END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname='spyglass_ro') THEN
    CREATE ROLE spyglass_ro LOGIN PASSWORD 'spyglass-test-ro'; END IF;
END \\\$\\\$;\""
if ! psql_su "-c \"SELECT 1 FROM pg_database WHERE datname='${db}'\"" | grep -q 1; then
  psql_su "-c \"CREATE DATABASE ${db} OWNER spyglass_rw TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C' ENCODING 'UTF8'\""
fi
psql_su "-d ${db} -c \"CREATE SCHEMA IF NOT EXISTS spyglass AUTHORIZATION spyglass_rw;
  GRANT CONNECT, TEMPORARY ON DATABASE ${db} TO spyglass_ro;
  GRANT USAGE ON SCHEMA spyglass TO spyglass_ro;
  ALTER DEFAULT PRIVILEGES FOR ROLE spyglass_rw IN SCHEMA spyglass GRANT SELECT ON TABLES TO spyglass_ro;
  GRANT SELECT ON ALL TABLES IN SCHEMA spyglass TO spyglass_ro;\""
