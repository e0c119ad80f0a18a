; Shared by the javascript and typescript packs (each includes it where it stands).
; Rest parameters, variables, loop and catch variables, local functions.
(rest_pattern (identifier) @local.definition)

; Variables, loop variables, catch parameters, local functions and classes.
(variable_declarator name: (identifier) @local.definition)
(for_in_statement left: (identifier) @local.definition)
(catch_clause parameter: (identifier) @local.definition)
; `using x = …` / `await using x = …` (explicit resource management) parse as assignments.
((assignment_expression left: (identifier) @local.definition) @_using (#match? @_using "^using\\s"))
(function_expression name: (identifier) @local.definition)
