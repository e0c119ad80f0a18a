"""The files a server needs inside the sandbox, and nothing beside them (docs/bridge.md):
its executable and every symlink hop to it, a script's interpreter (the same way), and the
package tree the real file belongs to (a node_modules tree, a Python venv, a Python's own
lib folder); never the prefix it was installed into (~/.local, ~/.cargo hold credentials)."""

from __future__ import annotations

import os
from pathlib import Path

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SHOWN = (*SYSTEM_DIRS, "/etc/alternatives")  # what every sandbox shows (launcher.py)
MAX_HOPS = 40  # symlinks followed from one name
MAX_DEPTH = 4  # interpreters of interpreters
SHEBANG = 256  # bytes of a script's first line read


class ServerFileError(ValueError):
    """A server file that may not be used (it lies inside the workspace)."""


def is_system(path: Path) -> bool:
    """Whether a path lies under the read-only system folders every sandbox has."""
    text = str(path)
    return any(text == d or text.startswith(d + "/") for d in SHOWN)


def inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _hops(name: Path) -> list[tuple[Path, str | None]]:
    """`name` and each symlink it passes through on the way to the real file, with the
    link's text (None for the real file)."""
    out: list[tuple[Path, str | None]] = []
    current = name
    for _ in range(MAX_HOPS):
        if not current.is_symlink():
            break
        text = os.readlink(current)
        out.append((current, text))
        current = Path(os.path.normpath(current.parent / text))
    return out


def interpreter(script: Path, path: str) -> Path | None:
    """The program a `#!` script runs under (`/usr/bin/env NAME` resolved on `path`)."""
    try:
        with script.open("rb") as fh:
            first = fh.readline(SHEBANG)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    if Path(words[0]).name == "env":
        names = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        return _on_path(names[0], path) if names else None
    return Path(words[0])


def _on_path(name: str, path: str) -> Path | None:
    """The executable file `name` names on `path` (a lookup only: nothing is run)."""
    if "/" in name:
        return Path(name).absolute()
    for folder in path.split(os.pathsep):
        candidate = Path(folder) / name
        if folder.startswith("/") and candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def package_trees(real: Path) -> list[Path]:
    """The installation a server file belongs to: the outermost node_modules folder above
    it, a venv (the folder holding pyvenv.cfg above its bin/), or for a Python interpreter
    its lib/pythonX.Y folder and its libpython; nothing for a lone binary."""
    modules = [p for p in real.parents if p.name == "node_modules"]
    if modules:
        return [modules[-1]]
    if real.parent.name != "bin":
        return []
    prefix = real.parent.parent
    if (prefix / "pyvenv.cfg").is_file():
        return [prefix]
    if not real.name.startswith("python"):
        return []
    libs = sorted((prefix / "lib").glob("python3*"))
    return libs[-1:] + sorted((prefix / "lib").glob("libpython3*.so*")) if libs else []


def server_files(exe: Path, path: str, workspace: Path, home: Path | None = None
                 ) -> list[tuple[str, str | None]]:
    """What the sandbox shows of the server `exe`: (path, None) for a file or folder bound
    read-only, (path, text) for a symlink made there; ServerFileError when the server, an
    interpreter it runs under or its package tree lies in the workspace."""
    home = home or Path.home()
    links: list[tuple[Path, str]] = []
    binds: list[Path] = []
    seen: set[Path] = set()
    pending = [exe]
    for _ in range(MAX_DEPTH):
        if not pending:
            break
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        real = name.resolve()
        hops = _hops(name)
        # A venv's python is a link: the venv is found from the name it was run by.
        trees = list(dict.fromkeys(t for p in [*(h for h, _ in hops), real]
                                   for t in package_trees(p)))
        for item in [*(h for h, _ in hops), real, *trees]:
            if inside(item, workspace) or inside(workspace, item):
                raise ServerFileError(f"{item} is inside the workspace (a repository's own "
                                      "programs never run)")
        links += [(h, text) for h, text in hops if text is not None]
        binds += trees
        binds.append(real)
        interp = interpreter(real, path)
        if interp is not None:
            pending.append(interp)
    return _plan(links, binds, home)


def _plan(links: list[tuple[Path, str]], binds: list[Path], home: Path
          ) -> list[tuple[str, str | None]]:
    """Folders first, then files and links not already inside a bound folder (a bound
    tree keeps its own links); nothing under the system folders, never the home itself."""
    folders = [b for b in binds if b.is_dir()]
    out: list[tuple[str, str | None]] = []
    covered: list[Path] = []
    for item, text in [*((f, None) for f in folders),
                       *((b, None) for b in binds if b not in folders), *links]:
        if is_system(item) or inside(home, item) or \
                any(inside(item, c) for c in covered):
            continue
        out.append((str(item), text))
        covered.append(item)
    return out
