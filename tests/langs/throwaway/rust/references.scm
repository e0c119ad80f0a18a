; Rust references (throwaway pack): `a::b` paths and `x.f` fields are qualified.
(scoped_identifier name: (identifier)) @qualified
(scoped_type_identifier name: (type_identifier)) @qualified
(field_expression field: (field_identifier)) @qualified

(call_expression function: (identifier) @reference.call)
(call_expression function: (scoped_identifier name: (identifier) @reference.call))
(call_expression function: (field_expression field: (field_identifier) @reference.call))
(type_identifier) @reference.type
(scoped_identifier path: (identifier) @reference.read)
(identifier) @reference.read
(field_expression field: (field_identifier) @reference.read)

(parameter pattern: (identifier) @ignore)
(let_declaration pattern: (identifier) @ignore)
(field_initializer field: (field_identifier) @ignore)
(shorthand_field_initializer (identifier) @ignore)
((identifier) @ignore (#eq? @ignore "crate"))
; The name a `use` brings in is an import site.
(use_declaration argument: (scoped_identifier name: (identifier) @reference.import))
(use_declaration argument: (use_as_clause path: (scoped_identifier name: (identifier) @reference.import)))
