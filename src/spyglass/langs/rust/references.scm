; Rust references. `a::b` paths, `x.f` fields and `Type::m` are qualified (the qualifier
; is written with `.`); macros are called (`m!()`).
(scoped_identifier name: (identifier)) @qualified
(scoped_type_identifier name: (type_identifier)) @qualified
(field_expression field: (field_identifier)) @qualified

(call_expression function: (identifier) @reference.call)
(call_expression function: (scoped_identifier name: (identifier) @reference.call))
(call_expression function: (field_expression field: (field_identifier) @reference.call))
(call_expression function: (generic_function function: [(identifier) @reference.call
  (scoped_identifier name: (identifier) @reference.call)
  (field_expression field: (field_identifier) @reference.call)]))
(macro_invocation macro: (identifier) @reference.call)
(macro_invocation macro: (scoped_identifier name: (identifier) @reference.call))
; Macro arguments are token trees, not expressions: `f(..)` inside one is a call, another
; name a read (a method there, `x.m()`, has no receiver: it is matched by name).
(token_tree (identifier) @reference.call . (token_tree))

(assignment_expression left: (identifier) @reference.write)
(assignment_expression left: (field_expression field: (field_identifier) @reference.write))
(compound_assignment_expr left: (identifier) @reference.write)
(compound_assignment_expr left: (field_expression field: (field_identifier) @reference.write))

(type_identifier) @reference.type
(scoped_identifier path: (identifier) @reference.read)
(scoped_type_identifier path: (identifier) @reference.read)
(identifier) @reference.read
(field_expression field: (field_identifier) @reference.read)
(field_initializer field: (field_identifier) @reference.write)

; The names a `use` brings in are import sites.
(use_declaration argument: (scoped_identifier name: (identifier) @reference.import))
(use_declaration argument: (use_as_clause path: (scoped_identifier name: (identifier) @reference.import)))
(use_declaration argument: (scoped_use_list list: (use_list (identifier) @reference.import)))
(use_declaration argument: (scoped_use_list list: (use_list (use_as_clause path: (identifier) @reference.import))))

; Bindings and labels are never uses.
(parameter pattern: (identifier) @ignore)
(let_declaration pattern: (identifier) @ignore)
(shorthand_field_initializer (identifier) @ignore)
(lifetime (identifier) @ignore)
(label (identifier) @ignore)
(use_as_clause alias: (identifier) @ignore)
(attribute_item (attribute (identifier) @ignore))
(attribute_item (attribute arguments: (token_tree (identifier) @ignore)))
(inner_attribute_item (attribute (identifier) @ignore))
(inner_attribute_item (attribute arguments: (token_tree (identifier) @ignore)))
(attribute_item (attribute arguments: (token_tree (token_tree (identifier) @ignore))))
(macro_definition (macro_rule (token_tree_pattern (identifier) @ignore)))
(type_parameters (type_parameter name: (type_identifier) @ignore))
