"""The shipped Bash pack: functions and variables, global function names across sourced
scripts, command calls and variable reads, callers, source imports, broken code."""

from __future__ import annotations

from pathlib import Path

from packs import callers, defs, index, sites, uncertain

from spyglass.syntax.extract import extract
from spyglass.syntax.langpack import all_packs

PROJECT = """
#! definitions
#- lib/common.sh
LOG_PREFIX="[x]"

log() {
  local msg=$1
  echo "$LOG_PREFIX $msg"
}

function die {
  log "fatal: $1"
  exit 1
}
#- bin/run.sh
#!/bin/bash
source "$(dirname "$0")/../lib/common.sh"

main() {
  log "start"
  [ -n "$1" ] || die "no argument"
  count=$(wc -l < "$1")
  log "$count lines"
}

main "$@"
#- bin/other.sh
log() { :; }
"""


def test_definitions_and_kinds(tmp_path: Path) -> None:
    ci = index(PROJECT, tmp_path)
    assert defs(ci, "lib/common.sh") == {("LOG_PREFIX", "const", 1), ("log", "func", 3),
                                         ("die", "func", 8)}
    assert defs(ci, "bin/run.sh") == {("main", "func", 4)}


def test_references_calls_and_variables(tmp_path: Path) -> None:
    ci = index(PROJECT, tmp_path)
    die = ci.references(path="lib/common.sh", line=8, column=10)
    assert sites(die) == {("bin/run.sh", 6, "call")}  # a function of a sourced script
    prefix = ci.references(path="lib/common.sh", line=1, column=1)
    assert sites(prefix) == {("lib/common.sh", 5, "read")}
    main = ci.references(path="bin/run.sh", line=4, column=1)
    assert sites(main) == {("bin/run.sh", 11, "call")}


def test_callers_and_ambiguous_names(tmp_path: Path) -> None:
    ci = index(PROJECT, tmp_path)
    assert callers(ci, "lib/common.sh", 8, 10) == {("bin/run.sh", "main")}
    log = ci.references(path="lib/common.sh", line=3, column=1)
    # a call from another script reaches `log` through the global namespace (inferred:
    # which script defines it is decided at run time); the defining script's own call is
    # its definition's; another script's `log` is a redefinition of the global name
    assert set(uncertain(log)) == {("bin/run.sh", 5), ("bin/run.sh", 8)}
    assert all(e.startswith("inferred") for e in uncertain(log).values())
    assert {("lib/common.sh", 9, "call"), ("bin/other.sh", 1, "write")} <= sites(log)


def test_source_is_an_import() -> None:
    facts = extract(all_packs()["bash"], b'source ./lib/a.sh\n. "$DIR/b.bash"\n')
    assert [(i.module, i.name) for i in facts.imports] == [("./lib/a.sh", "*"),
                                                          ('"$DIR/b.bash"', "*")]


def test_broken_code_gives_diagnostics_and_partial_facts() -> None:
    facts = extract(all_packs()["bash"], b"ok() { helper 1; }\nif [ x ; then\nfi fi\n")
    assert facts.diagnostics
    assert "ok" in {d.name for d in facts.definitions}
    assert "helper" in {r.name for r in facts.references if r.role == "call"}
