"""Test frameworks from configuration files (read, never executed) and the commands they take."""

from __future__ import annotations

import configparser
import json
import re
import shlex
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from spyglass.index import confined
from spyglass.query import symbols as sym
from spyglass.query.results import Framework, TestCommand
from spyglass.query.view import View
from spyglass.syntax.langpack import LanguagePack

MAX_CONFIG_BYTES = 1 << 20
MAX_IDS = 100  # more test ids than this in one command: run whole files instead
JS_CONFIGS = {"vitest": ("vitest.config", "vitest.workspace"), "jest": ("jest.config",)}
JS_EXTS = (".ts", ".js", ".mts", ".mjs", ".cts", ".cjs", ".json")
GO_RUN = re.compile(r"^(Test|Example|Fuzz)")
GO_BENCH = re.compile(r"^Benchmark")


Item = tuple[str, str]  # (test file path, test symbol or "" for the whole file)


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


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


_DECIDED: dict[tuple[Path, str], tuple[str | None, bool]] = {}  # (file, question) → answer


def _answer(root: Path, rel: str, question: str) -> bool:
    """Whether a configuration file configures pytest (cached with the file's text)."""
    path = root / rel
    text = _read(root, rel)
    cached = _DECIDED.get((path, question))
    if cached is not None and cached[0] is text:
        return cached[1]
    if text is None:
        answer = False
    elif question == "pyproject":
        try:
            tool = tomllib.loads(text).get("tool", {})
        except tomllib.TOMLDecodeError:
            tool = {}
        answer = isinstance(tool, dict) and "pytest" in tool
    else:
        answer = _ini_has(text, question)
    _DECIDED[(path, question)] = (text, answer)
    return answer


def _ini_has(text: str, section: str) -> bool:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return f"[{section}]" in text
    return parser.has_section(section)


class Frameworks:
    """Detects each test file's framework from the nearest configuration; caches by folder."""

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
        family = str(pack.manifest.get("test_framework", pack.name))
        folder = path.rpartition("/")[0]
        cached = self._cache.get((family, folder))
        if cached is None:
            if family == "pytest":
                cached = self._python(path)
            elif family == "go":
                cached = self._go(path)
            else:
                cached = self._js(path, family)
            self._cache[(family, folder)] = cached
        self._used[cached] = None
        return cached

    def _python(self, path: str) -> Framework:
        for folder in self._folders(path):
            rel = f"{folder}/" if folder else ""
            if _read(self.root, _join(folder, "pytest.ini")) is not None:
                return Framework("pytest", "", f"{rel}pytest.ini", "pytest.ini")
            if _answer(self.root, _join(folder, "pyproject.toml"), "pyproject"):
                return Framework("pytest", "", f"{rel}pyproject.toml",
                                 "[tool.pytest.ini_options] in pyproject.toml")
            if _answer(self.root, _join(folder, "tox.ini"), "pytest"):
                return Framework("pytest", "", f"{rel}tox.ini", "[pytest] in tox.ini")
            if _answer(self.root, _join(folder, "setup.cfg"), "tool:pytest"):
                return Framework("pytest", "", f"{rel}setup.cfg", "[tool:pytest] in setup.cfg")
        return Framework("pytest", "", "", "no pytest configuration found; pytest assumed "
                         "(it runs unittest-style tests too)")

    def _go(self, path: str) -> Framework:
        for folder in self._folders(path):
            text = _read(self.root, _join(folder, "go.mod"))
            if text is not None:
                m = re.search(r"^module\s+(\S+)", text, re.MULTILINE)
                mod = m.group(1) if m else "?"
                config = f"{folder}/go.mod" if folder else "go.mod"
                return Framework("go", folder, config, f"go.mod declares module {mod}")
        return Framework("go", "", "", "no go.mod found; go test assumed")

    def _js(self, path: str, family: str) -> Framework:
        for folder in self._folders(path):
            text = _read(self.root, _join(folder, "package.json"))
            if text is None:
                continue
            config = f"{folder}/package.json" if folder else "package.json"
            try:
                data: Any = json.loads(text)
            except json.JSONDecodeError:
                data = {}
            data = data if isinstance(data, dict) else {}
            deps: set[str] = set()
            for k in ("dependencies", "devDependencies", "peerDependencies"):
                if isinstance(data.get(k), dict):
                    deps |= set(data[k])
            scripts = data.get("scripts") if isinstance(data.get("scripts"), dict) else {}
            script = str(scripts.get("test", "")) if scripts else ""
            for name in ("vitest", "jest"):
                files = [f"{stem}{ext}" for stem in JS_CONFIGS[name] for ext in JS_EXTS]
                found = next((f for f in files
                              if confined.kind(self.root, _join(folder, f)) == "file"), None)
                if found:
                    return Framework(name, folder, f"{folder}/{found}" if folder else found,
                                     f"{found} present")
                if name in deps or any(d.startswith(f"@{name}/") for d in deps) or \
                        re.search(rf"\b{name}\b", script):
                    return Framework(name, folder, config, f"{name} in {config}")
            if "mocha" in deps or re.search(r"\bmocha\b", script):
                return Framework("mocha", folder, config, f"mocha in {config}")
            if "node --test" in script:
                return Framework("node", folder, config, f"node --test in {config}")
            return Framework(family if family in ("vitest", "jest", "mocha") else "node",
                             folder, config, f"no test runner named in {config}")
        return Framework(family if family in ("vitest", "jest", "mocha") else "node", "", "",
                         "no package.json found")

    # -- commands --------------------------------------------------------------------------
    def command(self, fw: Framework, items: Sequence[Item]) -> str:
        rel = [(_relative(p, fw.root), s) for p, s in items]
        prefix = f"cd {shlex.quote(fw.root)} && " if fw.root else ""
        if fw.name == "pytest":
            ids = [p + "".join(f"::{part}" for part in s.split(".")) if s else p
                   for p, s in rel]
            if len(ids) > MAX_IDS:
                ids = list(dict.fromkeys(p for p, _ in rel))
            return prefix + "pytest " + " ".join(shlex.quote(i) for i in ids)
        if fw.name == "go":
            return prefix + self._go_command(items, fw.root)
        paths = " ".join(shlex.quote(p) for p in dict.fromkeys(p for p, _ in rel))
        name = next((s for _, s in rel if s), "") if len(rel) == 1 else ""
        title = f" -t {shlex.quote(name)}" if name else ""
        runner = {"vitest": "npx vitest run", "jest": "npx jest", "mocha": "npx mocha",
                  "node": "node --test"}.get(fw.name, fw.name)
        return f"{prefix}{runner} {paths}{title}"

    def _go_command(self, items: Sequence[Item], root: str) -> str:
        whole: list[str] = []
        runs: dict[str, None] = {}
        benches: dict[str, None] = {}
        named: list[str] = []
        for path, symbol in items:
            folder = _relative(path, root).rpartition("/")[0]
            pkg = f"./{folder}" if folder else "."
            names = [symbol] if symbol and "." not in symbol else (
                [] if symbol else self._go_tests(path))
            if not names:
                whole.append(pkg)
                continue
            named.append(pkg)
            for n in names:
                (benches if GO_BENCH.match(n) else runs)[n] = None
        parts: list[str] = []
        named = [p for p in dict.fromkeys(named) if p not in whole]
        if named:
            cmd = "go test " + " ".join(named)
            cmd += f" -run {shlex.quote(_alternation(list(runs)))}" if runs else " -run '^$'"
            if benches:
                cmd += f" -bench {shlex.quote(_alternation(list(benches)))}"
            parts.append(cmd)
        if whole:
            parts.append("go test " + " ".join(dict.fromkeys(whole)))
        return " && ".join(parts)

    def _go_tests(self, path: str) -> list[str]:
        return [d.name for d in sym.defs_in_file(self.view, path)
                if d.parent < 0 and "." not in d.qualname
                and (GO_RUN.match(d.name) or GO_BENCH.match(d.name))]

    def group(self, items: Sequence[tuple[Framework, Item]]) -> tuple[TestCommand, ...]:
        """One command per framework (and project root) over all targets."""
        groups: dict[Framework, list[Item]] = {}
        for fw, item in items:
            groups.setdefault(fw, []).append(item)
        return tuple(TestCommand(fw.name, self.command(fw, its), len(its), fw.config)
                     for fw, its in groups.items())


def _relative(path: str, root: str) -> str:
    return path[len(root) + 1:] if root and path.startswith(root + "/") else path


def _alternation(names: list[str]) -> str:
    body = "|".join(re.escape(n) for n in names)
    return f"^{body}$" if len(names) == 1 else f"^({body})$"
