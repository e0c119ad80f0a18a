"""The include walk: `#if` branches decided with a unit's includes read (docs/c.md "Preprocessor conditions").

Each translation unit of a compile_commands.json is walked as its preprocessor would walk
it, directives only (syntax/conditionals.py reads and decides them); see IncludeWalk.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from spyglass.syntax.conditionals import (
    FUNCTION,
    KEPT,
    MAX_REGIONS,
    Line,
    Region,
    _Env,
    _walk,
    guard_name,
)

MAX_DEPTH = 40  # nested #include levels followed
MAX_WALK = 2_000_000  # directive lines read by one include walk (then it gives up)


class _Budget(Exception):
    """The include walk read more directive lines than MAX_WALK."""


class IncludeWalk:
    """`#if` branches decided with the includes read (docs/c.md "Preprocessor conditions").

    Each unit with a compile command is walked as its preprocessor would: its directives in
    order, and at each `#include` in a taken branch that names a file of the repository,
    that file's directives under the same macros (`#define`s of a header decide the
    includer's later conditions: `config.h`'s `HAVE_X`). A unit's regions are then decided
    by its headers' macros too; a header's regions are those inactive for every unit that
    includes it (a branch some includer takes is not inactive). Only directives are read.
    """

    def __init__(self, lines_of: Callable[[str], list[Line] | None],
                 resolve: Callable[[str, str], str | None], absent: Iterable[str] = (),
                 present: dict[str, str] | None = None, budget: int = MAX_WALK,
                 is_source: Callable[[str], bool] = lambda _p: False) -> None:
        self.lines_of = lines_of
        self.resolve = resolve  # (including file, `#include` operand) → file or None
        self.absent = tuple(absent)
        self.present = dict(present or {})
        self.left = budget
        self.visits: dict[str, list[list[Region]]] = {}  # header → regions per unit
        self.guards: dict[str, str | None] = {}  # header → its include guard
        self.bodies: dict[str, set[str]] = {}
        self.sites: dict[str, set[str]] = {}  # macro → the files defining it
        self.reached: dict[str, set[str]] = {}  # file → the units that read it
        self.is_source = is_source  # a file compiled on its own (`.c`), not a header
        # file → the source files its text includes (`#include "keccak.c"`, also from a
        # header), and per unit that reads one the macros as they stand at its end
        self.sources: dict[str, list[str]] = {}
        self.values: dict[str, dict[str, str | None]] = {}

    def unit(self, path: str, defines: dict[str, str | None]) -> list[Region] | None:
        """The unit's inactive regions with its includes read (None: the walk gave up)."""
        lines = self.lines_of(path)
        if lines is None:
            return None
        env = _Env(defines, self.absent, self.present)
        env.bodies = self.bodies
        env.sites = self.sites
        env.file = path
        seen: set[str] = set()
        visits: dict[str, list[Region]] = {}
        reads_source = [False]

        def include(written: str, includer: str, depth: int) -> None:
            target = self.resolve(includer, written)
            if target is None or depth > MAX_DEPTH or target == path:
                return
            body = self.lines_of(target)
            if body is None:
                return
            self.left -= len(body)
            if self.left < 0:
                raise _Budget
            first = target not in seen
            if target not in self.guards:
                self.guards[target] = guard_name(body)
            guard = self.guards[target]
            if not first and guard is not None and env.known.get(guard) is not None:
                return  # included again, its guard defined: nothing in it is read
            seen.add(target)
            if self.is_source(target):
                self.sources.setdefault(includer, []).append(target)
                reads_source[0] = True
            env.file = target
            regions = _walk(body, env, lambda w: include(w, target, depth + 1))
            env.file = includer
            if first:
                visits[target] = regions
        self.left -= len(lines)
        try:
            regions = _walk(lines, env, lambda w: include(w, path, 1))
        except _Budget:
            return None
        for header, found in visits.items():
            self.visits.setdefault(header, []).append(found)
        for file in (path, *seen):
            self.reached.setdefault(file, set()).add(path)
        if reads_source[0]:
            self.values[path] = env.known
        return regions

    def unused_arguments(self) -> dict[str, tuple[int, ...]]:
        """Function-like macros that leave arguments out of their expansion in every
        definition the walks met in a branch taken, or maybe taken, with the positions of
        those arguments (`#define __contract__(x)` unless CBMC: (0,); `MLD_FREE(v, T, N,
        ctx)`, whose body never names T: (1,)): those arguments are never compiled. A
        definition in a branch that may be taken keeps every argument."""
        out: dict[str, tuple[int, ...]] = {}
        for name, shapes in self.bodies.items():
            counts = {s[len(FUNCTION):].partition(":")[0] for s in shapes}
            if KEPT in shapes or not all(s.startswith(FUNCTION) for s in shapes) \
                    or len(counts) != 1:
                continue
            unused = set(range(int(counts.pop())))
            for s in shapes:
                unused -= {int(i) for i in s.partition(":")[2].split(",") if i}
            if unused:
                out[name] = tuple(sorted(unused))
        return out

    def empty_macros(self) -> frozenset[str]:
        """Function-like macros that expand to nothing in every definition met (their
        arguments are all left out: unused_arguments)."""
        return frozenset(n for n, unused in self.unused_arguments().items()
                         if all(f"{FUNCTION}{len(unused)}:" == s for s in self.bodies[n]))

    def object_bodies(self) -> dict[str, frozenset[str]]:
        """Object-like macros and the bodies of every definition of each that the walks met
        in a branch taken, or maybe taken (`STATIC` → {`static inline`}); a macro also
        defined function-like, or with a long body, is left out."""
        return {n: frozenset(shapes) for n, shapes in self.bodies.items()
                if not any(s.startswith(FUNCTION) for s in shapes)}

    def unit_values(self, file: str) -> dict[str, str | None]:
        """The macros at the end of the first unit (by path) that reads `file` and a
        source, `file` itself when it is one ({} when none)."""
        if file in self.values:
            return self.values[file]
        unit = min((u for u in self.reached.get(file, ()) if u in self.values), default=None)
        return self.values[unit] if unit is not None else {}

    def visible(self, name: str, file: str) -> bool:
        """Whether some unit that reads `file` also reads a file defining the macro `name`
        (a header of another part of the repository defining it does not make a use of
        the name in `file` a use of that macro)."""
        units = self.reached.get(file, set())
        return any(units & self.reached.get(site, set()) for site in self.sites.get(name, ()))

    def headers(self) -> dict[str, list[Region]]:
        """Each header reached: the regions inactive for every unit that included it, then
        those no unit provably takes (inactive or undecided for each, undecided for one)."""
        out: dict[str, list[Region]] = {}
        for h, v in self.visits.items():
            inactive = common([[r for r in found if not r.undecided] for found in v])
            maybe = common([[replace(r, undecided=False) for r in found] for found in v])
            out[h] = (inactive + [replace(r, undecided=True, assumed=()) for r in maybe
                                  if not any(i.start <= r.start and r.end <= i.end
                                             for i in inactive)])[:MAX_REGIONS]
        return out


def common(visits: list[list[Region]]) -> list[Region]:
    """The lines inactive in every one of `visits` (each a file's regions), as regions:
    the first visit's directive as the reason, the names assumed by any of them."""
    if not visits:
        return []
    out = visits[0]
    for other in visits[1:]:
        cut: list[Region] = []
        for a in out:
            for b in other:
                lo, hi = max(a.start, b.start), min(a.end, b.end)
                if lo <= hi:
                    cut.append(Region(lo, hi, a.why, tuple(sorted({*a.assumed, *b.assumed}))))
        out = cut
        if not out:
            break
    return out[:MAX_REGIONS]
