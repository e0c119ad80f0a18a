; Java references (throwaway pack). `a.b(c)` is one node spanning the arguments: its
; receiver is marked @receiver; a field access `a.b` ends with its name: @qualified.
(method_invocation object: (_) @receiver)
(field_access field: (identifier)) @qualified
(scoped_type_identifier (type_identifier)) @qualified

(method_invocation name: (identifier) @reference.call)
(object_creation_expression type: (type_identifier) @reference.type)
(type_identifier) @reference.type
(field_access field: (identifier) @reference.read)
(identifier) @reference.read
(import_declaration (scoped_identifier name: (identifier) @reference.import))

(package_declaration (_) @ignore)
(import_declaration (scoped_identifier scope: (_) @ignore))
(formal_parameter name: (identifier) @ignore)
(variable_declarator name: (identifier) @ignore)
