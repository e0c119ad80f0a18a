"""Java argument and parameter types for telling overloads apart (manifest `[arity]
argument_types`; query/overloads.py): literals, casts, `new`, and names declared with a
type (locals, parameters, fields), read from the syntax tree, never evaluated.

A type is its simple name (`java.nio.ByteBuffer` is `ByteBuffer`, `List<String>` is
`List`) with its array brackets (`byte[]`); None when it is not known: a call's result, a
`var`, a type variable, an expression this module does not type."""

from __future__ import annotations

from tree_sitter import Node

PRIMITIVES = frozenset({"byte", "short", "char", "int", "long", "float", "double",
                        "boolean"})
# Widening primitive conversions (JLS 5.1.2).
_WIDER: dict[str, frozenset[str]] = {
    "byte": frozenset({"short", "int", "long", "float", "double"}),
    "short": frozenset({"int", "long", "float", "double"}),
    "char": frozenset({"int", "long", "float", "double"}),
    "int": frozenset({"long", "float", "double"}),
    "long": frozenset({"float", "double"}),
    "float": frozenset({"double"}),
}
_BOX = {"byte": "Byte", "short": "Short", "char": "Character", "int": "Integer",
        "long": "Long", "float": "Float", "double": "Double", "boolean": "Boolean"}
_UNBOX = {v: k for k, v in _BOX.items()}
# The supertypes of the box classes and of String (all final: nothing else is assignable
# from them but these).
_BOX_SUPERS = frozenset({"Object", "Serializable", "Comparable", "Constable", "ConstantDesc"})
_STRING_SUPERS = _BOX_SUPERS | {"String", "CharSequence"}
_ARRAY_SUPERS = frozenset({"Object", "Cloneable", "Serializable"})
_NUMERIC_ORDER = ("byte", "short", "char", "int", "long", "float", "double")
_INTEGER_LITERALS = frozenset({"decimal_integer_literal", "hex_integer_literal",
                               "octal_integer_literal", "binary_integer_literal"})
_SCOPES = frozenset({"block", "method_declaration", "constructor_declaration",
                     "lambda_expression", "for_statement", "enhanced_for_statement",
                     "catch_clause", "try_with_resources_statement", "switch_block_statement_group",
                     "class_body", "interface_body", "enum_body_declarations", "record_declaration",
                     "program"})
MAX_DEPTH = 64  # ancestors walked from one argument


def _call_arguments(name: Node) -> Node | None:
    """The argument list of the call whose name is `name` (a method invocation's, or a
    constructor's type in `new T(…)`), or None when `name` names no call."""
    call = name.parent
    while call is not None and call.type in ("scoped_type_identifier", "generic_type"):
        call = call.parent
    if call is None or call.type not in ("method_invocation", "object_creation_expression",
                                         "explicit_constructor_invocation"):
        return None
    return call.child_by_field_name("arguments")


def argument_types(name: Node) -> tuple[str | None, ...] | None:
    """The types of the arguments of the call whose name is `name` (a method invocation's,
    or a constructor's type in `new T(…)`); None when `name` names no call."""
    args = _call_arguments(name)
    if args is None:
        return None
    return tuple(expression_type(a) for a in args.named_children if "comment" not in a.type)


def argument_calls(name: Node) -> tuple[Node | None, ...] | None:
    """For the call whose name is `name`, each argument's callee name when the argument is
    a method invocation (`f(g(x))`: `g`), else None; None when `name` names no call. Its
    result's type is the callee's declared return type (`return_type`), which the caller
    looks up through the index."""
    args = _call_arguments(name)
    if args is None:
        return None
    out: list[Node | None] = []
    for a in args.named_children:
        if "comment" in a.type:
            continue
        while a.type == "parenthesized_expression" and a.named_child_count == 1:
            a = a.named_children[0]
        out.append(a.child_by_field_name("name") if a.type == "method_invocation" else None)
    return tuple(out)


def return_type(name: Node) -> str | None:
    """The declared return type of the method named `name` (None: `void`, a type variable,
    a type this module does not read, or `name` names no method)."""
    decl = name.parent
    if decl is None or decl.type != "method_declaration":
        return None
    if decl.child_by_field_name("type_parameters") is not None:
        return None  # a generic method's result may be typed by its arguments
    return _normal(decl.child_by_field_name("type"), _type_variables(decl))


def parameter_types(name: Node) -> tuple[str | None, ...] | None:
    """The declared parameter types of the method or constructor named `name`; None for
    a variadic one (its last parameter takes any number) or when `name` names neither."""
    decl = name.parent
    if decl is None or decl.type not in ("method_declaration", "constructor_declaration"):
        return None
    params = decl.child_by_field_name("parameters")
    if params is None:
        return None
    variables = _type_variables(decl)
    out: list[str | None] = []
    for p in params.named_children:
        if p.type == "spread_parameter":
            return None
        if p.type != "formal_parameter":
            continue
        out.append(_declared(p, variables))
    return tuple(out)


def assignable(arg: str | None, param: str | None) -> bool | None:
    """Whether a value of type `arg` may be passed for a parameter of type `param` (JLS 5.3:
    identity, widening, boxing, unboxing, subtyping): True, False when it surely may not,
    None when it cannot be told (a type unknown, two classes whose relation is unread)."""
    if arg is None or param is None:
        return None
    if arg == param:
        return True
    if arg == "null":
        return param not in PRIMITIVES
    if arg in PRIMITIVES:
        if param in PRIMITIVES:
            return param in _WIDER.get(arg, frozenset())
        numeric = arg not in ("char", "boolean")
        return param == _BOX[arg] or param in _BOX_SUPERS or (numeric and param == "Number")
    if param in PRIMITIVES:
        prim = _UNBOX.get(arg)
        if prim is None:  # only the box classes unbox
            return False if arg == "String" or arg.endswith("[]") or arg in _BOX_SUPERS \
                else None
        return prim == param or param in _WIDER.get(prim, frozenset())
    if arg.endswith("[]") or param.endswith("[]"):
        if arg.endswith("[]") and param.endswith("[]"):
            a, p = arg[:-2], param[:-2]
            if a in PRIMITIVES or p in PRIMITIVES:
                return a == p
            return assignable(a, p)
        if arg.endswith("[]"):
            return param in _ARRAY_SUPERS
        return False if arg in _UNBOX or arg == "String" else None
    if arg == "String":
        return param in _STRING_SUPERS
    if arg in _UNBOX:
        return param in _BOX_SUPERS or (param == "Number" and arg not in ("Character",
                                                                          "Boolean"))
    if param == "String" or param in _UNBOX:
        return False  # final classes: no other class's value is one of them
    return None


def expression_type(node: Node) -> str | None:
    """The static type of an argument expression, when this module can tell it."""
    kind = node.type
    if kind in _INTEGER_LITERALS:
        return "long" if _text(node).rstrip("_").endswith(("l", "L")) else "int"
    if kind in ("decimal_floating_point_literal", "hex_floating_point_literal"):
        return "float" if _text(node).endswith(("f", "F")) else "double"
    if kind == "character_literal":
        return "char"
    if kind in ("string_literal", "text_block"):
        return "String"
    if kind in ("true", "false"):
        return "boolean"
    if kind == "null_literal":
        return "null"
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        inner = node.named_children[0]
        return expression_type(inner)
    if kind == "cast_expression":
        return _normal(node.child_by_field_name("type"), frozenset())
    if kind == "object_creation_expression" and not _has_body(node):
        return _normal(node.child_by_field_name("type"), frozenset())
    if kind == "array_creation_expression":
        base = _normal(node.child_by_field_name("type"), frozenset())
        dims = sum(1 for c in node.children if c.type in ("dimensions_expr", "dimensions")
                   for _ in range(max(1, _text(c).count("["))))
        return f"{base}{'[]' * dims}" if base and dims else None
    if kind == "identifier":
        return _declared_name(node, _text(node))
    if kind == "field_access":
        obj = node.child_by_field_name("object")
        field = node.child_by_field_name("field")
        if obj is not None and obj.type == "this" and field is not None:
            return _field_type(node, _text(field))
        return None
    if kind == "unary_expression":
        operand = node.child_by_field_name("operand")
        op = node.child_by_field_name("operator")
        if op is not None and _text(op) == "!":
            return "boolean"
        t = expression_type(operand) if operand is not None else None
        return _promoted(t, "int") if op is not None and _text(op) in ("-", "+", "~") else t
    if kind == "binary_expression":
        return _binary(node)
    return None


def _binary(node: Node) -> str | None:
    op = node.child_by_field_name("operator")
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if op is None or left is None or right is None:
        return None
    o = _text(op)
    if o in ("==", "!=", "<", ">", "<=", ">=", "&&", "||", "instanceof"):
        return "boolean"
    a, b = expression_type(left), expression_type(right)
    if o == "+" and "String" in (a, b):
        return "String"
    if o in ("<<", ">>", ">>>"):
        return _promoted(a, "int")
    if a is None or b is None:
        return None
    if a == "boolean" and b == "boolean" and o in ("&", "|", "^"):
        return "boolean"
    return _promoted(_promoted(a, "int"), b)


def _promoted(a: str | None, b: str | None) -> str | None:
    """Binary numeric promotion of two primitive types (JLS 5.6); None otherwise."""
    a = _UNBOX.get(a or "", a)
    b = _UNBOX.get(b or "", b)
    if a not in _NUMERIC_ORDER or b not in _NUMERIC_ORDER:
        return None
    wide = max(_NUMERIC_ORDER.index(a), _NUMERIC_ORDER.index(b), _NUMERIC_ORDER.index("int"))
    return _NUMERIC_ORDER[wide]


def _declared_name(node: Node, name: str) -> str | None:
    """The declared type of the local, parameter or field `name` seen from `node`: the
    nearest declaration in the scopes around it (a local declared before `node`)."""
    scope = node.parent
    depth = 0
    while scope is not None and depth < MAX_DEPTH:
        depth += 1
        if scope.type in _SCOPES:
            found = _declared_in(scope, name, node.start_byte)
            if found is not None:
                return found[0]
        scope = scope.parent
    return None


def _declared_in(scope: Node, name: str, before: int) -> tuple[str | None] | None:
    """(type,) of `name` as declared directly in `scope`, None when it declares no such
    name (a found declaration of unknown type gives (None,): the search stops there)."""
    variables = _type_variables(scope)
    for child in scope.named_children:
        kind = child.type
        if kind in ("local_variable_declaration", "field_declaration", "constant_declaration"):
            if kind == "local_variable_declaration" and child.start_byte > before:
                continue
            for d in child.children_by_field_name("declarator"):
                n = d.child_by_field_name("name")
                if n is not None and _text(n) == name:
                    base = _declared(child, variables)
                    dims = d.child_by_field_name("dimensions")
                    return (f"{base}{'[]' * _text(dims).count('[')}"
                            if base and dims is not None else base,)
        elif kind in ("formal_parameters", "resource_specification", "inferred_parameters"):
            for p in child.named_children:
                n = p.child_by_field_name("name") if p.type != "identifier" else p
                if n is not None and _text(n) == name:
                    return (_declared(p, variables) if p.type != "identifier" else None,)
        elif kind in ("formal_parameter", "catch_formal_parameter"):
            n = child.child_by_field_name("name")
            if n is not None and _text(n) == name:
                return (_declared(child, variables),)
        elif kind == "identifier" and scope.type == "lambda_expression" \
                and child == scope.child_by_field_name("parameters") and _text(child) == name:
            return (None,)
    if scope.type == "enhanced_for_statement":
        n = scope.child_by_field_name("name")
        if n is not None and _text(n) == name:
            return (_declared(scope, variables),)
    return None


def _field_type(node: Node, name: str) -> str | None:
    """The declared type of field `name` of the class around `node`."""
    scope = node.parent
    depth = 0
    while scope is not None and depth < MAX_DEPTH:
        depth += 1
        if scope.type in ("class_body", "enum_body_declarations", "interface_body"):
            found = _declared_in(scope, name, node.start_byte)
            return found[0] if found is not None else None
        scope = scope.parent
    return None


def _declared(decl: Node, variables: frozenset[str]) -> str | None:
    """The type a declaration (a parameter, local, field) writes, normalised."""
    return _normal(decl.child_by_field_name("type"), variables | _type_variables(decl))


def _normal(node: Node | None, variables: frozenset[str]) -> str | None:
    """A type node as its simple name with array brackets; None for `var`, a type
    variable, or a type this module does not read."""
    if node is None:
        return None
    kind = node.type
    if kind == "array_type":
        element = _normal(node.child_by_field_name("element"), variables)
        dims = node.child_by_field_name("dimensions")
        count = _text(dims).count("[") if dims is not None else 1
        return f"{element}{'[]' * count}" if element else None
    if kind == "generic_type":
        base = next((c for c in node.named_children if c.type != "type_arguments"), None)
        return _normal(base, variables)
    if kind == "scoped_type_identifier":
        last = node.named_children[-1] if node.named_children else None
        return _normal(last, variables) if last is not None else None
    if kind in ("integral_type", "floating_point_type", "boolean_type"):
        return _text(node)
    if kind == "type_identifier":
        text = _text(node)
        if text == "var" or text in variables:
            return None
        return text
    if kind == "annotated_type":
        inner = next((c for c in node.named_children if c.type not in
                      ("annotation", "marker_annotation")), None)
        return _normal(inner, variables)
    return None


def _type_variables(node: Node) -> frozenset[str]:
    """The type variables declared by `node` and the declarations around it (a generic
    method's `<T>`, its class's)."""
    out: set[str] = set()
    scope: Node | None = node
    depth = 0
    while scope is not None and depth < MAX_DEPTH:
        depth += 1
        params = scope.child_by_field_name("type_parameters") \
            if scope.type.endswith("_declaration") else None
        if params is not None:
            for p in params.named_children:
                ident = next((c for c in p.named_children if c.type in
                              ("type_identifier", "identifier")), None)
                if ident is not None:
                    out.add(_text(ident))
        scope = scope.parent
    return frozenset(out)


def _has_body(node: Node) -> bool:
    return any(c.type == "class_body" for c in node.children)


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")
