; Lua references: `a.b` and `a:b` are qualified (`:` is written `.`).
(dot_index_expression field: (identifier)) @qualified
(method_index_expression method: (identifier)) @qualified

(function_call name: (identifier) @reference.call)
(function_call name: (dot_index_expression field: (identifier) @reference.call))
(function_call name: (method_index_expression method: (identifier) @reference.call))

(assignment_statement (variable_list name: (identifier) @reference.write))
(assignment_statement (variable_list name: (dot_index_expression field: (identifier) @reference.write)))

(identifier) @reference.read
(dot_index_expression field: (identifier) @reference.read)

(parameters name: (identifier) @ignore)
(field name: (identifier) @ignore)
(variable_declaration (assignment_statement (variable_list name: (identifier) @ignore)))
(variable_declaration (variable_list name: (identifier) @ignore))
