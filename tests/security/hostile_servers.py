"""A repository armed against the language servers (docs/security.md, "Language servers"):
every program a server's interpreter or tool discovery could pick from the workspace is a
canary. A canary that runs leaves a file in the canary folder (seen on the host) and writes
its mark to the stderr of the processes above it in its session (seen through the sandbox,
where the canary folder is not visible): the server's stderr reaches spyglass."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from spyglass.bridge.lsp import LspClient
from spyglass.config import LspServer

MARK = "SPYGLASS-CANARY:"
VENV = Path(sys.executable).parent  # basedpyright is a dev dependency of this venv
TOOLS = Path.home() / ".cache" / "spyglass" / "tools"
TSLS = TOOLS / "tsls" / "node_modules" / ".bin" / "typescript-language-server"
TSC = TOOLS / "node_modules" / ".bin" / "tsc"  # typescript 7 (bootstrap's scip-python tools)
GOPLS = TOOLS / "gopls" / "usr" / "bin" / "gopls"
GOROOT = TOOLS / "gopls" / "usr" / "lib" / "go-1.24"

SH = """#!/bin/sh
echo fired > {canaries}/{name} 2>/dev/null
read -r _ _ _ _ _ sid _ < /proc/$$/stat
p=$PPID
for _ in 1 2 3 4; do
  read -r _ _ _ pp _ psid _ < /proc/$p/stat || break
  [ "$psid" = "$sid" ] || break
  case "$(tr '\\000' ' ' < /proc/$p/cmdline 2>/dev/null)" in *guard.py*|*pytest*|"") break;; esac
  echo "{mark}{name}" > /proc/$p/fd/2 2>/dev/null
  p=$pp
done
exit 1
"""
NODE = """const fs = require('fs');
try {{ fs.writeFileSync('{canaries}/{name}', 'fired'); }} catch (e) {{}}
const stat = (p) => fs.readFileSync(`/proc/${{p}}/stat`, 'latin1').split(') ')[1].split(' ');
const sid = stat(process.pid)[3];
let p = process.ppid;
for (let i = 0; i < 4 && p > 1; i++) {{
  let fields, cmd;
  try {{ fields = stat(p); cmd = fs.readFileSync(`/proc/${{p}}/cmdline`, 'latin1'); }}
  catch (e) {{ break; }}
  if (fields[3] !== sid || cmd.includes('guard.py') || cmd.includes('pytest')) break;
  try {{ fs.writeFileSync(`/proc/${{p}}/fd/2`, '{mark}{name}\\n'); }} catch (e) {{}}
  p = +fields[1];
}}
{tail}
"""
# Program canaries: (path in the repository, language).
PROGRAMS = {
    ".venv/bin/python": "sh", ".venv/bin/python3": "sh", "python3": "sh", "python": "sh",
    "go": "sh", "go1.99.1": "sh", "gopls": "sh", "evil-cc": "sh", "clang": "sh", "cc": "sh",
    "node_modules/.bin/tsc": "sh", "node_modules/.bin/tsserver": "sh",
    "node_modules/.bin/typescript-language-server": "sh", "node_modules/.bin/node": "sh",
    "node": "sh", "node_modules/typescript/lib/tsserver.js": "node",
    "node_modules/typescript/lib/typescript.js": "node",
    "node_modules/typescript/lib/tsc.js": "node",
    "node_modules/evil-plugin/index.js": "plugin",
}
SOURCES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def target():\n    return 1\n",
    "pkg/use.py": "from pkg.core import target\n\n\ndef caller():\n    return target()\n",
    "main.go": 'package main\n\nfunc target() int { return 1 }\n\n'
               "func main() { _ = target() }\n",
    "cgo.go": 'package main\n\n// #cgo CFLAGS: -DX=1\nimport "C"\n\nfunc viaC() int { return target() }\n',
    "src/core.ts": "export function target(): number {\n  return 1;\n}\n",
    "src/use.ts": 'import { target } from "./core";\n\nexport function caller(): number {\n'
                  "  return target();\n}\n",
    "util.h": "int target(void);\n",
    "util.c": '#include "util.h"\nint target(void) { return 1; }\n',
    "main.c": '#include "util.h"\nint main(void) { return target(); }\n',
}
# What each server is asked about (path, 1-based line of the definition).
ASK = {"pyright": ("pkg/core.py", 1), "gopls": ("main.go", 3), "tsls": ("src/core.ts", 1),
       "tsc": ("src/core.ts", 1),
       "clangd": ("util.c", 2)}


def arm(root: Path, canaries: Path, pyright_config: bool = True) -> None:
    """Write the hostile files into `root` (the sources are written by the caller)."""
    for rel, kind in PROGRAMS.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        name = rel.replace("/", "_")
        if kind == "sh":
            path.write_text(SH.format(canaries=canaries, name=name, mark=MARK))
        else:
            tail = ("module.exports = function (m) { return { create: (i) => i.languageService }; };"
                    if kind == "plugin" else "process.exit(1);")
            path.write_text(NODE.format(canaries=canaries, name=name, mark=MARK, tail=tail))
        path.chmod(0o755)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / ".venv" / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    if pyright_config:
        (root / "pyrightconfig.json").write_text(json.dumps(
            {"venvPath": ".", "venv": ".venv", "pythonPath": ".venv/bin/python"}))
    (root / "pyproject.toml").write_text(
        '[tool.basedpyright]\nvenvPath = "."\nvenv = ".venv"\n'
        '[tool.pyright]\npythonPath = ".venv/bin/python"\n')
    (root / "go.mod").write_text("module example.com/evil\n\ngo 1.21\n\ntoolchain go1.99.1\n")
    (root / "go.work").write_text("go 1.21\n\ntoolchain go1.99.1\n\nuse .\n")
    (root / "tsconfig.json").write_text(json.dumps({"compilerOptions": {
        "plugins": [{"name": "evil-plugin"}], "strict": True}, "include": ["src"]}))
    for pkg, version in (("typescript", "5.9.9"), ("evil-plugin", "1.0.0")):
        (root / "node_modules" / pkg / "package.json").write_text(json.dumps(
            {"name": pkg, "version": version, "main": "index.js" if pkg != "typescript"
             else "lib/typescript.js", "bin": {"tsc": "bin/tsc"}}))
    (root / "package.json").write_text(json.dumps({"devDependencies": {"typescript": "5.9.9"}}))
    (root / "compile_commands.json").write_text(json.dumps([
        {"directory": str(root), "file": f, "arguments": [str(root / "evil-cc"), "-c", f,
                                                         "-fplugin=./evil.so"]}
        for f in ("util.c", "main.c")]))
    (root / ".clangd").write_text(f"CompileFlags:\n  Compiler: {root / 'evil-cc'}\n"
                                  "  Add: [-Xclang, -load, -Xclang, ./evil.so]\n")


def fired(canaries: Path) -> list[str]:
    return sorted(p.name for p in canaries.iterdir()) if canaries.is_dir() else []


def marks(text: str | bytes) -> list[str]:
    raw = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    return sorted({line.split(MARK, 1)[1].strip() for line in raw.splitlines() if MARK in line})


def installed() -> dict[str, LspServer]:
    """The real servers installed here, as host-config entries (sandboxed)."""
    out: dict[str, LspServer] = {}
    if (VENV / "basedpyright-langserver").exists():
        out["pyright"] = LspServer("python", (str(VENV / "basedpyright-langserver"),
                                              "--stdio"), (), "sandbox", False, "basedpyright")
    if GOPLS.exists() or shutil.which("gopls"):
        gopls = str(GOPLS) if GOPLS.exists() else "gopls"
        # Debian's Go tree links its src to usr/share: the unpacked usr/ as a whole.
        goroot = (str(GOROOT), str(GOROOT.parent.parent / "share")) if GOPLS.exists() else ()
        out["gopls"] = LspServer("go", (gopls,), (), "sandbox", False, "gopls", goroot)
    if TSLS.exists():
        out["tsls"] = LspServer("typescript", (str(TSLS), "--stdio"), (), "sandbox", False,
                                "typescript-language-server")
    version = TSC.parent.parent / "typescript" / "package.json"
    if TSC.exists() and json.loads(version.read_text()).get("version", "").startswith("7"):
        out["tsc"] = LspServer("typescript", (str(TSC), "--lsp", "--stdio"), (), "sandbox",
                               False, "tsc")
    if shutil.which("clangd"):
        out["clangd"] = LspServer("c", ("clangd",), (), "sandbox", False, "clangd")
    return out


def path_with_go(path: str) -> str:
    """PATH with the unpacked Go toolchain (bench/accuracy/get_gopls.sh) when there is one."""
    return f"{GOROOT / 'bin'}:{path}" if GOROOT.exists() else path


def run_plain(command: list[str], root: Path, env: dict[str, str], settle: float = 4.0,
              init_options: object = None) -> bytes:
    """The control: the server as a plain editor would start it (host, default settings,
    the repository as working directory); opens every source, asks nothing, returns its
    stderr once it has had `settle` seconds of work."""
    proc = subprocess.Popen(command, cwd=root, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    err = bytearray()
    import threading

    def drain() -> None:
        assert proc.stderr is not None
        for chunk in iter(lambda: os.read(proc.stderr.fileno(), 65536), b""):
            err.extend(chunk)
    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    client = LspClient(proc.stdin, proc.stdout, root)
    try:
        client.initialize(init_options, timeout=60.0)
        for rel in SOURCES:
            if rel.endswith((".py", ".go", ".ts", ".c")):
                client.open(root / rel)
        time.sleep(settle)
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()
        reader.join(5)
    return bytes(err)
