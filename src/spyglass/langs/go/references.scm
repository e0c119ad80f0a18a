; Go references. @reference.<role> marks a used name; @qualified marks a member access
; that ends with the used name (its text before the name is the qualifier); @ignore marks
; identifiers that are not uses of a declared symbol.
(selector_expression field: (field_identifier)) @qualified
(qualified_type name: (type_identifier)) @qualified

(call_expression function: (identifier) @reference.call)
(call_expression function: (selector_expression field: (field_identifier) @reference.call))
(call_expression function: (parenthesized_expression (identifier) @reference.call))
; Generic function instantiation `F[int](x)` parses as a conversion to a generic type.
(type_conversion_expression type: (generic_type type: (type_identifier) @reference.call))
(type_conversion_expression type: (generic_type type: (qualified_type name: (type_identifier) @reference.call)))

(type_identifier) @reference.type
(qualified_type package: (package_identifier) @reference.read)

(assignment_statement left: (expression_list (identifier) @reference.write))
(assignment_statement left: (expression_list (selector_expression field: (field_identifier) @reference.write)))
(inc_statement (identifier) @reference.write)
(dec_statement (identifier) @reference.write)
(inc_statement (selector_expression field: (field_identifier) @reference.write))
(dec_statement (selector_expression field: (field_identifier) @reference.write))

(identifier) @reference.read
(selector_expression field: (field_identifier) @reference.read)

; Keys of literals of a named type (`T{k: v}`, `pkg.T{k: v}`) name a field of T when T is
; a struct, a value (a constant) when T is a map, slice or array type: @key gives them the
; literal's type as qualifier, and the resolver reads them by T. Keys of other struct
; literals name fields of the literal's type, not variables in scope.
(composite_literal
  type: [(type_identifier) (qualified_type)]
  body: (literal_value (keyed_element key: (literal_element (identifier) @key))))
(composite_literal
  type: [(generic_type) (pointer_type) (struct_type)]
  body: (literal_value (keyed_element key: (literal_element (identifier) @ignore))))
; The blank identifier is never a use.
((identifier) @ignore (#eq? @ignore "_"))
; Parameter names (also of interface methods and function types) are never uses.
(parameter_declaration name: (identifier) @ignore)
(variadic_parameter_declaration name: (identifier) @ignore)
