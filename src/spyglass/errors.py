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


class GitRefused(IndexUnavailable):
    """Git will not, or spyglass must not, read this repository as it is (dubious
    ownership, a work tree configured elsewhere, an object a partial clone lacks)."""
