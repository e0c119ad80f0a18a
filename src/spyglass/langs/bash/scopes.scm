; Bash scopes: a function body; `local` (and declare/typeset inside a function) binds a
; name in it.
(function_definition) @scope
(function_definition body: (compound_statement (declaration_command (variable_assignment name: (variable_name) @local.definition))))
(function_definition body: (compound_statement (declaration_command (variable_name) @local.definition)))
(for_statement variable: (variable_name) @local.definition)
