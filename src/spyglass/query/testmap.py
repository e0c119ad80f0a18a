"""Test suggestions: tests reached by reference, by naming convention or by package, with commands."""

from __future__ import annotations

import math
import re
import weakref
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from spyglass.query import edges
from spyglass.query.changeset import ChangeSet, Seed, changed_defs
from spyglass.query.cochange import cochanges
from spyglass.query.datafiles import naming_tests
from spyglass.query.display import display
from spyglass.query.frameworks import Frameworks, all_fixture_files, fixture_files
from spyglass.query.impact import WIDENED, Hit, Radius, walk
from spyglass.query.results import (
    ChangeSummary,
    DefRow,
    Framework,
    RefRow,
    TestCommand,
    TestFile,
    TestTarget,
)
from spyglass.query.rows import REF_COLS, REF_FROM, chunks, defs_by_keys, marks, refs
from spyglass.syntax.langpack import LanguagePack, pack_for_path

if TYPE_CHECKING:
    from spyglass.query.answer import Answer

# Evidence weights (higher ranks first). A reference chain of n edges weighs 1/n, halved
# when uncertain; each weight is then divided by how many test files the same changed
# symbol reaches (1 + ln df), so specific evidence beats ubiquitous evidence. A file ranks
# by the sum, over changed symbols, of its best evidence for each.
CHANGED, CONVENTION, CONVENTION_FAR, PACKAGE = 3.0, 1.5, 1.2, 0.2
MODULE_LEVEL, HELPER, FIXTURE, UNCERTAIN = 0.8, 0.6, 0.5, 0.5
# A file changed in some lines only: its other definitions still say which tests are
# related (a module is cohesive); their evidence is kept, at this fraction of the weight.
SAME_FILE, SAME_FILE_DEPTH = 0.2, 2
MAX_FIXTURE_FILES = 400
# Tests reaching a changed symbol only past the walk's depth (a test calling the public
# entry point `Marshal` → … → the changed function): a resolved-only walk goes further,
# bounded by depth, affected symbols and time; its evidence weighs REACH/n.
REACH, REACH_DEPTH, REACH_BOUND, REACH_SECONDS = 0.5, 8, 600, 1.5
# A test file whose name shares a word with the changed file's (`reflect_map.go` and
# `value_tests/map_test.go`): one piece of evidence per shared word, NAME_WORD divided by
# the test file's own words (a file named for just that word ranks first), then like the
# rest by how many test files share it, so a word every test file has weighs little.
NAME_WORD, MIN_WORD, STEM = 0.6, 3, 5
# A changed file whose import of one package was replaced by another bound to the same
# name (`"regexp"` → `"github.com/grafana/regexp"`, a drop-in dependency swap): test files
# importing either use the swapped package directly and rank with the changed tests, when
# at most SWAP_FILES test files do (more: like any other evidence, by relevance).
SWAP, SWAP_FILES = 1.0, 10
# A changed definition standing in for one of another package (a method overriding a method
# of a base class defined outside the repository; a function of a module named like a module
# it imports from, `aio/parsers.py` defining `parse` beside `from lib.parsers import …`): test
# files naming that outside definition (a test pinning the upstream code the change adapts)
# rank with the uncertain direct users; the walk cannot reach them, having no definition.
UPSTREAM = 0.5
# A test file that changed together with a changed file in earlier commits (read with the
# safe git runner from the change's base, never later): HISTORY × together / (touching + 1);
# a strong co-change (at least twice, in at least half the commits touching the file) ranks
# with the uncertain direct users. A test file naming a changed data file in a string
# literal (`"testdata/fixtures.ttar"`) reads it: DATA, with the uncertain direct users too.
HISTORY, DATA = 1.0, 1.0
# A change of at least this many files (tests left out) in at least BROAD_FOLDERS folders
# is broad: the answer says so (its ranked tests are the nearest ones, not all affected).
BROAD_FILES, BROAD_FOLDERS = 12, 4
DIRECT_TIERS = 3  # rank tiers of direct evidence (_tier); every other file comes after them


@dataclass
class Plan:
    """Ranked targets with their commands (internal)."""

    targets: tuple[TestTarget, ...] = ()
    commands: tuple[TestCommand, ...] = ()
    frameworks: tuple[Framework, ...] = ()
    files: list[str] = field(default_factory=list)  # test files, best first
    notes: list[str] = field(default_factory=list)  # bounds the search for tests hit
    by_file: tuple[TestFile, ...] = ()  # the targets grouped per test file, best first


def change_summary(cs: ChangeSet) -> ChangeSummary:
    return ChangeSummary(cs.origin, tuple(cs.files), len(cs.seeds), tuple(cs.unsupported))


def _test_pack(path: str) -> LanguagePack | None:
    pack = pack_for_path(path)
    return pack if pack is not None and pack.is_test_file(path) else None


def test_symbol(pack: LanguagePack, d: DefRow) -> str:
    """The test a definition in a test file belongs to: the outermost enclosing test
    function (``test_a`` for ``test_a.test_inner``: a runner collects no nested function),
    with the test classes around it (``TestK.test_m``), else the innermost enclosing test
    class, or "" when there is none."""
    parts = d.qualname.split(".")
    classes = 0
    for i, part in enumerate(parts):
        if pack.is_test_name(part, "func") or (i == len(parts) - 1 and d.kind == "test"):
            return ".".join(parts[: i + 1])
        if pack.is_test_name(part, "class"):
            classes = i + 1
    return ".".join(parts[:classes])


@dataclass(frozen=True, slots=True)
class _Evidence:
    path: str
    symbol: str
    lines: tuple[int, int]
    reason: str
    weight: float
    uncertain: bool
    text: str
    seed: str  # the changed symbol (or file) the evidence starts from
    distance: int = -1  # edges from the change (-1: not by reference)
    chain: str = ""  # the evidence in short: the chain of names, or the rule that matched


class _Collector:
    def __init__(self) -> None:
        self.items: list[_Evidence] = []
        self.relevance: dict[str, float] = {}  # of a file, once ranked
        self.chains: dict[tuple[str, str], str] = {}  # of a target: its best evidence, short
        self.reasons: dict[str, dict[str, None]] = {}  # of a file: every kind of evidence

    def add(self, path: str, symbol: str, lines: tuple[int, int], reason: str, weight: float,
            uncertain: bool, evidence: str, seed: str, distance: int = -1, chain: str = ""
            ) -> None:
        self.items.append(_Evidence(path, symbol, lines, reason, weight, uncertain, evidence,
                                    seed, distance, chain or evidence))

    def ranked(self) -> list[TestTarget]:
        files_of: dict[str, set[str]] = {}
        for e in self.items:
            files_of.setdefault(e.seed, set()).add(e.path)
        best: dict[tuple[str, str], tuple[float, _Evidence]] = {}
        per_seed: dict[tuple[str, str], float] = {}
        for e in self.items:
            w = e.weight / (1.0 + math.log(len(files_of[e.seed])))
            k = (e.path, e.symbol)
            if k not in best or w > best[k][0]:
                best[k] = (w, e)
            per_seed[(e.path, e.seed)] = max(per_seed.get((e.path, e.seed), 0.0), w)
        relevance: dict[str, float] = {}
        for (path, _), w in per_seed.items():
            relevance[path] = relevance.get(path, 0.0) + w
        reasons: dict[tuple[str, str], dict[str, None]] = {}
        for e in self.items:
            reasons.setdefault((e.path, e.symbol), {})[e.reason] = None
            self.reasons.setdefault(e.path, {})[e.reason] = None
        self.relevance = relevance
        out = []
        for k, (w, e) in best.items():
            also = [r for r in reasons[k] if r != e.reason]
            text = e.text + (f" (also by {', '.join(also)})" if also else "")
            self.chains[k] = e.chain
            out.append(TestTarget(e.path, e.symbol, e.lines[0], e.lines[1], "", "", e.reason,
                                  round(w, 4), e.uncertain, text))
        tier: dict[str, int] = {}  # of a file: its best direct evidence
        own: dict[tuple[str, str], int] = {}  # of a target: its best evidence
        for e in self.items:
            rank = _tier(e)
            tier[e.path] = min(tier.get(e.path, DIRECT_TIERS), rank)  # the rest: one tier
            own[(e.path, e.symbol)] = min(own.get((e.path, e.symbol), rank), rank)
        out.sort(key=lambda t: (tier[t.path], -relevance[t.path], t.path,
                                own[(t.path, t.symbol)], -t.relevance, t.start_line))
        return out


def _tier(e: _Evidence) -> int:
    """Files with tests that use the changed symbol directly rank first (those changed
    themselves, then those resolved exactly, then the uncertain ones together with the
    test file named for the changed file in its own folder); the rest
    (transitive users, fixtures, naming conventions, same package) by relevance. Within a
    file, tests reaching the changed symbol at all come before tests of the changed
    file's other definitions and before the file's convention and package matches."""
    if e.reason == "changed" or (e.reason == "import" and e.distance == 0):
        return 0
    if e.reason == "reference" and e.distance == 1:
        return 2 if e.uncertain else 1
    if e.reason == "convention" and e.weight == CONVENTION:  # `set.go` ↔ `set_test.go`
        return 2
    if e.reason == "upstream":
        return 2
    if e.reason in ("history", "data"):  # distance 1: a strong co-change, a named data file
        return 2 if e.distance == 1 else DIRECT_TIERS
    return DIRECT_TIERS if e.reason in ("reference", "fixture") else DIRECT_TIERS + 1


def _by_reference(ans: Answer, radius: Radius, out: _Collector, scale: float = 1.0,
                  kind: str = "same-file") -> None:
    view = ans.view()
    parents = defs_by_keys(view, [(h.d.unit, h.d.parent) for h in radius.hits
                                        if h.d is not None and h.d.parent >= 0])
    for h in radius.hits:
        pack = _test_pack(h.path)
        if pack is None:
            continue
        weight = CHANGED if h.distance == 0 else 1.0 / h.distance
        weight *= (UNCERTAIN if h.uncertain else 1.0) * scale
        reason = "changed" if h.distance == 0 else "reference"
        if scale != 1.0:
            reason = kind
        why, chain = h.evidence(), h.chain_text()
        if h.d is None:
            out.add(h.path, "", (h.line, h.line), reason, weight * MODULE_LEVEL, h.uncertain,
                    why, h.seed, h.distance, chain)
            continue
        name = test_symbol(pack, h.d)
        if name:
            top = h.d
            while top.qualname != name and (top.unit, top.parent) in parents:
                top = parents[(top.unit, top.parent)]
            out.add(h.path, name, (top.start_line, top.end_line), reason, weight, h.uncertain,
                    why, h.seed, h.distance, chain)
        else:  # a helper or fixture of a test file: the file, unless its users show up
            out.add(h.path, "", (1, 1), reason, weight * HELPER, True, why, h.seed,
                    chain=chain)


def _by_reach(ans: Answer, radius: Radius, out: _Collector) -> list[str]:
    """Tests the walk did not reach within its depth but a resolved-only walk onward from
    its last layer reaches within REACH_DEPTH edges in all (exact and inferred bindings,
    no name matches; at most REACH_BOUND symbols, no layer begun after REACH_SECONDS): the
    chain from a package's public entry points (`Marshal` → … → the changed function)."""
    edge = [h for h in radius.hits if h.distance == radius.depth and h.d is not None
            and h.follow and _test_pack(h.path) is None]
    if radius.depth >= REACH_DEPTH or radius.truncated or not edge:
        return []
    start = {display(h.d): h for h in edge if h.d is not None}
    onward = ChangeSet(origin=radius.change.origin,
                       seeds=[Seed(h.d, h.origin, h.uncertain) for h in start.values()
                              if h.d is not None])
    near = {h.path for h in radius.hits if _test_pack(h.path) is not None}
    wide = walk(ans, onward, REACH_DEPTH - radius.depth, resolved_only=True,
                bound=REACH_BOUND, seconds=REACH_SECONDS)
    far: list[Hit] = []
    for h in wide.hits:
        first = start.get(h.seed)
        if h.distance == 0 or h.path in near or first is None:
            continue
        far.append(replace(h, distance=h.distance + first.distance,
                           chain=h.chain + first.chain, origin=first.origin,
                           uncertain=h.uncertain or first.uncertain))
    _by_reference(ans, Radius(radius.change, REACH_DEPTH, far), out, REACH, "reach")
    return [f"tests beyond depth {radius.depth}: {n}" for n in wide.notes
            if n.startswith("not walked")]


def _words(stem: str) -> set[str]:
    """The words of a file name's stem: split at `_`, `-`, `.` and lower-to-upper case
    changes, lowercased; short words left out."""
    parts = re.split(r"[_\-.]+|(?<=[a-z0-9])(?=[A-Z])", stem)
    return {p.lower() for p in parts if len(p) >= MIN_WORD}


def _same_word(a: str, b: str) -> bool:
    """Two name words that are one, or one a longer form of the other (`marshal` and
    `marshaler`, `header` and `headers`: the shorter at least STEM letters)."""
    short, long = sorted((a, b), key=len)
    return short == long or (len(short) >= STEM and long.startswith(short))


def _by_name_words(cs: ChangeSet, tests: list[str], out: _Collector) -> None:
    """Test files sharing a word of their name with a changed file's name, beyond the
    test-file patterns' own words (`test`, `spec`)."""
    for path in cs.files:
        pack = pack_for_path(path)
        if pack is None or pack.is_test_file(path):
            continue
        affixes = {w for p in sibling_patterns(pack) for w in _words(p.replace("*", "_"))}
        words = _words(path.rpartition("/")[2].rsplit(".", 1)[0]) - affixes
        if not words:
            continue
        for t in tests:
            if _test_pack(t) is None:
                continue
            own = _words(t.rpartition("/")[2].rsplit(".", 1)[0]) - affixes
            for w in sorted(words):
                like = sorted(o for o in own if _same_word(w, o))
                if not like:
                    continue
                said = repr(w) if like == [w] else f"{w!r} ({like[0]!r})"
                # `struct_test.go` names less than `struct_tags_test.go`
                out.add(t, "", (1, 1), "name", NAME_WORD / len(own), True,
                        f"file names share the word {said}: {path} and {t}", f"word:{w}",
                        chain=f"name word {said} of {path}")


def swapped_imports(ans: Answer, path: str) -> list[tuple[str, str]]:
    """(old, new) module pairs of `path`'s imports that the workspace replaced: a module
    import (Go's `import "p"`, Python's `import p as n`; never `from p import n`, which
    moves a name rather than a package) that the snapshot's version has and the file on
    disk binds the same name to another module (not one inside the other: `os.path`, `os`)."""
    view = ans.view()
    if view.snapshot is None:
        return []
    new = view.each("SELECT i.module, i.alias FROM {imports} i JOIN temp.vfiles f "
                    "ON f.unit = i.unit WHERE f.path = ? AND i.name IS NULL", (path,))
    old = view.conn.execute(
        "SELECT i.module, i.alias FROM main.imports i JOIN main.snapshot_files s "
        "ON s.unit = i.unit WHERE s.snapshot = ? AND s.path = ? AND i.name IS NULL",
        (view.snapshot.id, path)).fetchall()
    before = {str(a): str(m) for m, a in old if a}
    after = {str(a): str(m) for m, a in new if a}
    def nested(a: str, b: str) -> bool:  # dotted module names (`gopkg.in/yaml.v2` is none)
        return "/" not in a + b and (a.startswith(b + ".") or b.startswith(a + "."))
    return sorted({(before[a], after[a]) for a in before.keys() & after.keys()
                   if before[a] != after[a] and not nested(before[a], after[a])})


def _by_swapped_imports(ans: Answer, cs: ChangeSet, out: _Collector) -> None:
    """Test files importing a package that a changed file swapped for another (either
    side: the tests may be changed with it, or not yet)."""
    view = ans.view()
    for path in cs.files:
        if pack_for_path(path) is None or _test_pack(path) is not None:
            continue
        for old, new in swapped_imports(ans, path):
            rows = view.each("SELECT DISTINCT f.path FROM {imports} i JOIN temp.vfiles f "
                             "ON f.unit = i.unit WHERE i.module IN (?, ?)", (old, new))
            users = sorted({str(p) for (p,) in rows if _test_pack(str(p)) is not None})
            near = 0 if len(users) <= SWAP_FILES else -1
            for t in users:
                out.add(t, "", (1, 1), "import", SWAP, True,
                        f"{path} swaps its import of {old!r} for {new!r}; {t} imports it",
                        f"import:{old}", near, f"imports {old!r}, swapped for {new!r} in {path}")


def _last_part(module: str) -> str:
    return re.split(r"[./#]", module.rstrip("/#."))[-1]


def upstream_names(ans: Answer, seeds: list[Seed]) -> dict[str, DefRow]:
    """Outside definitions (no definition in the index) that changed definitions stand in
    for: ``Base.m`` for a method ``m`` of a class whose base ``Base`` is defined elsewhere
    (the base itself for a changed class), and ``other.mod.f`` for a function ``f`` of a
    module that imports from ``other.mod``, a module with the same last name part."""
    view = ans.view()
    out: dict[str, DefRow] = {}
    parents = defs_by_keys(view, [(s.d.unit, s.d.parent) for s in seeds if s.d.parent >= 0])
    for seed in seeds:
        d = seed.d
        if seed.removed:
            continue
        owner = d if d.kind == "class" else parents.get((d.unit, d.parent)) \
            if d.kind == "method" else None
        if owner is not None:
            for (base,) in view.each("SELECT b.base FROM {bases} b WHERE b.unit = ? AND "
                                     "b.idx = ?", (owner.unit, owner.idx)):
                name = str(base) if owner is d else f"{base}.{d.name}"
                out.setdefault(name, d)
        elif d.kind == "func" and d.parent < 0:
            module = d.full[:len(d.full) - len(d.qualname)].rstrip(".#")
            for (other,) in view.each("SELECT DISTINCT i.module FROM {imports} i WHERE "
                                      "i.unit = ? AND i.name IS NOT NULL", (d.unit,)):
                other = str(other)
                if other != module and module and _last_part(other) == _last_part(module):
                    sep = "#" if "#" in d.full else "."
                    out.setdefault(f"{other}{sep}{d.name}", d)
    names = list(out)
    for chunk in chunks(names, 200):  # defined in the index: the walk follows those
        for (full,) in view.each("SELECT d.full FROM {defs} d JOIN temp.vfiles f ON "
                                 f"f.unit = d.unit WHERE d.full IN ({marks(chunk)})", tuple(chunk)):
            out.pop(str(full), None)
    return out


def _by_upstream(ans: Answer, cs: ChangeSet, out: _Collector) -> None:
    """Tests naming an outside definition that a changed definition stands in for
    (upstream_names): the test pins or exercises the code the change adapts."""
    names = upstream_names(ans, [s for s in cs.seeds if _test_pack(s.d.path) is None])
    if not names:
        return
    view = ans.view()
    rows: list[RefRow] = []
    for chunk in chunks(list(names), 200):
        rows += [r for r in refs(view.each(f"SELECT {REF_COLS} {REF_FROM} WHERE r.target IN "
                                           f"({marks(chunk)})", tuple(chunk)))
                 if _test_pack(r.path) is not None]
    users = edges.enclosing_defs(view, rows)
    for r in rows:
        pack = _test_pack(r.path)
        d = names.get(r.target or "")
        if pack is None or d is None:
            continue
        user = users.get((r.unit, r.scope))
        name = test_symbol(pack, user) if user is not None else ""
        why = (f"{r.path}:{r.line} names {r.target}, which the changed {display(d)} "
               f"stands in for")
        chain = f"names {r.target} ({r.path}:{r.line}) ← {display(d)}"
        if name:
            out.add(r.path, name, (user.start_line, user.end_line),  # type: ignore[union-attr]
                    "upstream", UPSTREAM, True, why, f"upstream:{r.target}", chain=chain)
        else:
            out.add(r.path, "", (r.line, r.line), "upstream", UPSTREAM * MODULE_LEVEL, True,
                    why, f"upstream:{r.target}", chain=chain)


def _by_history(ans: Answer, cs: ChangeSet, tests: list[str], out: _Collector) -> None:
    """Test files that changed together with a changed (non-test) file in earlier commits:
    the tests that moved with a manifest, a lock file or a source file before."""
    view = ans.view()
    base = cs.base or (view.snapshot.commit if view.snapshot is not None else None)
    changed = [p for p in cs.files if _test_pack(p) is None and runnable(p)]
    present = {t for t in tests if runnable(t)}
    for c in cochanges(ans.root, base, changed, present):
        out.add(c.test, "", (1, 1), "history", HISTORY * c.confidence, True, c.said(),
                f"history:{c.changed}", 1 if c.strong else -1,
                f"history: with {c.changed} in {c.together} of {c.touching} commits")


def _by_data_files(ans: Answer, cs: ChangeSet, tests: list[str], out: _Collector
                   ) -> list[str]:
    """Test files naming a changed data file (not source: a testdata file, a fixture) in a
    string literal; the notes of the bounds hit."""
    data = [p for p in cs.unsupported if _test_pack(p) is None]
    found, notes = naming_tests(ans.root, data, tests, ans.config.limits.max_file_bytes)
    for n in found:
        out.add(n.test, "", (n.line, n.line), "data", DATA, True,
                f"{n.test}:{n.line} names {n.literal!r}: the changed data file {n.data}",
                f"data:{n.data}", 1, f"names {n.literal!r} ({n.test}:{n.line}), changed")
    return notes


def broad(cs: ChangeSet) -> str | None:
    """A note when the change touches many files across many folders (a sweep)."""
    files = [p for p in cs.files if _test_pack(p) is None]
    folders = {p.rpartition("/")[0] for p in files}
    if len(files) < BROAD_FILES or len(folders) < BROAD_FOLDERS:
        return None
    return (f"broad change: {len(files)} files in {len(folders)} folders; the tests listed "
            "are those with evidence, ranked; the whole test suite is the safe run")


def _by_fixture(ans: Answer, radius: Radius, fw: Frameworks, out: _Collector) -> None:
    """Fixtures reach tests by parameter name: an affected top-level helper of a shared
    fixture file (conftest.py) counts for tests under its folder that use the name as a
    receiver or a bare unresolved name; one of another test file, for tests of that file."""
    view = ans.view()
    fixtures: dict[str, list[Hit]] = {}
    for h in radius.hits:
        pack = _test_pack(h.path)
        if h.d is None or pack is None or test_symbol(pack, h.d) or h.d.parent >= 0 or \
                h.d.kind not in ("func", "method"):
            continue
        fixtures.setdefault(h.d.name, []).append(h)
    if not fixtures:
        return

    def scope(h: Hit) -> str:
        # a framework's shared-fixture file (its pack's `fixture_files`: conftest.py)
        shared = h.path.rsplit("/", 1)[-1] in fixture_files(
            fw.for_pack(_test_pack(h.path), h.path).name)  # type: ignore[arg-type]
        return (h.path.rpartition("/")[0] + "/").lstrip("/") if shared else h.path
    scopes = {n: [scope(h) for h in hs] for n, hs in fixtures.items()}
    wanted = {s for ss in scopes.values() for s in ss}
    files = [t for t in all_test_files(ans) if t in wanted or any(
        w.endswith("/") and t.startswith(w) or w == "" for w in wanted)][:MAX_FIXTURE_FILES]
    if not files:
        return
    names = list(fixtures)
    rows: list[RefRow] = []
    for chunk in chunks(files, 200):
        rows += refs(view.each(
            f"SELECT {REF_COLS} {REF_FROM} WHERE f.path IN ({marks(chunk)}) "
            "AND r.target IS NULL AND (substr(r.qualifier, 1, instr(r.qualifier || '.', '.') "
            f"- 1) IN ({marks(names)}) OR (r.qualifier = '' AND r.name IN "
            f"({marks(names)})))", (*chunk, *names, *names)))
    users = edges.enclosing_defs(view, rows)
    for r in rows:
        fixture = r.qualifier.split(".")[0] or r.name
        pack = _test_pack(r.path)
        user = users.get((r.unit, r.scope))
        if pack is None or user is None or fixture not in fixtures:
            continue
        hits = [h for h, where in zip(fixtures[fixture], scopes[fixture])
                if r.path == where or (where.endswith("/") or where == "")
                and r.path.startswith(where)]
        name = test_symbol(pack, user)
        if not hits or not name:
            continue
        h = hits[0]
        why = (f"{name} uses fixture {fixture!r} at {r.path}:{r.line} (by parameter name); "
               + h.evidence())
        out.add(r.path, name, (user.start_line, user.end_line), "fixture",
                FIXTURE / (h.distance + 1), True, why, h.seed,
                chain=f"{name} → fixture {fixture} ({r.path}:{r.line}); " + h.chain_text())


def _by_convention(ans: Answer, cs: ChangeSet, tests: list[str], out: _Collector) -> None:
    """foo.py ↔ test_foo.py / foo_test.py, foo.go ↔ foo_test.go, foo.ts ↔ foo.test.ts, …
    (the language's test-file patterns with the changed file's stem), and test files of the
    changed file's own folder (its package)."""
    by_name: dict[str, list[str]] = {}
    for t in tests:
        by_name.setdefault(t.rsplit("/", 1)[-1], []).append(t)
    for path in cs.files:
        pack = pack_for_path(path)
        if pack is None or pack.is_test_file(path):
            continue
        folder, _, base = path.rpartition("/")
        stem = base.rsplit(".", 1)[0]
        stems = {stem}
        if stem in pack.manifest.get("module_file_stems", ()) and folder:  # `pkg/__init__`
            stems.add(folder.rsplit("/", 1)[-1])
        names = {p.replace("*", s) for p in sibling_patterns(pack) for s in stems}
        for name in sorted(names):
            for t in by_name.get(name, []):
                near = t.rpartition("/")[0] == folder
                out.add(t, "", (1, 1), "convention", CONVENTION if near else CONVENTION_FAR,
                        True, f"naming convention: {path} ↔ {t}", f"file:{path}")
        for t in tests:
            if t.rpartition("/")[0] == folder and _test_pack(t) is pack:
                out.add(t, "", (1, 1), "package", PACKAGE, True,
                        f"same package as {path}", f"package:{path}")


def runnable(path: str) -> bool:
    """Whether a test file is worth running by itself: shared-fixture files (conftest.py)
    hold no tests of their own."""
    return path.rsplit("/", 1)[-1] not in all_fixture_files()


def sibling_patterns(pack: LanguagePack) -> list[str]:
    """Test-file patterns of the language and of languages sharing its resolver (a
    ``.tsx`` component may be tested by a ``.test.ts`` file)."""
    from spyglass.syntax.langpack import all_packs
    out: list[str] = []
    for other in all_packs().values():
        if other is pack or other.resolver == pack.resolver:
            out += [p for p in other.manifest.get("test_file_patterns", []) if p.count("*") == 1]
    return list(dict.fromkeys(out))


_TESTS: weakref.WeakKeyDictionary[object, tuple[object, list[str]]] = \
    weakref.WeakKeyDictionary()


def all_test_files(ans: Answer) -> list[str]:
    """Every test file of the view (cached per view state)."""
    view = ans.view()
    state = (view.snapshot.id if view.snapshot else None, view.changes.digest())
    cached = _TESTS.get(view)
    if cached is not None and cached[0] == state:
        return cached[1]
    rows = view.conn.execute("SELECT path FROM temp.vfiles").fetchall()
    files = sorted({str(p) for (p,) in rows if _test_pack(str(p)) is not None})
    _TESTS[view] = (state, files)
    return files


def plan(ans: Answer, radius: Radius, same_file: bool = True, reach: bool = True) -> Plan:
    """Rank test targets for a walk; attach each one's command and group them. `reach`
    also looks for tests past the walk's depth, in the history of the changed files and
    naming changed data files (test suggestions; a blast radius lists the tests within its
    own depth)."""
    fw = Frameworks(ans.root, ans.view())
    out = _Collector()
    _by_reference(ans, radius, out)
    _by_fixture(ans, radius, fw, out)
    if radius.change.partial and same_file:
        whole = ChangeSet(origin=f"whole files of {radius.change.origin}")
        for path in radius.change.partial:
            changed_defs(ans, whole, path, None, f"{WIDENED}{path}, same-file rule")
        wide = walk(ans, whole, min(radius.depth, SAME_FILE_DEPTH), resolved_only=True)
        _by_reference(ans, wide, out, SAME_FILE)
    notes = _by_reach(ans, radius, out) if reach else []
    tests = all_test_files(ans)
    _by_convention(ans, radius.change, tests, out)
    _by_name_words(radius.change, tests, out)
    _by_swapped_imports(ans, radius.change, out)
    _by_upstream(ans, radius.change, out)
    if reach:
        _by_history(ans, radius.change, tests, out)
        notes += _by_data_files(ans, radius.change, tests, out)
        notes += [n for n in (broad(radius.change),) if n]
    ranked = out.ranked()
    has_symbols = {t.path for t in ranked if t.symbol}
    kept = [t for t in ranked if t.symbol or (t.path not in has_symbols and runnable(t.path))]
    limit = ans.config.limits.max_matches_per_request
    targets: list[TestTarget] = []
    chosen: list[tuple[Framework, tuple[str, str]]] = []
    for t in kept[:limit]:
        pack = _test_pack(t.path)
        if pack is None:
            continue
        framework = fw.for_pack(pack, t.path)
        targets.append(replace(t, framework=framework.name,
                               command=fw.command(framework, [(t.path, t.symbol)])))
        chosen.append((framework, (t.path, t.symbol)))
    files = list(dict.fromkeys(t.path for t in targets))
    return Plan(tuple(targets), fw.group(chosen), fw.used(), files, notes,
                _by_file(targets, chosen, fw, out))


def _by_file(targets: list[TestTarget], chosen: list[tuple[Framework, tuple[str, str]]],
             fw: Frameworks, out: _Collector) -> tuple[TestFile, ...]:
    """The targets as an agent runs them: per test file (best first), its test ids, one
    command for them, and the file's best evidence in short (its other kinds named)."""
    groups: dict[str, list[int]] = {}
    for i, t in enumerate(targets):
        groups.setdefault(t.path, []).append(i)
    result = []
    for path, idx in groups.items():
        best = targets[idx[0]]
        framework = chosen[idx[0]][0]
        command = fw.command(framework, [chosen[i][1] for i in idx])
        also = [r for r in out.reasons.get(path, {}) if r != best.reason]
        evidence = out.chains.get((path, best.symbol), best.evidence)
        if also:
            evidence += f" (also: {', '.join(also)})"
        ids = tuple(targets[i].symbol for i in idx if targets[i].symbol)
        result.append(TestFile(path, ids, command, best.reason,
                               round(out.relevance.get(path, best.relevance), 4),
                               all(targets[i].uncertain for i in idx), evidence,
                               best.start_line))
    return tuple(result)
