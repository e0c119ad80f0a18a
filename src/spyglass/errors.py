"""Small domain exceptions; outer layers turn them into tool errors and exit codes."""


class SpyglassError(Exception):
    """Base class: a message meant for the user (or the model) as it is."""


class LanguagePackError(SpyglassError):
    """A language pack failed validation (file and capture name in the message)."""


class BadInput(SpyglassError):
    """The request itself is wrong: unknown symbol, bad position, malformed query."""


class OutsideRoot(BadInput):
    """A path resolves outside the repository root."""


class LimitExceeded(BadInput):
    """A request asked for more than the configured limits allow."""


class IndexUnavailable(SpyglassError):
    """No usable index, or the repository cannot be read (bad ref, corrupt repository)."""


class UnknownRef(IndexUnavailable, BadInput):
    """A ref the user named does not resolve to a commit: bad input (CLI exit 2, HTTP 400),
    and the index job it was asked for is unavailable."""


def input_fault(exc: BaseException) -> str | None:
    """A one-line reason when bad input surfaced as a low-level exception deep inside (an
    undecodable name, a name too long for the OS, a pattern SQLite finds too complex, input
    nested too deep); None when the exception is a bug. Outer layers answer with it."""
    import errno
    import sqlite3
    if isinstance(exc, UnicodeError):
        return ("a name in the request or the repository is not valid UTF-8 and cannot be "
                f"used here ({getattr(exc, 'reason', exc)})")
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply"
    if isinstance(exc, OSError) and exc.errno in (errno.ENAMETOOLONG, errno.EILSEQ):
        return f"{exc.strerror}: the name is not usable on this system"
    if isinstance(exc, (sqlite3.OperationalError, sqlite3.DataError)) and any(
            s in str(exc) for s in ("too complex", "too big", "too long", "too many")):
        return f"the input is too large for the query engine ({exc})"
    if isinstance(exc, ValueError) and "integer string conversion" in str(exc):
        return "a number in the input has too many digits"
    if isinstance(exc, OverflowError):
        return f"a number in the input is out of range ({exc})"
    return None


STORE_FAULTS = ("unable to open database file", "disk I/O error", "no such table",
                "readonly database", "database disk image is malformed", "file is not a database")


def internal_reason(exc: BaseException) -> str:
    """An unexpected exception as one line for the client: its type and first line — or,
    for a store deleted, moved or damaged while spyglass ran, what happened and what to do."""
    import sqlite3
    if isinstance(exc, sqlite3.DatabaseError) and any(s in str(exc) for s in STORE_FAULTS):
        return (f"the index store became unusable ({exc}): it was deleted, moved or damaged "
                "while spyglass ran; run `spyglass index` to rebuild it")
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"internal error ({type(exc).__name__}{': ' + text[:200] if text else ''})"


class GitRefused(IndexUnavailable):
    """Git will not, or spyglass must not, read this repository as it is (dubious
    ownership, a work tree configured elsewhere, an object a partial clone lacks)."""


class BridgeUnavailable(SpyglassError):
    """A language server marked required (`[codeintel] required = true`) cannot answer."""
