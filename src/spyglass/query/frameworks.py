"""Test frameworks as the language packs declare them: detection from configuration files
(read, never executed), commands, shared fixture files. One algorithm reads every pack's
`frameworks` tables (docs/languages.md, "Test frameworks")."""

from __future__ import annotations

import configparser
import json
import re
import shlex
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from spyglass.errors import LanguagePackError
from spyglass.index import confined
from spyglass.query import symbols as sym
from spyglass.query.results import Framework, TestCommand
from spyglass.query.view import View
from spyglass.syntax.langpack import LanguagePack, all_packs

MAX_CONFIG_BYTES = 1 << 20
MAX_IDS = 100  # more test ids than this in one command (unless a framework says): whole files
MAX_SELECTION = 800  # characters of the tests one command names; past them, whole files/packages


Item = tuple[str, str]  # (test file path, test symbol or "" for the whole file)


_DECLARED: list[tuple[object, dict[str, dict[str, Any]]]] = []  # (packs, frameworks)


def declared() -> dict[str, dict[str, Any]]:
    """Every framework the packs declare (`[frameworks.<name>]`), by name. Two different
    declarations of one name are a LanguagePackError naming both packs (a pack that
    `extends` another inherits its declarations unchanged). Kept while the loaded packs
    are."""
    packs = all_packs()
    if _DECLARED and _DECLARED[0][0] is packs:
        return _DECLARED[0][1]
    out: dict[str, dict[str, Any]] = {}
    where: dict[str, str] = {}
    for pack in packs.values():
        for name, spec in pack.manifest.get("frameworks", {}).items():
            if name in out and out[name] != spec:
                raise LanguagePackError(f"{pack.folder}/manifest.toml: framework {name!r} is "
                                        f"already declared by the {where[name]} pack")
            out.setdefault(name, spec)
            where.setdefault(name, pack.name)
    _DECLARED[:] = [(packs, out)]
    return out


def fixture_files(framework: str) -> frozenset[str]:
    """File names whose definitions reach the framework's tests by parameter name
    (pytest's conftest.py): the framework's `fixture_files`."""
    return frozenset(declared().get(framework, {}).get("fixture_files", ()))


def all_fixture_files() -> frozenset[str]:
    """Every framework's shared-fixture file names."""
    return frozenset(n for spec in declared().values() for n in spec.get("fixture_files", ()))


_CONFIGS: dict[Path, tuple[tuple[int, int], str | None]] = {}  # path → (stat key, text)


def _read(root: Path, rel: str) -> str | None:
    """A configuration file's text (None when absent, a symlink, special or oversized),
    read confined to the root; cached by modification time and size, so repeated
    questions do not re-read it."""
    path = root / rel
    try:
        st = path.lstat()
    except OSError:
        return None
    stat_key = (st.st_mtime_ns, st.st_size)
    cached = _CONFIGS.get(path)
    if cached is not None and cached[0] == stat_key:
        return cached[1]
    data = confined.read_or_none(root, rel, MAX_CONFIG_BYTES)
    text = data.decode("utf-8", "replace") if data is not None else None
    _CONFIGS[path] = (stat_key, text)
    return text


_DECIDED: dict[tuple[Path, str, str], tuple[str | None, str | None]] = {}


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _answer(root: Path, rel: str, kind: str, arg: str) -> str | None:
    """What a detection rule finds in a configuration file: the matched text ("" when
    the rule only asks for presence) or None; cached with the file's text."""
    path = root / rel
    text = _read(root, rel)
    cached = _DECIDED.get((path, kind, arg))
    if cached is not None and cached[0] is text:
        return cached[1]
    found: str | None = None
    if text is not None:
        if kind == "toml_table":
            found = "" if _toml_has(text, arg) else None
        elif kind == "ini_section":
            found = "" if _ini_has(text, arg) else None
        elif kind in ("json_dependency", "json_script"):
            found = "" if _json_has(text, kind, arg) else None
        elif kind == "capture":
            m = re.search(arg, text)
            found = (m.group(1) if m and m.groups() else m.group(0) if m else "?")
        else:
            found = ""
    _DECIDED[(path, kind, arg)] = (text, found)
    return found


def _toml_has(text: str, dotted: str) -> bool:
    try:
        table: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    for key in dotted.split("."):
        if not isinstance(table, dict) or key not in table:
            return False
        table = table[key]
    return True


def _ini_has(text: str, section: str) -> bool:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return f"[{section}]" in text
    return parser.has_section(section)


def _json_has(text: str, kind: str, arg: str) -> bool:
    """A package.json-style file: a dependency named `arg` (or of its `@arg/` scope), or
    a `scripts.test` matching the regular expression `arg`."""
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError:
        data = {}
    data = data if isinstance(data, dict) else {}
    if kind == "json_script":
        scripts = data.get("scripts")
        script = str(scripts.get("test", "")) if isinstance(scripts, dict) else ""
        return re.search(arg, script) is not None
    deps: set[str] = set()
    for k in ("dependencies", "devDependencies", "peerDependencies"):
        if isinstance(data.get(k), dict):
            deps |= set(data[k])
    return arg in deps or any(d.startswith(f"@{arg}/") for d in deps)


RULE_KINDS = ("toml_table", "ini_section", "json_dependency", "json_script", "capture")


def _detect(root: Path, folder: str, rule: dict[str, Any]) -> tuple[str, str] | None:
    """(config path, evidence) when one detection rule matches in `folder`."""
    names = [rule["file"]] if "file" in rule else list(rule.get("files", ()))
    kind = next((k for k in RULE_KINDS if k in rule), "")
    for name in names:
        if _read(root, _join(folder, name)) is None:
            continue
        found = _answer(root, _join(folder, name), kind, str(rule.get(kind, "")))
        if found is None:
            continue
        config = f"{folder}/{name}" if folder else name
        evidence = str(rule.get("evidence", "{file}"))
        return config, evidence.format(file=name, config=config, capture=found)
    return None


class Frameworks:
    """Detects each test file's framework from the nearest configuration; caches by folder.

    From the test file's folder up to the root, each folder is tried with the pack's
    `test_frameworks` in order, each framework with its `detect` rules in order; the
    first rule that matches decides. A pack's `test_config_boundary` (package.json,
    go.mod) limits this to the nearest folder holding that file: when no rule matches
    there, the pack's `test_framework` runs from that folder. Nothing found: the pack's
    `test_framework`, from the root, with its `test_framework_assumed` evidence."""

    def __init__(self, root: Path, view: View) -> None:
        self.root = root
        self.view = view
        self._cache: dict[tuple[str, str], Framework] = {}
        self._used: dict[Framework, None] = {}

    def used(self) -> tuple[Framework, ...]:
        return tuple(self._used)

    def _folders(self, path: str) -> list[str]:
        parts = path.split("/")[:-1]
        return ["/".join(parts[:i]) for i in range(len(parts), -1, -1)]

    def for_pack(self, pack: LanguagePack, path: str) -> Framework:
        folder = path.rpartition("/")[0]
        cached = self._cache.get((pack.name, folder))
        if cached is None:
            cached = self._cache[(pack.name, folder)] = self._find(pack, path)
        self._used[cached] = None
        return cached

    def _find(self, pack: LanguagePack, path: str) -> Framework:
        manifest = pack.manifest
        default = str(manifest.get("test_framework", pack.name))
        candidates = [str(n) for n in manifest.get("test_frameworks", [default])]
        boundary = manifest.get("test_config_boundary")
        specs = declared()
        folders = self._folders(path)
        for at, folder in enumerate(folders):
            if boundary and _read(self.root, _join(folder, str(boundary))) is None:
                continue
            for name in candidates:
                spec = specs.get(name, {})
                for rule in spec.get("detect", ()):
                    hit = _detect(self.root, folder, rule)
                    if hit is not None:
                        if spec.get("outermost"):
                            folder, hit = _outermost(self.root, spec, folders[at:], folder, hit)
                        return Framework(name, _root(spec, folder), *hit)
            if boundary:
                config = f"{folder}/{boundary}" if folder else str(boundary)
                return Framework(default, _root(specs.get(default, {}), folder), config,
                                 f"no test runner named in {config}")
        assumed = str(manifest.get("test_framework_assumed", f"{default} assumed"))
        return Framework(default, "", "", assumed)

    # -- commands --------------------------------------------------------------------------
    def command(self, fw: Framework, items: Sequence[Item]) -> str:
        """The framework's `command` for these targets, from its root (see `selection`)."""
        return self.selection(fw, items)[0]

    def selection(self, fw: Framework, items: Sequence[Item]) -> tuple[str, str]:
        """The command running these targets, and a note when it runs more than them.
        Placeholders: `{files}` (the test files), `{ids}` (each target as its file and its
        symbol's parts joined by `id_separator`; whole files past `max_ids`), `{packages}`
        (the targets' folders as ``./dir``), `{symbols}` (the symbols alone, `Class#method`,
        or a file's stem, joined by commas) and `{names}` (a name pattern of the targets'
        tests); with `select`, the tests' names go to options by pattern (Go's ``-run`` /
        ``-bench``); with `name_option`, a command for one named test selects it by name.
        A selection longer than MAX_SELECTION characters runs whole files, then whole
        folders, and the note says so: a command stays short enough to run and read."""
        spec = declared().get(fw.name, {})
        rel = [(_relative(p, fw.root), s) for p, s in items]
        prefix = f"cd {shlex.quote(fw.root)} && " if fw.root else ""
        template = str(spec.get("command", f"{fw.name} {{files}}"))
        if spec.get("select"):
            text, note = self._selected(spec, template, items, fw.root)
            return prefix + text, note
        files = list(dict.fromkeys(p for p, _ in rel))
        sep = str(spec.get("id_separator", ""))
        ids = [p + "".join(f"{sep}{part}" for part in s.split(".")) if s and sep else p
               for p, s in rel]
        note = ""
        if len(ids) > int(spec.get("max_ids", MAX_IDS)) or _long(ids):
            ids = files
            note = f"{len(rel)} tests selected in {len(files)} file(s): the whole files run"
        if _long(ids):
            ids = files = [_folder(p) for p in dict.fromkeys(_packages(rel))]
            note = (f"{len(rel)} tests selected in {len({p for p, _ in rel})} files: their "
                    f"{len(ids)} folder(s) run whole")
        # {symbols}: each target as its symbol, the last `.` written `id_separator`
        # (`FooTest#testX`; Maven's -Dtest), or a whole file's stem, joined by commas.
        written = list(dict.fromkeys(
            (s.rpartition(".")[0] + sep + s.rpartition(".")[2] if "." in s and sep else s)
            if s else p.rpartition("/")[2].partition(".")[0] for p, s in rel))
        text = template.format(files=" ".join(shlex.quote(p) for p in files),
                               ids=" ".join(shlex.quote(i) for i in ids),
                               symbols=_symbols(written, spec.get("symbol_format")),
                               packages=" ".join(_packages(rel)),
                               names=shlex.quote(_alternation([s for _, s in rel if s])))
        name = next((s for _, s in rel if s), "") if len(rel) == 1 else ""
        option = spec.get("name_option")
        if option and name:  # `name_separator`: the runner's own path syntax (cargo `::`)
            name = name.replace(".", str(spec.get("name_separator", ".")))
            text += f" {option} {shlex.quote(name)}"
        return prefix + text, note

    def _selected(self, spec: dict[str, Any], template: str, items: Sequence[Item],
                  root: str) -> tuple[str, str]:
        """Targets selected by name, per package: a whole file stands for its top-level
        tests (`expand_files`); a package with no named test, or more names than fit in
        MAX_SELECTION characters, runs whole (and the note says so)."""
        selects = list(spec.get("select", ()))
        whole: list[str] = []
        named: dict[str, list[dict[str, None]]] = {}
        for path, symbol in items:
            pkg = _packages([(_relative(path, root), "")])[0]
            names = [symbol] if symbol and "." not in symbol else (
                [] if symbol or not spec.get("expand_files") else self._tests_of(path))
            if not names:
                whole.append(pkg)
                continue
            chosen = named.setdefault(pkg, [{} for _ in selects])
            for n in names:
                i = next((i for i, sel in enumerate(selects)
                          if re.search(str(sel.get("names", "")), n)), None)
                if i is not None:
                    chosen[i][n] = None
        parts: list[str] = []
        notes: list[str] = []
        for pkg, chosen in named.items():
            if pkg in whole:
                continue
            if _long(n for names_of in chosen for n in names_of):
                count = sum(len(names_of) for names_of in chosen)
                notes.append(f"{count} tests selected in {pkg}: the whole package runs")
                whole.append(pkg)
                continue
            cmd = template.format(packages=pkg, files="", ids="", names="")
            for sel, names_of in zip(selects, chosen):
                if names_of:
                    cmd += f" {sel['option']} {shlex.quote(_alternation(list(names_of)))}"
                elif "none" in sel:
                    cmd += f" {sel['option']} {shlex.quote(str(sel['none']))}"
            parts.append(cmd)
        if whole:
            parts.append(template.format(packages=" ".join(dict.fromkeys(whole)), files="",
                                         ids="", names=""))
        return " && ".join(parts), "; ".join(notes)

    def _tests_of(self, path: str) -> list[str]:
        """The top-level tests of a test file (what running the whole file runs)."""
        return [d.name for d in sym.defs_in_file(self.view, path)
                if d.kind == "test" and d.parent < 0 and "." not in d.qualname]

    def group(self, items: Sequence[tuple[Framework, Item]]) -> tuple[TestCommand, ...]:
        """One command per framework (and project root) over all targets; for frameworks
        selecting by name (Go), one per package. In the order of the targets (the most
        relevant first)."""
        groups: dict[tuple[Framework, str], list[Item]] = {}
        for fw, item in items:
            select = bool(declared().get(fw.name, {}).get("select"))
            part = _packages([(_relative(item[0], fw.root), "")])[0] if select else ""
            groups.setdefault((fw, part), []).append(item)
        out = []
        for (fw, _), its in groups.items():
            command, note = self.selection(fw, its)
            out.append(TestCommand(fw.name, command, len(its), fw.config, note))
        return tuple(out)


def _outermost(root: Path, spec: dict[str, Any], folders: list[str], folder: str,
               hit: tuple[str, str]) -> tuple[str, tuple[str, str]]:
    """The outermost of `folders` (the one found first, then its parents) where one of the
    framework's rules matches: a build's root above its subprojects' own files (sbt's
    `project/build.properties` above `ast/build.sbt`)."""
    for upper in folders[1:]:
        for rule in spec.get("detect", ()):
            found = _detect(root, upper, rule)
            if found is not None:
                folder, hit = upper, found
                break
    return folder, hit


def _symbols(written: list[str], fmt: object) -> str:
    """`{symbols}`: the targets' symbols joined by commas (Maven's `-Dtest=A#m,B`), or,
    with the framework's `symbol_format` (`*{symbol}`: sbt's `testOnly *ASpec *BSpec`),
    each written so, joined by spaces; quoted for the shell unless every one is plain
    (word characters, dots, `*`: the command's own quotes hold them)."""
    if not fmt:
        return shlex.quote(",".join(written))
    text = " ".join(str(fmt).format(symbol=s) for s in written)
    return text if all(re.fullmatch(r"[\w.*]+", w) for w in text.split(" ")) else shlex.quote(text)


def _root(spec: dict[str, Any], folder: str) -> str:
    """Where a framework's commands run: the configuration's folder, or the root."""
    return folder if spec.get("root") == "config" else ""


def _packages(rel: Sequence[Item]) -> list[str]:
    folders = (p.rpartition("/")[0] for p, _ in rel)
    return list(dict.fromkeys(f"./{f}" if f else "." for f in folders))


def _relative(path: str, root: str) -> str:
    return path[len(root) + 1:] if root and path.startswith(root + "/") else path


def _long(names: Iterable[str]) -> bool:
    """Whether naming these tests would make a command too long to run and read."""
    return sum(len(n) + 1 for n in names) > MAX_SELECTION


def _folder(package: str) -> str:
    """``./dir`` → ``dir`` (``.`` stays): a folder argument for file-taking runners."""
    return package.removeprefix("./") or "."


def _alternation(names: list[str]) -> str:
    body = "|".join(re.escape(n) for n in names)
    return f"^{body}$" if len(names) == 1 else f"^({body})$"
