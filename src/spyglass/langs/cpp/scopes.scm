; C++ scopes, after the C pack's: class bodies, lambdas; reference parameters; locals of a
; qualified or template type.
(class_specifier body: (field_declaration_list)) @scope.class
(lambda_expression) @scope
(parameter_declaration declarator: (reference_declarator (identifier) @local.definition))
(parameter_declaration
  type: [(type_identifier) (qualified_identifier) (template_type)] @local.type
  declarator: [(reference_declarator (identifier) @local.definition)
               (pointer_declarator declarator: (identifier) @local.definition)
               (identifier) @local.definition])
(compound_statement (declaration
  type: [(qualified_identifier) (template_type)] @local.type
  declarator: [(identifier) @local.definition
               (init_declarator declarator: [(identifier) @local.definition
                                             (pointer_declarator declarator: (identifier) @local.definition)])]))
