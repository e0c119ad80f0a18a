"""Every write spyglass makes goes through the one writer (src/spyglass/index/writer.py):
a grep of `src/` for the calls that create, replace or open files for writing, and for
SQLite connections to a path, outside the modules allowed to make them (docs/security.md,
"The one writer")."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "spyglass"
WRITES = re.compile(
    r"\.write_text\(|\.write_bytes\(|\.mkdir\(|os\.mkdir\(|os\.replace\(|os\.rename\(|"
    r"O_CREAT|\.touch\(|mkstemp|mkdtemp|NamedTemporaryFile|shutil\.(copy|move)|"
    r"open\([^)]*[\"'](w|a|x|r\+)b?[\"']|sqlite3\.connect\((?![\"']:memory:)")
# module → why it may write without writer.py's helpers
ALLOWED = {
    "index/writer.py": "the one writer itself",
    "index/store.py": "SQLite opened after writer.py's checks; renames within the store's "
                      "folder descriptor",
    "mcp/middleware.py": "the session log the user names: O_NOFOLLOW | O_NONBLOCK, regular "
                         "files only",
    "query/precise.py": "the precise pass's scratch folder, a fresh mkdtemp outside the "
                        "repository (its lock in .spyglass/ goes through the writer)",
    "query/precise_java.py": "spyglass's own compiled Java pass in the user's cache "
                             "(~/.cache/spyglass/precise/javac/<digest of our source and the "
                             "JDK>): no path or byte of it comes from a repository",
    "query/repos.py": "empty private folders (mkdtemp, outside every repository): the roots of "
                      "team store repositories answering from their snapshot; nothing is "
                      "written into them",
}


def offenders() -> list[str]:
    out = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel in ALLOWED:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if WRITES.search(code):
                out.append(f"{rel}:{n}: {line.strip()}")
    return out


def test_every_write_goes_through_the_one_writer() -> None:
    assert offenders() == []


def test_the_grep_sees_a_plain_write(tmp_path: Path) -> None:
    """The control: the pattern catches each kind of raw write it is meant to."""
    for line in ('Path(p).write_text("x")', "os.replace(a, b)", "fd = os.open(p, os.O_CREAT)",
                 'open(p, "wb")', "sqlite3.connect(path)", "folder.mkdir(exist_ok=True)"):
        assert WRITES.search(line), line
    assert not WRITES.search('sqlite3.connect(":memory:")')
