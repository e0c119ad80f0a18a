"""Go name resolution: package import paths from go.mod (or GOPATH), names to `path#Name`.

Full names are ``importpath#Qual.Name``. Methods get their receiver type's qualname, so
``c.Run()`` in a method of ``*Command`` targets ``…#Command.Run``. A field's or package
variable's declared type becomes a wildcard alias ``…#T.field.*`` → ``…#Type.*``, and
members reached through it (``c.field.M``, ``pkg.Var.M``) target ``…#T.field.M``, as
``inferred``; the alias carries them to ``Type.M``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from spyglass.syntax import heads as H
from spyglass.syntax.chains import call_path
from spyglass.syntax.langpack import all_packs
from spyglass.types import FileContext, FileFacts, Import, Reference, Resolution

_MODULE_LINE = re.compile(rb"^\s*module\s+\"?([^\s\"/][^\s\"]*)\"?", re.MULTILINE)
_MAJOR = re.compile(r"v\d+")
_TEST_PACKAGE = re.compile(rb"^package\s+(\w+)_test\b", re.MULTILINE)
_IMPORTS = re.compile(rb'^import\s*(?:\(([^)]*)\)|[\w.]*\s*("[^"\n]+"))', re.MULTILINE)
_QUOTED = re.compile(rb'"([^"\s]+)"')
_TYPE_KINDS = frozenset({"struct", "interface", "type"})
_VALUE_KINDS = frozenset({"field", "var", "const"})
_MEMBER_KINDS = frozenset({"field", "method"})
_CALLABLE_KINDS = frozenset({"func", "method"})
# A container type as written (`[]*T`, `[4]T`, `map[K]T`, `chan T`), down to its element.
_CONTAINER = re.compile(r"^(?:\[[^\]]*\]|map\[[^\]]*\]|<-\s*chan\s+|chan(?:\s*<-)?\s+|\*)+")
_CHAIN = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
_TYPE_NAME = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?$")


def _go_mod(folder: str, read: Callable[[str], bytes | None],
            cache: dict[str, tuple[str, str] | None]) -> tuple[str, str] | None:
    """(folder of the nearest go.mod, its module path), walking up from `folder`."""
    if folder in cache:
        return cache[folder]
    data = read(f"{folder}/go.mod" if folder else "go.mod")
    found: tuple[str, str] | None = None
    match = _MODULE_LINE.search(data) if data is not None else None
    if match is not None:
        found = (folder, match.group(1).decode("utf-8", "replace"))
    elif folder:
        found = _go_mod(folder.rsplit("/", 1)[0] if "/" in folder else "", read, cache)
    cache[folder] = found
    return found


def package_path(folder: str, read: Callable[[str], bytes | None],
                 cache: dict[str, tuple[str, str] | None], root_path: str = "") -> str:
    """The import path of the package in `folder` (repository-relative); `root_path`: the
    repository's import path when no go.mod declares one (_root_import_path)."""
    mod = _go_mod(folder, read, cache)
    if mod is not None:
        root, module = mod
        rel = folder[len(root):].lstrip("/") if root else folder
        return f"{module}/{rel}" if rel else module
    parts = folder.split("/")
    if "src" in parts:  # GOPATH layout: $GOPATH/src/<import path>
        return "/".join(parts[parts.index("src") + 1:])
    if root_path:
        return f"{root_path}/{folder}" if folder else root_path
    return folder


def _root_import_path(paths: list[str], read: Callable[[str], bytes | None],
                      cache: dict[str, tuple[str, str] | None]) -> str:
    """The repository's import path when no go.mod declares it (a GOPATH-era package):
    an external test package (`package flag_test`) imports the package of its own folder,
    a path that is not the standard library's (a dot in its first element), whose last
    element is that package's name and which ends with the folder. Only when every such
    import agrees; "" otherwise."""
    found: set[str] = set()
    for path in paths:
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        parts = folder.split("/")
        if not path.endswith("_test.go") or "src" in parts or \
                _go_mod(folder, read, cache) is not None:
            continue
        data = read(path)
        match = _TEST_PACKAGE.search(data) if data is not None else None
        if data is None or match is None:
            continue
        name = match.group(1).decode("utf-8", "replace")
        for block in _IMPORTS.finditer(data):
            for quoted in _QUOTED.finditer(block.group(1) or block.group(2) or b""):
                imp = quoted.group(1).decode("utf-8", "replace")
                elements = imp.split("/")
                if "." not in elements[0] or elements[-1] != name:
                    continue
                if not folder:
                    found.add(imp)
                elif imp.endswith("/" + folder):
                    found.add(imp[:-len(folder) - 1])
    return found.pop() if len(found) == 1 else ""


def module_keys(paths: Iterable[str], read: Callable[[str], bytes | None]
                ) -> dict[str, FileContext]:
    """Each .go file's package import path: nearest go.mod's module + relative folder,
    else the part after a ``src/`` segment (GOPATH), else the repository's import path
    its external test packages show + the folder (_root_import_path), else the folder."""
    cache: dict[str, tuple[str, str] | None] = {}
    paths = list(paths)
    root_path = _root_import_path(paths, read, cache)
    out: dict[str, FileContext] = {}
    for path in paths:
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        out[path] = FileContext(path=path, module=package_path(folder, read, cache, root_path))
    return out


def _builtins() -> frozenset[str]:
    return frozenset(all_packs()["go"].manifest.get("builtins", ()))


def _package_name_matches(head: str, imp: Import) -> bool:
    """Whether `head` plausibly names the package imported without an alias by `imp`,
    for paths whose last element is not the package name (``go-isatty`` → ``isatty``)."""
    parts = imp.module.rstrip("/").split("/")
    tail = parts[-1]
    if _MAJOR.fullmatch(tail) and len(parts) > 1:
        tail = parts[-2]
    tail = tail.lower().removeprefix("go-").removesuffix("-go").removesuffix(".go")
    return re.sub(r"[^a-z0-9]", "", tail.split(".")[0]) == head.lower()


def _free_package(first: str, imports: tuple[Import, ...]) -> str | None:
    """The import path an unbound qualifier names (`isatty.X` for `go-isatty`, `jsoniter.X`
    for `json-iterator/go`), when exactly one unaliased import fits."""
    cands = [i for i in imports if i.name is None and i.scope < 0
             and _package_name_matches(first, i)]
    if not cands:  # an import whose path cannot tell its package's name
        cands = [i for i in imports if i.name is None and i.scope < 0
                 and _name_unknown(i, first)]
    return cands[0].module if len(cands) == 1 else None


def _name_unknown(imp: Import, head: str) -> bool:
    """Whether `head` may name a package whose import path cannot tell its name: the last
    element is a keyword and `head` abbreviates the element before it
    (`github.com/json-iterator/go` declares `package jsoniter`)."""
    parts = imp.module.rstrip("/").split("/")
    if parts[-1] not in _KEYWORDS or len(parts) < 2 or len(head) < 2:
        return False
    stem = re.sub(r"[^a-z0-9]", "", parts[-2].lower().removeprefix("go-"))
    return stem.startswith(head.lower())


_KEYWORDS = frozenset({
    "break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough",
    "for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range",
    "return", "select", "struct", "switch", "type", "var"})


def resolve(facts: FileFacts, ctx: FileContext) -> Resolution:
    """Resolve every reference of one Go file to ``importpath#Qual.Name``, or None."""
    key = ctx.module
    if facts.package.endswith("_test") and not key.endswith("_test"):
        key += "_test"  # an external test package shares its folder with the package
    imports = facts.imports
    kinds = {d.qualname: d.kind for d in facts.definitions}
    dot_imports = any(i.name == "*" for i in imports)
    # `import . "p"`: p's exported names are in the file's block. A bare exported name the
    # file does not declare may be p's: an alias from the package's name to each dot
    # import's (Go forbids the same name in the package block, so the alias misleads none).
    dotted = [i.module for i in imports if i.name == "*"]
    builtins = _builtins()
    targets: list[str | None] = []
    confidence: list[str] = []
    aliases_of_keys: list[tuple[str, str]] = []
    for ref in facts.references:
        head, arg = H.split(ref.head)
        rest = ref.qualifier.split(".")[1:] if ref.qualifier else []
        target: str | None = None
        conf = "exact"
        # A member reached through a typed variable or field (`pkg.Var.M`, `c.field.M`)
        # targets `…Var.M` / `…T.field.M`; the alias `….Var.*` → `Type.*` that the
        # variable's declared type produces (see below) carries it to Type.M: inferred.
        chain = ".".join([*rest, ref.name])
        if ref.role == "ref" and ref.qualifier:  # `T{k: v}`: a key (references.scm @key)
            target, conf, more = _literal_key(ref, head, arg, key, imports, kinds)
            aliases_of_keys.extend(more)
        elif head == H.IMPORT:
            imp = imports[int(arg)]
            if not ref.qualifier:
                target = imp.module  # the package itself
            else:
                target = f"{imp.module}#{chain}"
                conf = "inferred" if rest else "exact"
        elif head == H.DEF:
            if not ref.qualifier and kinds.get(arg) in _MEMBER_KINDS:
                # A bare name is never a member (in `Desc() *Desc` or `Labels Labels` the
                # type is the package-level one, which the type body's binding shadows).
                target = f"{key}#{ref.name}"
                conf = "inferred" if dot_imports else "exact"
            elif not ref.qualifier:
                target = f"{key}#{arg}"
            elif not rest and kinds.get(arg) in _TYPE_KINDS:
                target = f"{key}#{arg}.{ref.name}"  # method expression / type member
            elif kinds.get(arg) not in _TYPE_KINDS:
                target, conf = f"{key}#{arg}.{chain}", "inferred"
        elif head == H.SELF:
            if ref.qualifier:
                target = f"{key}#{arg}.{chain}"
                conf = "inferred" if rest else "exact"
        elif head == H.INST:  # a receiver whose declared or built type is known
            target = _instance(arg, ref.qualifier, ref.name, key, imports)
            conf = "inferred"
        elif head == H.FREE:
            if not ref.qualifier:
                target = f"{key}#{ref.name}"  # same package, another file
                conf = "inferred" if dot_imports else "exact"
                if dotted and ref.name[:1].isupper():
                    aliases_of_keys.extend((target, f"{m}#{ref.name}") for m in dotted)
            else:
                first = ref.qualifier.split(".", 1)[0]
                package = _free_package(first, imports)
                if package is not None:
                    target, conf = f"{package}#{chain}", "inferred"
                else:  # a package-level variable declared in another file
                    target, conf = f"{key}#{ref.qualifier}.{ref.name}", "inferred"
        targets.append(target)
        confidence.append(conf if target else "ambiguous")
    def_full = tuple(f"{key}#{d.qualname}" for d in facts.definitions)
    bases: list[tuple[str, ...]] = []
    aliases: list[tuple[str, str]] = []
    for d, full in zip(facts.definitions, def_full):
        resolved = tuple(dict.fromkeys(_resolve_type(b, key, imports, builtins)
                                       if d.kind not in _VALUE_KINDS else
                                       _resolve_value(b, key, imports, builtins)
                                       for b in d.bases))
        if d.kind == "type" and any(_CONTAINER.match(b) for b in d.bases):
            # `type Alerts []*Alert`: what an element access reaches through a value of
            # the type (`as[i].M()`, read `as.M`) is the element type's member; the
            # type's own methods (`Alerts.Len`) stay its own (their definitions come first)
            elements = (_CONTAINER.sub("", b) for b in d.bases)
            aliases.extend((f"{full}.*", f"{r}.*") for r in (
                _resolve_type(e, key, imports, builtins) for e in elements
                if _TYPE_NAME.match(e)) if "#" in r)
            bases.append(())
        elif d.kind == "type":  # `type T = U`: an alias, not an embedding
            aliases.extend((full, r) for r in resolved)
            bases.append(())
        elif d.kind in _VALUE_KINDS or d.kind in _CALLABLE_KINDS:
            # A declared type (or a function's result type): members reached through the
            # value (or through what a call returns) are the type's members.
            aliases.extend((f"{full}.*", f"{r}.*") for r in resolved if "#" in r)
            bases.append(())
        else:
            bases.append(resolved)
            if d.kind == "struct":  # an embedded type is also a field named after it
                aliases.extend((f"{full}.{b.rsplit('.', 1)[-1]}.*", f"{r}.*")
                               for b, r in zip(d.bases, (_resolve_type(b, key, imports,
                                                                       builtins)
                                                         for b in d.bases)) if "#" in r)
    aliases.extend(dict.fromkeys(aliases_of_keys))
    return Resolution(tuple(targets), tuple(confidence), def_full, tuple(bases), tuple(aliases))


def _literal_key(ref: Reference, head: str, arg: str, key: str, imports: tuple[Import, ...],
                 kinds: dict[str, str]) -> tuple[str | None, str, list[tuple[str, str]]]:
    """A key of a literal of type T (`T{k: v}`): a field of T when T is a struct (known here,
    or imported: a bare key never names another package's value); otherwise, T being declared
    in another file of the package, the site ``T{}.k`` means both T's field and the
    package-level value k (a constant key of a map type `type Metric map[…]…`), by two
    aliases: whichever of the two is defined is what the key uses."""
    parts = ref.qualifier.split(".")
    if head == H.IMPORT and len(parts) == 2:
        return f"{imports[int(arg)].module}#{parts[1]}.{ref.name}", "inferred", []
    if head not in (H.DEF, H.FREE) or len(parts) != 1:
        return None, "ambiguous", []
    if head == H.DEF and kinds.get(arg) == "struct":
        return f"{key}#{arg}.{ref.name}", "exact", []
    site = f"{key}#{parts[0]}{{}}.{ref.name}"
    return site, "inferred", [(site, f"{key}#{parts[0]}.{ref.name}"), (site, f"{key}#{ref.name}")]


def _instance(arg: str, qualifier: str, name: str, key: str, imports: tuple[Import, ...]
              ) -> str | None:
    """``inst:<consumed>|<type head>|<type>`` → ``pkg#Type.member``: the type's package from
    its head (an import, or this package for a local or free type name)."""
    consumed, type_head, type_text = H.parse_instance(arg)
    kind, val = H.split(type_head)
    parts = type_text.split(".")
    package = _free_package(parts[0], imports) if kind == H.FREE and len(parts) > 1 else None
    if kind == H.IMPORT:
        base = f"{imports[int(val)].module}#{'.'.join(parts[1:])}"
    elif package is not None:  # `v := pkg.F()` with pkg an import named otherwise
        base = f"{package}#{'.'.join(parts[1:])}"
    elif kind == H.DEF:  # its qualname: a type declared in a function is `F.T`
        base = f"{key}#{'.'.join([val, *parts[1:]])}"
    elif kind == H.FREE:
        base = f"{key}#{type_text}"
    elif kind == H.SELF:  # a call on the receiver: `u := r.client.URL()` → Type.client.URL
        base = f"{key}#{'.'.join([val, *parts[1:]])}"
    else:
        return None
    rest = qualifier.split(".")[consumed:]
    return ".".join([base, *rest, name])


def _resolve_value(text: str, key: str, imports: tuple[Import, ...],
                   builtins: frozenset[str]) -> str:
    """A variable's declared type, or the callee of the call that sets it, as a full name;
    a callee reached through a chain (`var D = Config{…}.Froze()`, `New(x).Froze()`) as
    the chain's path (`Config.Froze`: the callee's result type carries it on), in this
    package unless it starts at an import."""
    if not any(c in text for c in "({["):
        return _resolve_type(text, key, imports, builtins)
    path = call_path(text.encode(), b"(){}[]").decode("utf-8", "replace")
    head = path.split(".", 1)[0]
    if not path or not _CHAIN.match(path) or head in builtins:
        return text
    resolved = _resolve_type(path, key, imports, builtins)
    return resolved if "#" in resolved or "." not in path else f"{key}#{path}"


def _resolve_type(text: str, key: str, imports: tuple[Import, ...],
                  builtins: frozenset[str]) -> str:
    """A type expression (``Name`` or ``pkg.Name``) as a full name; builtins stay bare."""
    head, dot, name = text.partition(".")
    if not dot:
        return text if text in builtins else f"{key}#{text}"
    for imp in imports:
        if imp.alias == head and imp.scope < 0 and imp.name != "*":
            return f"{imp.module}#{name}"
    for imp in imports:
        if imp.name is None and imp.scope < 0 and _package_name_matches(head, imp):
            return f"{imp.module}#{name}"
    unknown = [i for i in imports if i.name is None and i.scope < 0
               and _name_unknown(i, head)]
    if len(unknown) == 1:
        return f"{unknown[0].module}#{name}"
    return text

