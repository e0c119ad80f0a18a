; Lua scopes: functions open a scope (blocks are approximated by their function).
(function_declaration) @scope
(function_definition) @scope

(parameters name: (identifier) @local.parameter)
(variable_declaration (assignment_statement (variable_list name: (identifier) @local.definition)))
(variable_declaration (variable_list name: (identifier) @local.definition))
(for_generic_clause (variable_list name: (identifier) @local.definition))
(for_numeric_clause name: (identifier) @local.definition)

; `local l = List.new()` is a List (a class-like table's constructor).
((variable_declaration (assignment_statement
   (variable_list . name: (identifier) @local.definition .)
   (expression_list . value: (function_call name: (dot_index_expression) @local.type) .)))
 (#match? @local.type "[.:]new$"))
