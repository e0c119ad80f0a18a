; C scopes: a function opens a scope (block scoping is approximated by the function);
; struct and union bodies are class scopes, so a field's name is never bound bare. An
; enum is not one: its constants are visible in the enclosing scope.
(function_definition) @scope
(struct_specifier body: (field_declaration_list)) @scope.class
(union_specifier body: (field_declaration_list)) @scope.class

; Parameters (of a function definition; a prototype's bind nothing) and locals
; (declarations in a body, `for` initialisers).
(function_definition declarator: [
  (function_declarator parameters: (parameter_list (parameter_declaration declarator: [(identifier) @local.definition
    (pointer_declarator declarator: (identifier) @local.definition)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
    (array_declarator declarator: (identifier) @local.definition)])))
  (pointer_declarator declarator: (function_declarator parameters: (parameter_list (parameter_declaration declarator: [(identifier) @local.definition
    (pointer_declarator declarator: (identifier) @local.definition)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
    (array_declarator declarator: (identifier) @local.definition)]))))])
([(compound_statement (declaration declarator: [(identifier) @local.definition
   (init_declarator declarator: [(identifier) @local.definition
                                 (pointer_declarator declarator: (identifier) @local.definition)
                                 (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
                                 (array_declarator declarator: (identifier) @local.definition)])
   (pointer_declarator declarator: (identifier) @local.definition)
   (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
   (array_declarator declarator: (identifier) @local.definition)]) @_decl)
  (for_statement initializer: (declaration declarator: [(identifier) @local.definition
   (init_declarator declarator: [(identifier) @local.definition
                                 (pointer_declarator declarator: (identifier) @local.definition)])]) @_decl)]
 (#not-match? @_decl "^extern\\s"))

; Typed locals (@local.type): `struct file *f` and `point_t p` give `f->f_op` the type
; `file.f_op`, `p.x` the type `point_t.x` (the typedef's alias carries it to the struct).
(function_definition declarator: [
  (function_declarator parameters: (parameter_list (parameter_declaration
    type: [(type_identifier) @local.type (struct_specifier name: (type_identifier) @local.type)
           (union_specifier name: (type_identifier) @local.type)]
    declarator: [(identifier) @local.definition
                 (pointer_declarator declarator: (identifier) @local.definition)
                 (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
                 (array_declarator declarator: (identifier) @local.definition)])))
  (pointer_declarator declarator: (function_declarator parameters: (parameter_list (parameter_declaration
    type: [(type_identifier) @local.type (struct_specifier name: (type_identifier) @local.type)
           (union_specifier name: (type_identifier) @local.type)]
    declarator: [(identifier) @local.definition
                 (pointer_declarator declarator: (identifier) @local.definition)
                 (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
                 (array_declarator declarator: (identifier) @local.definition)]))))])
(compound_statement (declaration
  type: [(type_identifier) @local.type (struct_specifier name: (type_identifier) @local.type)
         (union_specifier name: (type_identifier) @local.type)]
  declarator: [(identifier) @local.definition
               (init_declarator declarator: [(identifier) @local.definition
                                             (pointer_declarator declarator: (identifier) @local.definition)
                                             (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
                                             (array_declarator declarator: (identifier) @local.definition)])
               (pointer_declarator declarator: (identifier) @local.definition)
               (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
               (array_declarator declarator: (identifier) @local.definition)]))
