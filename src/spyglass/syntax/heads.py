"""Reference heads: what the first name of a use is bound to, as `kind` or `kind:argument`.

Extraction writes a head on every reference (`Reference.head`); the language's resolver
and the query layer read it. This module is the one place that spells the kinds and
their arguments (docs/languages.md, "Reference heads"):

``def:<qualname>``   a definition in the same file
``import:<index>``   the file's import at that index
``self:<qualname>``  the enclosing class (``self``/``this``/a Go receiver)
``super:<qualname>`` the base of that class (``super().m``)
``inst:<n>|<type head>|<type>``  a receiver of known type: the qualifier's first `n`
                     names are the receiver, `type head` is the head of the type's name
``local``            a local variable (the receiver's type is unknown)
``param``            a parameter without a declared type
``free``             no binding in the file
``expr``             the receiver is not a plain name (a call result, an index, …)
``extern``           a receiver of a builtin type: never a project member
``tag:<head>``       a name written after `struct`/`union`/`enum` (a pack's @tag capture):
                     the tag name space, `head` being the name's own head (docs/c.md)
"""

from __future__ import annotations

from typing import NamedTuple

DEF = "def"
IMPORT = "import"
SELF = "self"
SUPER = "super"
INST = "inst"
LOCAL = "local"
PARAM = "param"
FREE = "free"
EXPR = "expr"
EXTERN = "extern"
TAG = "tag"

# Heads of names bound inside a function: never a project definition when bare.
LOCAL_KINDS = frozenset({LOCAL, PARAM})
# Heads of receivers of unknown type whose same-name members are candidates.
UNKNOWN_RECEIVERS = (LOCAL, EXPR, FREE, PARAM)

# The base a resolver gives a function whose reading runs it (a Python @property): the
# query layer counts such reads as calls.
PROPERTY_MARKER = "builtins.property"


def make(kind: str, arg: object = None) -> str:
    """A head: ``kind`` alone, or ``kind:arg``."""
    return kind if arg is None else f"{kind}:{arg}"


def split(head: str) -> tuple[str, str]:
    """(kind, argument) of a head; the argument is "" for a bare kind."""
    kind, _, arg = head.partition(":")
    return kind, arg


def untagged(head: str) -> tuple[str, bool]:
    """The head under a ``tag:`` marker, and whether there was one."""
    tagged = head.startswith(prefix(TAG))
    return (head[len(TAG) + 1:], True) if tagged else (head, False)


def prefix(kind: str) -> str:
    """The text every head of `kind` with an argument starts with (``"inst:"``)."""
    return f"{kind}:"


class Instance(NamedTuple):
    """The argument of an ``inst:`` head."""

    consumed: int  # names of the qualifier that make up the receiver
    type_head: str  # the head of the type's first name
    type_text: str  # the type as a dotted name


def instance(consumed: int, type_head: str, type_text: str) -> str:
    """An ``inst:`` head."""
    return f"{INST}:{consumed}|{type_head}|{type_text}"


def parse_instance(arg: str) -> Instance:
    """The parts of an ``inst:`` head's argument."""
    consumed, type_head, type_text = arg.split("|", 2)
    return Instance(int(consumed), type_head, type_text)
