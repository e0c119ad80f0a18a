"""The language-pack schema: the capture names each query file may use, the manifest's
keys and their types, and the check naming the file and key that break it (docs/languages.md)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from spyglass.errors import LanguagePackError
from spyglass.types import DEF_KINDS, ROLES

# The capture names each query file may use; anything else is a pack error.
ALLOWED_CAPTURES: dict[str, frozenset[str]] = {
    "definitions": frozenset(
        {f"definition.{k}" for k in DEF_KINDS}
        | {"name", "receiver", "base", "package", "parameters", "property"}
    ),
    # @qualified: a node whose text up to the name is the qualifier (`a.b` of `a.b.c`);
    # @receiver: the receiver itself, where the node holding it spans more than the name
    # (Java's `method_invocation` spans the arguments): the qualifier runs from it to the name.
    # @doc: a comment searched with the manifest's `doc_link` (`{@link Name}`).
    # @key: a key of a composite literal (Go `T{k: v}`): role `ref`, the literal's type as
    # its qualifier (the resolver reads it as a field of T or, for a map type, a value).
    # @destructured: a key of a declaration's object pattern (`const { a } = recv`): role
    # `ref`, the declaration's value as its receiver (syntax/destructured.py).
    # @arguments: a call's bracketed argument list (its items counted); @argument: one
    # argument outside it (a trailing lambda). @tag: a name in the tag name space (C's
    # `struct X`): its head is marked ``tag:`` (syntax/heads.py). Definitions' @parameters: a parameter list.
    "references": frozenset({f"reference.{r}" for r in ROLES}
                            | {"qualified", "receiver", "ignore", "doc", "key", "destructured",
                               "arguments", "argument", "tag"}),
    "imports": frozenset(
        {"import.module", "import.name", "import.alias", "import.wildcard", "import.default",
         "import.reexport"}
    ),
    "scopes": frozenset(
        {"scope", "scope.class", "scope.self", "local.definition", "local.global", "local.self",
         "local.type", "local.member", "local.nonlocal", "local.parameter", "local.narrow",
         "local.narrow.block", "local.element", "local.element.target", "local.appended",
         "local.appended.value", "local.read", "local.read.name"}
    ),
}

# -- the manifest schema (docs/languages.md, "Manifest keys") ----------------------------
# A type is a Python type, ("list", item type), ("map", value type), a nested schema (a
# table with those keys) or a frozenset of allowed strings.
Schema = dict[str, Any]
STRS = ("list", str)
DETECT: Schema = {  # one way a configuration file names a test framework
    "file": str, "files": STRS, "toml_table": str, "ini_section": str,
    "json_dependency": str, "json_script": str, "capture": str, "evidence": str,
}
PACKAGE_FILE: Schema = {  # where a project's package name and version are written
    "file": str, "format": frozenset({"toml", "json", "regex"}), "name": str, "version": str,
}
SCIP: Schema = {  # SCIP export: the symbols' package manager, the Document language name
    "manager": str, "language": str, "package_files": ("list", PACKAGE_FILE),
}
SELECT: Schema = {"option": str, "names": str, "none": str}  # test names → a command option
FRAMEWORK: Schema = {  # a test framework: detection, commands, shared fixture files
    "detect": ("list", DETECT), "root": frozenset({"config", "repository"}),
    "command": str, "id_separator": str, "max_ids": int, "name_option": str,
    "name_separator": str, "symbol_format": str, "outermost": bool,
    "select": ("list", SELECT), "expand_files": bool, "fixture_files": STRS,
}
ARITY: Schema = {  # regular expressions over one parameter's (or list's) text
    "variadic": str, "optional": str, "optional_list": str, "empty": str,
    "defaults_apart": bool,  # read at query time (query/overloads.py), not a pattern
    "argument_types": str,  # a module of the pack typing arguments (query/argtypes.py)
    "overrides_by_count": bool,  # a same-named member overrides only the same count
}
COVERAGE: Schema = {  # the depth a pack reaches, stated by the pack (README, code_status)
    "definitions": str, "references": str, "resolution": str, "callers": str, "tests": str,
    "limitations": str,
}
CONTEXTUAL: Schema = {  # grammar nodes of parameters typed by context (syntax/contextual.py)
    "functions": STRS, "arrow": str, "method": str, "object": str, "parameters": STRS,
    "receiver": str, "name": str, "annotation": str, "typed": STRS, "function_types": STRS,
    "return_statement": str, "return_wrappers": STRS, "assignment": str, "member": str,
    "index_types": STRS, "index_signature": str,
}
TOKENS: Schema = {  # identifier tokens the accounting counts (query/accounting.py)
    "kinds": STRS,  # the grammar's identifier-like leaf kinds
    # kinds of a dotted path a token's parent is looked through (Java's `a.b.C`): only
    # where every path leads to a node that says what the path is (a package, an import)
    "paths": STRS,
    # a token the pack does not extract, by its parent's kind: a certain exclusion, and why
    "excluded": ("map", str),
    # a token the pack does not extract that names a package or a type, never a member (a
    # path's segment: Java's `import a.b.C`): a certain exclusion when the target is a
    # member (no class, interface, enum, ...), and why
    "not_a_member": ("map", str),
    # a token the pack ignores as declaring a name (a prototype's), by its parent's kind: a
    # certain exclusion (a declaration, not a use) unless the target is a macro (a
    # function-like macro's invocation reads like a prototype: `static LIST_HEAD(name);`)
    "declarations": ("map", str),
}
MANIFEST: Schema = {
    "name": str, "pack_version": str, "extensions": STRS, "grammar": str,
    "grammar_function": str, "extends": str, "resolver": str, "replaces": str,
    "claims": ("map", STRS),  # another pack's extension, claimed when the text matches
    # extraction
    "self_names": STRS, "class_scope_encloses": bool, "const_pattern": str,
    "file_local_imports": bool,
    "import_binds": frozenset({"head", "tail"}), "import_tail_skip": str,
    "qualifier_separators": STRS, "parse_blanks": STRS, "parse_separators": STRS,
    "recovered_definitions": ("map", str),
    "statement_macros": bool, "error_pieces": bool,  # syntax/diagnostics.py
    "super_receivers": STRS, "call_chains": str, "constructed_receiver": str, "call_chains_marked": bool,
    "call_chains_type_assertions": bool, "call_chain_types": bool,
    "import_binds_package_name": bool, "typed_receivers_proven": bool,
    "declared_results_proven": bool,
    "typed_member_paths": bool, "type_unwrap": STRS, "builtin_types_external": bool,
    "element_containers": STRS, "value_containers": STRS, "element_members": STRS,
    "value_members": STRS, "contextual_parameters": CONTEXTUAL,
    "container_nodes": {"generic": str, "array": str, "literal": str},
    "builtins": STRS, "literal_types": ("map", str), "literal_receiver": str, "element_subscripts": str,
    "type_operators": ("map", str), "type_operands_skipped": STRS,
    "optional_member_tokens": STRS, "anonymous_structs": ("map", str),
    "doc_link": str, "doc_comment_start": str, "build_constraint": str,
    "flow_types": {"blocks": STRS, "assignments": STRS, "loops": STRS, "keeps": STRS,
                   "parameters": STRS, "tries": STRS, "handlers": STRS, "exits": STRS,
                   "finals": STRS},
    "element_types": {"sequences": STRS, "mappings": STRS, "tuples": STRS, "wrappers": STRS,
                      "passthrough": STRS, "enumerate": STRS, "declared": STRS,
                      "comprehensions": STRS, "member": str, "views": ("map", str)},
    "build_constraint_file": str,
    "arity": ARITY,
    "preprocessor_conditions": bool, "preprocessor_absent": STRS,
    "preprocessor_present": ("map", str), "preprocessor_options": ("map", str), "file_scoped_kinds": STRS, "tag_namespace": bool,
    "inherited_members": bool, "external_guesses_dropped": bool, "dynamic_member_hooks": STRS,
    "submodules_bound_by_import": bool,
    # queries
    "callers_include_value_uses": bool, "callers_value_uses_in_functions": bool, "callers_include_member_uses": bool,
    "callers_member_uses_methods_only": bool,
    # the characters that open and close a definition's body (C: "{}"): a syntax error
    # holding neither inside a function leaves the function whole (accounting.enclosing_proven)
    "body_brackets": str,
    "builtin_members": STRS,
    "builtin_interfaces": ("map", STRS), "structural_interfaces": bool,
    "external_interfaces": ("map", STRS), "external_types": ("map", STRS),
    "structural_bases": STRS,
    "constructor_names": STRS, "declaration_sites": STRS, "declaration_files": STRS,
    "inherited_bare_names": bool,
    "references_through_types": bool,
    "type_namespace": bool, "member_namespaces": bool,
    # tests
    "module_file_stems": STRS, "test_file_patterns": STRS, "test_dirs_any_file": STRS, "test_function_pattern": str,
    "test_class_pattern": str, "test_class_bases": str, "test_framework": str,
    "test_frameworks": STRS,
    "test_config_boundary": str, "test_framework_assumed": str,
    "frameworks": ("map", FRAMEWORK),
    "scip": SCIP,
    "coverage": COVERAGE,
    "tokens": TOKENS,
}
REQUIRED = ("name", "pack_version", "extensions", "grammar")
_TYPE_NAMES = {str: "a string", bool: "a boolean", int: "an integer"}
TypeSpec = type | tuple[str, Any] | Schema | frozenset[str]


def describe(spec: TypeSpec) -> str:
    if isinstance(spec, type):
        return _TYPE_NAMES[spec]
    if isinstance(spec, frozenset):
        return "one of " + ", ".join(repr(v) for v in sorted(spec))
    if isinstance(spec, dict):
        return "a table"
    inner = describe(spec[1])
    return f"a list of {inner.removeprefix('a ').removeprefix('an ')}s" if spec[0] == "list" \
        else f"a table of {inner.removeprefix('a ').removeprefix('an ')}s"


def _valid(value: Any, spec: TypeSpec) -> bool:
    if isinstance(spec, type):
        return isinstance(value, spec) and not (spec is int and isinstance(value, bool))
    if isinstance(spec, frozenset):
        return value in spec
    if isinstance(spec, dict):
        return isinstance(value, dict)
    if spec[0] == "list":
        return isinstance(value, list) and all(_valid(v, spec[1]) for v in value)
    return isinstance(value, dict) and all(_valid(v, spec[1]) for v in value.values())


def names_in(table: Mapping[str, object], key: str) -> frozenset[str]:
    """A manifest table's list of strings under `key` as a set (empty when absent)."""
    value = table.get(key, ())
    return frozenset(str(v) for v in value) if isinstance(value, list) else frozenset()


def check_table(path: Path, where: str, table: dict[str, Any], schema: Schema) -> None:
    """Every key of `table` known to `schema` and of its type, nested tables included;
    else a LanguagePackError naming the file and the key (`where` is the key's prefix)."""
    for key, value in table.items():
        name = f"{where}{key}"
        spec = schema.get(key)
        if spec is None:
            raise LanguagePackError(f"{path}: unknown key {name!r}")
        if not _valid(value, spec):
            raise LanguagePackError(f"{path}: {name!r} must be {describe(spec)}")
        nested = spec if isinstance(spec, dict) else spec[1] if isinstance(spec, tuple) \
            and isinstance(spec[1], dict) else None
        if nested is None:
            continue
        if isinstance(spec, dict):
            check_table(path, f"{name}.", value, nested)
        elif spec[0] == "list":
            for i, item in enumerate(value):
                check_table(path, f"{name}[{i}].", item, nested)
        else:
            for k, item in value.items():
                check_table(path, f"{name}.{k}.", item, nested)

