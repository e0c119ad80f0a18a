"""What a change touches: targets, a git diff or the workspace overlay as changed definitions."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from spyglass.errors import BadInput, GitRefused, IndexUnavailable, SpyglassError
from spyglass.index import confined, gitcall
from spyglass.index import source as src
from spyglass.query import paths as client_paths
from spyglass.query import symbols as sym
from spyglass.query.closure import CLASS_KINDS
from spyglass.query.results import DefRow
from spyglass.query.rows import baseline_defs
from spyglass.syntax.langpack import pack_for_path

if TYPE_CHECKING:
    from spyglass.query.answer import Answer
    from spyglass.query.view import View

Hunk = tuple[int, int, bool]  # first line, last line (1-based, new side), deletion point?
RANGE = re.compile(r"(.+?):(\d+)(?:-(\d+)|:\d+)?")


@dataclass(frozen=True, slots=True)
class Seed:
    """A changed definition: where the blast radius starts."""

    d: DefRow
    why: str
    uncertain: bool = False
    removed: bool = False  # no longer on disk: found in the baseline snapshot


@dataclass(frozen=True, slots=True)
class ModuleChange:
    """Changed lines outside every definition (imports, module statements) of one file."""

    path: str
    line: int
    why: str


@dataclass
class ChangeSet:
    """The change a blast radius or test suggestion starts from."""

    origin: str
    seeds: list[Seed] = field(default_factory=list)
    modules: list[ModuleChange] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # changed files, supported or not
    unsupported: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    partial: list[str] = field(default_factory=list)  # files changed in some lines only
    base: str | None = None  # the commit a --diff compares with (None: the snapshot's)

    def add_file(self, path: str) -> None:
        if path not in self.files:
            self.files.append(path)
            if pack_for_path(path) is None:
                self.unsupported.append(path)


def _span(hunks: list[Hunk]) -> str:
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b, point in hunks if not point]
    if any(point for *_, point in hunks):
        parts.append("deleted lines")
    return ", ".join(parts[:4]) + (", …" if len(parts) > 4 else "")


def _lines(ci: Answer, path: str) -> list[str]:
    data = confined.read_or_none(ci.root, path, ci.config.limits.max_file_bytes)
    return data.decode("utf-8", "replace").splitlines() if data is not None else []


def _starts(defs: list[DefRow], text: list[str]) -> dict[tuple[int, int], int]:
    """Each definition's first line, decorators included."""
    out: dict[tuple[int, int], int] = {}
    for d in defs:
        start = d.start_line
        while start > 1 and start - 2 < len(text) and text[start - 2].lstrip().startswith("@"):
            start -= 1
        out[(d.unit, d.idx)] = start
    return out


def changed_defs(ci: Answer, cs: ChangeSet, path: str, hunks: list[Hunk] | None,
                 why: str) -> None:
    """Add the definitions of `path` that own a changed line (all of them when `hunks` is
    None), plus a module-level change for changed lines outside every definition."""
    view = ci.view()
    cs.add_file(path)
    defs = sym.defs_in_file(view, path)
    if hunks is None:
        cs.seeds.extend(Seed(d, f"{why}; whole file") for d in defs)
        if not defs:
            cs.modules.append(ModuleChange(path, 1, f"{why}; whole file"))
        return
    if path not in cs.partial:
        cs.partial.append(path)
    text = _lines(ci, path)
    starts = _starts(defs, text)
    children: dict[int, list[DefRow]] = {}
    for d in defs:
        children.setdefault(d.parent, []).append(d)

    def own(d: DefRow | None, lines: set[int]) -> set[int]:
        """The lines of `lines` that are `d`'s own: not inside a child's span — except
        `d`'s first line, its header, which is its own even when a child shares it (a
        one-line `struct r { int w; }` changes the struct as well as its field)."""
        kids = children.get(d.idx if d else -1, [])
        head = starts[(d.unit, d.idx)] if d else 0
        return {n for n in lines if n == head or not any(
            starts[(k.unit, k.idx)] <= n <= k.end_line for k in kids)}
    chosen: dict[int, list[Hunk]] = {}
    module_lines: list[int] = []
    imports = _import_lines(view, path)
    import_only = False  # a changed module-level line that is a plain import
    removed = len(cs.seeds)
    removed_defs(ci, cs, path, {d.full for d in defs}, why)
    removed = len(cs.seeds) - removed
    for hunk in hunks:
        a, b, point = hunk
        if point:
            holding = [d for d in defs if starts[(d.unit, d.idx)] <= a and b <= d.end_line]
            if holding:
                inner = max(holding, key=lambda d: (starts[(d.unit, d.idx)], -d.end_line))
                chosen.setdefault(inner.idx, []).append(hunk)
            elif not removed:  # lines deleted between definitions: which is unknown
                module_lines.append(a)
            continue
        hi = min(b, max(a, len(text) + 1))  # lines past the end are all alike: keep one
        lines = {n for n in range(a, hi + 1) if n > len(text) or text[n - 1].strip()}
        for d in defs:
            if own(d, lines & set(range(starts[(d.unit, d.idx)], d.end_line + 1))):
                chosen.setdefault(d.idx, []).append(hunk)
        top = own(None, lines)
        import_only |= bool(top & imports)
        module_lines += sorted(top - imports)[:1]
    for d in defs:
        if d.idx in chosen:
            cs.seeds.append(Seed(d, f"{why}; lines {_span(chosen[d.idx])}"))
    if module_lines:
        line = max(min(module_lines), 1)
        cs.modules.append(ModuleChange(path, line, f"{why}; module-level line {line}"))
    elif import_only:
        cs.notes.append(f"{path}: the module-level lines changed are imports: they change "
                        "what the file uses, not what it provides to others")


def _import_lines(view: View, path: str) -> set[int]:
    """Lines of `path` holding an import that is not re-exported, in a language whose
    imports bind names in the importing file only (its pack's `file_local_imports`: Go,
    Java, TypeScript, …; not Python, whose imports are module attributes): a change there
    affects no user of the file."""
    pack = pack_for_path(path)
    if pack is None or not pack.manifest.get("file_local_imports", False):
        return set()
    return {int(str(n)) for (n,) in view.each(
        "SELECT i.line FROM {imports} i JOIN temp.vfiles f ON f.unit = i.unit WHERE f.path = ? "
        "AND i.reexport = 0", (path,))}


def removed_defs(ci: Answer, cs: ChangeSet, path: str, present: set[str], why: str) -> None:
    """Definitions the baseline snapshot has for `path` that the file no longer has."""
    view = ci.view()
    member = view.members.get(path)
    if member is None or member.unit is None or view.snapshot is None:
        return
    if member.unit in {d.unit for d in sym.defs_in_file(view, path)}:
        return  # the file is unchanged against the snapshot
    for d in baseline_defs(view, member.unit, path, member.language or ""):
        if d.full not in present:
            cs.seeds.append(Seed(d, f"{why}; definition removed (was at {path}:{d.start_line} "
                                    "in the snapshot)", removed=True))


def from_workspace(ci: Answer) -> ChangeSet:
    """The files on disk against the baseline snapshot (the overlay)."""
    view = ci.view()
    snap = view.snapshot
    what = f"workspace vs snapshot {(snap.commit or 'disk')[:12]}" if snap else "workspace"
    cs = ChangeSet(origin=what)
    for path in view.changes.added:
        changed_defs(ci, cs, path, None, "added")
    for path in view.changes.modified:
        changed_defs(ci, cs, path, _overlay_hunks(ci, path), "modified")
    for path in view.changes.deleted:
        cs.add_file(path)
        removed_defs(ci, cs, path, set(), "deleted")
    if not cs.files:
        cs.notes.append("the workspace has no changes against the snapshot: name targets "
                        "(paths, PATH:LINE, symbols) or a --diff revision")
    return cs


MAX_OTHER_FILES = 20_000  # tracked files no pack reads, compared with the snapshot at most


def other_changes(ci: Answer, cs: ChangeSet) -> None:
    """Add the tracked files no language pack reads (manifests, lock files, data) whose
    content on disk differs from the snapshot's commit: blob ids from git's stat cache or
    hashed by spyglass, never a git process reading the work tree. Bounded (a note)."""
    view = ci.view()
    snap = view.snapshot
    if snap is None or not snap.commit or not view.probe.is_git:
        return
    try:
        old = {p: b for p, b in src.tree_blobs(ci.root, snap.commit).items()
               if pack_for_path(p) is None}
    except (GitRefused, IndexUnavailable, OSError):
        return
    view.disk_files()  # the workspace listed (a clean start has not listed it yet)
    probe = view.probe
    paths = sorted(old.keys() | {p for p in probe.tracked if pack_for_path(p) is None})
    if len(paths) > MAX_OTHER_FILES:
        cs.notes.append(f"{len(paths)} tracked files no language reads; the first "
                        f"{MAX_OTHER_FILES} compared with the snapshot")
    changed = [p for p in paths[:MAX_OTHER_FILES] if old.get(p) != probe.blob_of(p)]
    for path in changed:
        cs.add_file(path)
    if changed:
        cs.notes = [n for n in cs.notes if not n.startswith("the workspace has no changes")]


def _overlay_hunks(ci: Answer, path: str) -> list[Hunk] | None:
    view = ci.view()
    member = view.members.get(path)
    if member is None or view.snapshot is None or view.snapshot.commit is None:
        return None
    try:
        old = next((d for _, d in src.read_blobs(
            ci.root, [member.blob], max_bytes=ci.config.limits.max_file_bytes)), None)
    except OSError:
        old = None
    if old is None:
        return None
    return hunks(old, _lines(ci, path))


def hunks(old: bytes, new: list[str]) -> list[Hunk]:
    """Changed lines of `new` against the bytes `old` (the one line diff of change sets:
    the overlay's and a revision's)."""
    matcher = difflib.SequenceMatcher(None, old.decode("utf-8", "replace").splitlines(), new,
                                      autojunk=False)
    out: list[Hunk] = []
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag == "delete":
            out.append((j1, j1 + 1, True))
        elif tag != "equal":
            out.append((j1 + 1, j2, False))
    return out


def _commit(ci: Answer, rev: str, text: str) -> str:
    try:
        return src.resolve_commit(ci.root, rev or "HEAD", "--diff")
    except GitRefused:
        raise
    except (IndexUnavailable, OSError) as exc:
        reason = str(exc).split(" failed: ", 1)[-1]
        raise BadInput(f"--diff {text!r} does not resolve: {reason}") from exc


def _sides(ci: Answer, rev: str) -> tuple[str, str | None]:
    """(old commit, new commit or None for the working tree) of REV, A..B or A...B."""
    if "..." in rev:
        a, _, b = rev.partition("...")
        old, new = _commit(ci, a, rev), _commit(ci, b, rev)
        base = src.merge_base(ci.root, old, new)
        if base is None:
            raise BadInput(f"--diff {rev!r}: the two sides have no common ancestor")
        return base, new
    if ".." in rev:
        a, _, b = rev.partition("..")
        return _commit(ci, a, rev), _commit(ci, b, rev)
    return _commit(ci, rev, rev), None


def from_diff(ci: Answer, rev: str) -> ChangeSet:
    """Changed files and lines of a revision against the working tree (like ``git diff
    REV``), or of a range ``A..B`` / ``A...B``, mapped onto the current files.

    Git never compares the working tree here (that would run a repository's clean
    filters): the revision's blobs are read from git objects (`ls-tree`, `cat-file`, no
    filters) and compared with the files spyglass reads from disk itself, through the
    workspace probe's blob ids — the overlay's machinery (docs/security.md, "Git")."""
    if not rev or rev.startswith("-") or any(c in rev for c in "\0\n\r"):
        raise BadInput(f"--diff wants a git revision or range, got {rev!r}")
    if not ci.view().probe.is_git:
        raise BadInput(f"--diff needs a git repository; {ci.root} is not one")
    old_commit, new_commit = _sides(ci, rev)
    old = src.tree_blobs(ci.root, old_commit)
    if new_commit is None:
        view = ci.view()
        view.disk_files()  # a clean start has not listed the workspace yet: list it now
        probe = view.probe
        new = {p: b for p in sorted(probe.tracked - probe.deleted)
               if (b := probe.blob_of(p)) is not None}
    else:
        new = old if new_commit == old_commit else src.tree_blobs(ci.root, new_commit)
    changed = sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p))
    wanted = [old[p] for p in changed if p in old and p in new]
    if new_commit is not None:
        wanted += [new[p] for p in changed if p in new]
    limit = ci.config.limits.max_file_bytes
    sizes = src.blob_sizes(ci.root, wanted)  # sized first: no blob over the limit is read
    over = {sha: n for sha, n in sizes.items() if n > limit}
    contents = dict(src.read_blobs(ci.root, [w for w in wanted if w not in over], max_bytes=limit))
    cs = ChangeSet(origin=f"git diff {rev}", base=old_commit)
    why = f"changed in {cs.origin}"
    for path in changed:
        if path not in new:
            cs.add_file(path)
            removed_defs(ci, cs, path, set(), f"deleted in {cs.origin}")
            continue
        if confined.kind(ci.root, path) != "file":
            cs.add_file(path)
            continue
        sides = [old.get(path), new[path] if new_commit is not None else None]
        large = next((sha for sha in sides if sha in over), None)
        if large is not None:
            cs.notes.append(f"{path}: blob {large[:12]} is {over[large]} bytes > "
                            f"max_file_bytes {limit}: not read; the whole file is taken as "
                            "changed")
            changed_defs(ci, cs, path, None, why)
            continue
        absent = [sha for sha in sides if sha is not None and sha not in contents]
        if absent:  # only a partial clone lacks an object it lists (never fetched)
            cs.notes.append(f"{path}: partial clone: object {absent[0]} is not present "
                            f"locally; {gitcall.PARTIAL_HINT}; the whole file is taken as "
                            "changed")
            changed_defs(ci, cs, path, None, why)
            continue
        before = contents[old[path]] if path in old else b""
        after = _lines(ci, path) if new_commit is None else \
            contents[new[path]].decode("utf-8", "replace").splitlines()
        changed_defs(ci, cs, path, hunks(before, after), why)
    return cs


def from_targets(ci: Answer, targets: list[str]) -> ChangeSet:
    """Paths, PATH:LINE / PATH:START-END ranges, folders or symbol names."""
    view = ci.view()
    cs = ChangeSet(origin="targets")
    for text in targets:
        m = RANGE.fullmatch(text)
        if m and confined.kind(ci.root, ci.rel_path(m.group(1))) == "file":
            rel = ci.rel_path(m.group(1))
            a = int(m.group(2))
            b = int(m.group(3) or a)
            if a < 1 or b < a:
                raise BadInput(f"{text}: line ranges are 1-based START-END with START <= END")
            before = len(cs.seeds) + len(cs.modules)
            changed_defs(ci, cs, rel, [(a, b, False)], f"target {text}")
            if len(cs.seeds) + len(cs.modules) == before:
                cs.notes.append(f"{text}: blank lines only; nothing there can affect code")
            continue
        rel = ci.rel_path(text)
        found = confined.kind(ci.root, rel)
        if found == "file":
            changed_defs(ci, cs, rel, None, f"target {text}")
        elif found == "dir":
            prefix = f"{rel}/" if rel else ""
            paths = sorted(f.path for f in view.disk_files() if f.path.startswith(prefix)
                           and f.skipped is None and pack_for_path(f.path))
            ci.limit_files(paths)
            for path in paths:
                changed_defs(ci, cs, path, None, f"target {text}")
        elif rel in view.members:
            cs.add_file(rel)
            removed_defs(ci, cs, rel, set(), f"target {text} (deleted)")
        else:
            _symbol(ci, cs, text)
    return cs


def _symbol(ci: Answer, cs: ChangeSet, name: str) -> None:
    view = ci.view()
    try:
        defs = sym.find_defs(view, name)
    except SpyglassError:
        defs = []
    if not defs:
        looks_like_path = "/" in name and "#" not in name or pack_for_path(name) is not None
        if looks_like_path:
            raise BadInput(f"{client_paths.named(name)}: no such file or folder in the "
                           "repository")
        raise BadInput(f"no definition named {name!r} (and no such path); try code_find_symbol "
                       f"with a pattern such as '*{name.split('.')[-1]}*'")
    several = len(defs) > 1
    cands = ", ".join(f"{d.path}:{d.start_line}" for d in defs[:5])
    parents = {(d.unit, d.idx) for d in defs}
    for d in defs:
        cs.add_file(d.path)
        cs.seeds.append(Seed(d, f"target {name}" + (f" ({len(defs)} candidate definitions: "
                                                      f"{cands})" if several else ""), several))
    if any(d.kind in CLASS_KINDS for d in defs):
        for path in {d.path for d in defs}:
            for m in sym.defs_in_file(view, path):
                if (m.unit, m.parent) in parents:
                    cs.seeds.append(Seed(m, f"member of target {name}", several))


def collect(ci: Answer, targets: list[str], diff: str | None) -> ChangeSet:
    """The change to analyse: targets and/or a diff; by default the workspace overlay."""
    ci.limit_files(targets)
    if not targets and diff is None:
        return from_workspace(ci)
    parts = ([from_targets(ci, targets)] if targets else []) + (
        [from_diff(ci, diff)] if diff is not None else [])
    cs = ChangeSet(origin=" + ".join(p.origin for p in parts))
    for p in parts:
        cs.seeds += p.seeds
        cs.modules += p.modules
        cs.notes += p.notes
        cs.partial += p.partial
        cs.base = cs.base or p.base
        for f in p.files:
            cs.add_file(f)
    return cs
