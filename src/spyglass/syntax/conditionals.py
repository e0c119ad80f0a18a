"""Preprocessor conditions: the `#if` branches a file's compile command leaves inactive (docs/c.md).

The directives (`#if`, `#ifdef`, `#ifndef`, `#elif`, `#else`, `#endif`) are read and their
conditions decided, never the code between them: a name is defined when the compile
command's `-D` defines it or the file `#define`s it above (in a branch known to be
taken), undefined when `-U` or `#undef` says so, when a pack lists it as absent on the
default target (`__aarch64__`, `_MSC_VER`, …), or when it is an ordinary name nothing
above defines. A reserved name (`__x`, `_X`) the pack does not list, a function-like
macro call, or an operator the reader does not know leaves the condition unknown, and an
unknown branch is never called inactive. A header included from the file may define a
name too, so an inactive branch is a flag (the sites in it are uncertain), not a removal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

DEFINES = "defines"  # the file context setting holding its -D/-U macros (JSON)
REGIONS = "inactive"  # the setting holding regions decided with the includes read (encoded)
MAX_EXPANSION = 8  # nested macro values read as expressions
MAX_REGIONS = 256  # inactive regions kept per file (the rest are not flagged)
MAX_DIRECTIVE = 512  # characters of a condition read (longer ones are unknown)
Value = int | None  # a condition's value; None: unknown

_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif|define|undef|include)\b"
                        rb"(.*)$")
_COMMENT = re.compile(r"/\*.*?\*/|//.*$")
_TOKEN = re.compile(r"\s*(?:(\d[\w.]*|'(?:\\.|[^'])')|([A-Za-z_]\w*)|(&&|\|\||==|!=|<=|>=|<<|>>"
                    r"|[-+*/%<>!()~^&|?:,]))")
_RESERVED = re.compile(r"__|_[A-Z]")
_REGION = re.compile(r"^(\??)(\d+)-(\d+) (.*)$")


@dataclass(frozen=True, slots=True)
class Region:
    """Lines `start`..`end` (1-based, inclusive) of a branch not taken; `why` the
    directive as written (`#else` of `#ifndef EKS`)."""

    start: int
    end: int
    why: str
    # Names taken as undefined only because nothing above defines them: a header of the
    # repository may (the query side leaves the region unflagged when one does).
    assumed: tuple[str, ...] = ()
    # Not inactive but undecided: the condition reads a name the unit neither defines nor
    # provably leaves undefined (a compiler-predefined target macro, `__AVX2__`; a macro of
    # an undecided branch; a function-like test), so the branch is not provably taken.
    undecided: bool = False


class _Unknown(Exception):
    """The condition cannot be decided from what was read."""


class _Env:
    """What is known of each name: its value ('' when defined empty), None when
    undefined, absent when unknown."""

    def __init__(self, defines: dict[str, str | None], absent: Iterable[str],
                 present: dict[str, str]) -> None:
        self.known: dict[str, str | None] = {n: None for n in absent}
        self.known.update(present)
        self.known.update(defines)
        self.unknown: set[str] = set()
        self.depth = 0  # object-like macro values being read as expressions
        self.expanding: set[str] = set()
        # with an include walk: per macro name, the shape of each definition that may be
        # compiled (`_shape`: an object-like macro's body, an empty function-like one)
        self.bodies: dict[str, set[str]] | None = None
        self.sites: dict[str, set[str]] = {}  # with bodies: macro → files defining it
        self.file = ""  # the file whose directives are being read (with bodies)
        self.assumed: set[str] = set()  # ordinary names looked up and found nowhere above
        self.closed = False  # names found nowhere above are unknown (no compile command)

    def lookup(self, name: str) -> tuple[bool, str | None]:
        """(defined, value) of `name`; raises _Unknown when that cannot be known."""
        if name in self.unknown:
            raise _Unknown
        if name in self.known:
            value = self.known[name]
            return value is not None, value
        if _RESERVED.match(name) or self.closed:
            raise _Unknown  # the compiler's own names, or no compile command to read
        self.assumed.add(name)
        return False, None


@lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[tuple[str, str], ...] | None:
    """The tokens of one condition (kind, text), or None when one is not C's."""
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            return None
        kind = "num" if m.group(1) else "id" if m.group(2) else "op"
        out.append((kind, m.group(m.lastindex or 0)))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return tuple(out)


_PRECEDENCE = {op: i for i, ops in enumerate(
    (("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="),
     ("<<", ">>"), ("+", "-"), ("*", "/", "%"))) for op in ops}
# Operators whose operands are read as numbers (a name's truth test is not among them).
_VALUE_OPS = frozenset({"<", ">", "<=", ">=", "==", "!=", "+", "-", "*", "/", "%", "<<", ">>",
                        "&", "|", "^"})
_NAME = re.compile(r"[A-Za-z_]\w*")
_NOT_DEFINED = re.compile(r"!\s*defined\s*(?:\(\s*([A-Za-z_]\w*)\s*\)|([A-Za-z_]\w*))")


class _Parser:
    """A recursive-descent reader of one `#if` expression (C's precedence)."""

    def __init__(self, text: str, env: _Env) -> None:
        tokens = _tokens(text)
        if tokens is None:
            raise _Unknown
        self.tokens = tokens
        self.i = 0
        self.env = env

    def peek(self) -> str:
        return self.tokens[self.i][1] if self.i < len(self.tokens) else ""

    def take(self) -> tuple[str, str]:
        if self.i >= len(self.tokens):
            raise _Unknown
        self.i += 1
        return self.tokens[self.i - 1]

    def parse(self) -> Value:
        v = self.ternary()
        if self.i != len(self.tokens):
            raise _Unknown
        return v

    def ternary(self) -> Value:
        cond = self.binary(0)
        if self.peek() != "?":
            return cond
        self.take()
        yes = self.ternary()
        if self.take()[1] != ":":
            raise _Unknown
        no = self.ternary()
        if cond is None:
            return yes if yes == no else None
        return yes if cond else no

    def binary(self, level: int) -> Value:
        """Operators of precedence `level` and tighter (precedence climbing, left to right)."""
        left = self.unary()
        while True:
            op = self.peek()
            at = _PRECEDENCE.get(op)
            if at is None or at < level:
                return left
            self.take()
            left = _apply(op, left, self.binary(at + 1))

    def unary(self) -> Value:
        tok = self.peek()
        if tok in ("!", "-", "+", "~"):
            self.take()
            v = self.unary()
            if v is None:
                return None
            return {"!": int(not v), "-": -v, "+": v, "~": ~v}[tok]
        return self.primary()

    def primary(self) -> Value:
        kind, tok = self.take()
        if tok == "(":
            v = self.ternary()
            if self.take()[1] != ")":
                raise _Unknown
            return v
        if kind == "num":
            return _number(tok)
        if kind != "id":
            raise _Unknown
        if tok == "defined":
            paren = self.peek() == "("
            if paren:
                self.take()
            kind, name = self.take()
            if kind != "id" or (paren and self.take()[1] != ")"):
                raise _Unknown
            try:
                return int(self.env.lookup(name)[0])
            except _Unknown:
                return None
        if self.peek() == "(":
            raise _Unknown  # a function-like macro: not expanded
        assumed = tok not in self.env.known
        try:
            defined, value = self.env.lookup(tok)
        except _Unknown:
            return None
        if not defined:
            if assumed and self._operand():
                return None  # `#if OPENSSL_VERSION_NUMBER < X`: a value nothing above gives
            return 0  # an undefined name is 0 in `#if`
        if value and re.fullmatch(r"\d\w*", value):
            return _number(value)
        return self._expanded(tok, value or "")

    def _operand(self) -> bool:
        """Whether the name just read is an operand of an arithmetic, bitwise or comparison
        operator: a name nothing above defines, compared or computed with (a library's
        version macro, `SIZE_MAX`), may come from a header outside the repository, so its
        value is unknown; tested for truth (`#if HAVE_X`) it stays 0."""
        before = self.tokens[self.i - 2][1] if self.i >= 2 else ""
        return before in _VALUE_OPS or self.peek() in _VALUE_OPS

    def _expanded(self, name: str, value: str) -> Value:
        """An object-like macro's value read as an expression (`#define USE_BE
        (ENDIANNESS_IS_BIG)`), at most MAX_EXPANSION levels deep, never itself."""
        env = self.env
        if not value or value == "()" or env.depth >= MAX_EXPANSION or name in env.expanding:
            return None
        env.depth += 1
        env.expanding.add(name)
        try:
            return evaluate(value, env)
        finally:
            env.depth -= 1
            env.expanding.discard(name)


def _number(text: str) -> int:
    if text.startswith("'"):
        raise _Unknown
    digits = text.rstrip("uUlL")
    try:
        return int(digits, 0) if not re.fullmatch(r"0\d+", digits) else int(digits, 8)
    except ValueError:
        raise _Unknown from None


def _apply(op: str, a: Value, b: Value) -> Value:
    if op == "||":
        return 1 if a or b else (None if a is None or b is None else 0)
    if op == "&&":
        return 0 if a == 0 or b == 0 else (None if a is None or b is None else 1)
    if a is None or b is None:
        return None
    if op in ("/", "%") and b == 0:
        return None
    table = {"|": a | b, "^": a ^ b, "&": a & b, "==": int(a == b), "!=": int(a != b),
             "<": int(a < b), ">": int(a > b), "<=": int(a <= b), ">=": int(a >= b),
             "+": a + b, "-": a - b, "*": a * b}
    if op in table:
        return table[op]
    if op in ("<<", ">>"):
        return a << b if op == "<<" and 0 <= b < 64 else a >> b if 0 <= b < 64 else None
    return int(a / b) if op == "/" else a - b * int(a / b)


def evaluate(condition: str, env: _Env) -> Value:
    """The value of one `#if` condition under `env`, or None when it cannot be decided."""
    if len(condition) > MAX_DIRECTIVE:
        return None
    try:
        return _Parser(condition, env).parse()
    except (_Unknown, IndexError, KeyError):
        return None


@dataclass
class _Frame:
    outer: Value  # the enclosing branches are all taken (1), one is not (0), unknown (None)
    current: Value  # this branch is taken
    taken: Value  # an earlier branch of this chain was taken
    start: int
    why: str
    opener: str
    assumed: set[str] = field(default_factory=set)  # of the chain's conditions so far


_HASH_LINE = re.compile(rb"(?m)^[ \t]*#[^\n]*")


def _logical_lines(data: bytes) -> Iterable[tuple[int, int, bytes]]:
    """(first and last line number, text) of each directive line, continuations joined;
    a line inside a block comment (`/* #define X … */`, a configuration's example) is none."""
    line, counted = 1, 0
    pos = 0
    comments = _Comments(data)
    while True:
        m = _HASH_LINE.search(data, pos)
        if m is None:
            return
        if comments.inside(m.start()):
            pos = m.end() + 1
            continue
        line += data.count(b"\n", counted, m.start())
        counted = m.start()
        text, end, last = m.group(0), m.end(), line
        while text.rstrip(b"\r").endswith(b"\\") and end < len(data):
            nxt = data.find(b"\n", end + 1)
            nxt = len(data) if nxt < 0 else nxt
            text = text.rstrip(b"\r")[:-1] + b" " + data[end + 1:nxt]
            end, last = nxt, last + 1
        yield line, last, text
        pos = end + 1 if end < len(data) else len(data) + 1
        if pos > len(data):
            return


class _Comments:
    """Whether offsets of one text, asked in increasing order, are inside a `/* … */`
    comment (one forward scan; a `/*` after `//` or inside a string on its line opens
    none)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0  # scanned up to here
        self.open = False  # `at` is inside a comment
        self.none = b"/*" not in data

    def inside(self, offset: int) -> bool:
        if self.none:
            return False
        data = self.data
        while self.at < offset:
            if self.open:
                j = data.find(b"*/", self.at, offset)
                if j < 0:
                    self.at = max(self.at, offset - 1)  # a `*/` may straddle `offset - 1`
                    return True
                self.at, self.open = j + 2, False
                continue
            j = data.find(b"/*", self.at, offset)
            if j < 0:
                self.at = max(self.at, offset - 1)
                return False
            before = data[data.rfind(b"\n", 0, j) + 1:j]
            self.at = j + 2
            self.open = b"//" not in before and before.count(b'"') % 2 == 0
        return self.open


Line = tuple[int, int, str, str]  # first and last line, directive word, the rest as read


def directives(data: bytes) -> list[Line]:
    """The directive lines of a file (continuations joined, comments removed), and last
    an `eof` line numbered as the file's last line."""
    out: list[Line] = []
    for number, last, raw in _logical_lines(data):
        m = _DIRECTIVE.match(raw)
        if m is not None:
            rest = _COMMENT.sub(" ", m.group(2).decode("utf-8", "replace")).strip()
            out.append((number, last, m.group(1).decode(), rest))
    total = data.count(b"\n") + 1
    out.append((total, total, "eof", ""))  # where an unterminated `#if` ends
    return out


def inactive_regions(data: bytes, defines: dict[str, str | None], absent: Iterable[str] = (),
                     present: dict[str, str] | None = None, closed: bool = False
                     ) -> list[Region]:
    """The regions of `data` in branches that are not taken under `defines` (name → value,
    None for `-U`), the pack's names absent on the default target, and the file's own
    `#define`s above each condition; outermost regions only, at most MAX_REGIONS.
    `closed`: no compile command is known, so a name nothing above defines is unknown, not
    undefined (only constant conditions, `#if 0`, and the file's own macros decide)."""
    env = _Env(defines, absent, present or {})
    env.closed = closed
    return _walk(directives(data), env)


def _walk(lines: list[Line], env: _Env, include: Callable[[str], None] | None = None
          ) -> list[Region]:
    """The inactive regions of one file's directive lines under `env`, which its
    `#define`s update; `include` is called with each `#include` in a taken branch."""
    stack: list[_Frame] = []
    out: list[Region] = []
    end_line = lines[-1][1] if lines else 0

    def active() -> Value:
        if not stack:
            return 1
        f = stack[-1]
        return _apply("&&", f.outer, f.current)

    def close(end: int) -> None:
        f = stack[-1]
        if f.outer != 1 or end < f.start or len(out) >= MAX_REGIONS:
            return
        if f.current == 0:
            out.append(Region(f.start, end, f.why, tuple(sorted(f.assumed))))
        elif f.current is None and not env.closed and f.why:
            out.append(Region(f.start, end, f.why, undecided=True))

    for at, (number, last, word, rest) in enumerate(lines):
        if word == "eof":
            continue
        if word == "include":
            if include is not None and active() == 1:
                include(rest)
            continue
        if word in ("define", "undef"):
            name = _NAME.match(rest)
            if name is None:
                continue
            now = active()
            if now == 1:
                env.unknown.discard(name.group(0))
                if word == "undef":
                    env.known[name.group(0)] = None
                elif rest[name.end():name.end() + 1] != "(":  # object-like: its value
                    env.known[name.group(0)] = rest[name.end():].strip()
                else:
                    env.known[name.group(0)] = "()"
                if env.bodies is not None and word == "define":
                    env.bodies.setdefault(name.group(0), set()).add(_shape(rest, name.end()))
                    env.sites.setdefault(name.group(0), set()).add(env.file)
            elif now is None:
                env.unknown.add(name.group(0))
                if env.bodies is not None and word == "define":
                    shape = _shape(rest, name.end())
                    env.bodies.setdefault(name.group(0), set()).add(
                        KEPT if shape.startswith(FUNCTION) else shape)
                    env.sites.setdefault(name.group(0), set()).add(env.file)
            continue
        if word in ("if", "ifdef", "ifndef"):
            env.assumed = set()
            if active() == 0:  # inside a branch not taken: nothing in it is decided
                stack.append(_Frame(0, 0, 1, last + 1, "", ""))
                continue
            if word == "if":
                v = evaluate(rest, env)
                guarded = _not_defined(rest)
                if v is None and guarded and _guard(lines, at, guarded) \
                        and guarded not in env.unknown:
                    v = 1  # `#if !defined(_X_H)` then `#define _X_H`: an include guard
            else:
                token = _NAME.match(rest)
                v = evaluate(f"defined({token.group(0)})", env) if token else None
                if v is None and token and word == "ifndef" and _guard(lines, at, token.group(0)) \
                        and token.group(0) not in env.unknown:
                    v = 0  # an include guard (`#ifndef _X_H` then `#define _X_H`): not yet
                if v is not None and word == "ifndef":
                    v = int(not v)
            why = f"#{word} {rest}".strip()
            stack.append(_Frame(active(), v, v, last + 1, why, why, set(env.assumed)))
            continue
        if not stack:
            continue  # an unmatched #elif/#else/#endif: ignored
        close(number - 1)
        f = stack[-1]
        if word == "endif":
            stack.pop()
            continue
        if f.outer == 0:
            continue
        env.assumed = set()
        v = 1 if word == "else" else evaluate(rest, env)
        f.assumed |= env.assumed
        if f.taken == 1:
            current: Value = 0
        elif f.taken is None:
            current = 0 if v == 0 else None
        else:
            current = v
        f.taken = _apply("||", f.taken, v)
        f.current = current
        f.start = last + 1
        f.why = f"#{word} of `{f.opener}`" if word == "else" else f"#elif {rest} (after `{f.opener}`)"
    while stack:  # an unterminated #if: up to the end of the file
        close(max(end_line, stack[-1].start))
        stack.pop()
    return out


FUNCTION = "\0"  # the prefix of a function-like macro's shape: `\0<params>:<used,…>`
KEPT = FUNCTION + "*"  # a function-like macro whose every argument may be compiled
MAX_BODY = 80  # characters of an object-like macro's body kept (longer: KEPT)


def _shape(rest: str, at: int) -> str:
    """A `#define`'s shape from the text after `#define` (`at`: the name's end): for a
    function-like macro FUNCTION, its parameter count and the positions of those its body
    names (`#define MLD_FREE(v, T, N, ctx)` naming v, N and ctx: `\04:0,2,3`; a variadic
    one's `...` counts as named), else an object-like macro's body as written (at most
    MAX_BODY characters)."""
    if rest[at:at + 1] == "(":
        close_at = rest.find(")", at)
        if close_at < 0:
            return KEPT
        params = [p.strip() for p in rest[at + 1:close_at].split(",")]
        body = rest[close_at + 1:]
        used = [str(i) for i, p in enumerate(params) if not _NAME.fullmatch(p)
                or re.search(rf"(?<!\w){p}(?!\w)", body)]
        return f"{FUNCTION}{len(params)}:{','.join(used)}"
    body = rest[at:].strip()
    return body if len(body) <= MAX_BODY else KEPT


def _guard(lines: list[Line], at: int, name: str) -> bool:
    """Whether the `#ifndef name` at `at` is an include guard: the next directive
    `#define`s the same name."""
    nxt = lines[at + 1] if at + 1 < len(lines) else None
    return nxt is not None and nxt[2] == "define" and re.match(
        rf"{re.escape(name)}\b", nxt[3]) is not None


def _not_defined(condition: str) -> str | None:
    """X of a condition `!defined(X)` or `!defined X`, else None."""
    m = _NOT_DEFINED.fullmatch(condition.strip())
    return (m.group(1) or m.group(2)) if m else None


def guard_name(lines: list[Line]) -> str | None:
    """The include guard wrapping the whole file (`#ifndef X_H`, `#define X_H`, … and its
    `#endif` the last directive), or None."""
    if len(lines) < 2 or lines[0][2] not in ("ifndef", "if"):
        return None
    name = _NAME.match(lines[0][3] if lines[0][2] == "ifndef" else
                       _not_defined(lines[0][3]) or "")
    if name is None or not _guard(lines, 0, name.group(0)):
        return None
    depth = 0
    for i, (_, _, word, _) in enumerate(lines):
        if word in ("if", "ifdef", "ifndef"):
            depth += 1
        elif word == "endif":
            depth -= 1
            if depth == 0:
                return name.group(0) if all(w == "eof" for _, _, w, _ in lines[i + 1:]) \
                    else None
    return None


def encode(regions: list[Region]) -> str:
    """The regions as stored with the file's unit (one `start-end why` per line, `?` before
    an undecided one)."""
    return "\n".join(f"{'?' if r.undecided else ''}{r.start}-{r.end} "
                     f"{r.why.replace(chr(10), ' ')}\t{','.join(r.assumed)}" for r in regions)


def decode(text: str) -> list[Region]:
    """The regions `encode` wrote (lines that do not parse are left out)."""
    out = []
    for line in text.splitlines():
        m = _REGION.match(line)
        if m:
            why, _, names = m.group(4).partition("\t")
            out.append(Region(int(m.group(2)), int(m.group(3)), why,
                              tuple(n for n in names.split(",") if n), bool(m.group(1))))
    return out
