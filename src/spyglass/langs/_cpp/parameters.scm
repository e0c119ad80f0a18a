; Shared by the C++ scope patterns of function definitions and lambdas: not a pattern by
; itself but the alternatives inside their `(parameter_list [ … ])`, a parameter however
; declared (a pointer, a reference, a default value `size_t n = 0`, a pack `Args &&...args`).
    (parameter_declaration declarator: [(identifier) @local.definition
     (pointer_declarator declarator: (identifier) @local.definition)
     (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
     (reference_declarator (identifier) @local.definition)])
    (optional_parameter_declaration declarator: [(identifier) @local.definition
     (pointer_declarator declarator: (identifier) @local.definition)
     (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
     (reference_declarator (identifier) @local.definition)])
    (variadic_parameter_declaration declarator: [(reference_declarator (variadic_declarator (identifier) @local.definition))
     (variadic_declarator (identifier) @local.definition)])
