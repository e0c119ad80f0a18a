; Java scopes: methods, constructors, lambdas and blocks of statements; a type body is a
; class scope (its members are visible bare from its methods).
(method_declaration) @scope
(constructor_declaration) @scope
(lambda_expression) @scope
(compact_constructor_declaration) @scope
(class_declaration) @scope.class
(interface_declaration) @scope.class
(enum_declaration) @scope.class
(record_declaration) @scope.class
(annotation_type_declaration) @scope.class
(object_creation_expression (class_body) @scope.class)

; `var x = new T()` first: at one binding site the earliest pattern wins
(local_variable_declaration type: (type_identifier) @_var
  declarator: (variable_declarator name: (identifier) @local.definition
    value: (object_creation_expression type: (_) @local.type))
  (#eq? @_var "var"))
(formal_parameter type: (_) @local.type name: (identifier) @local.definition)
(spread_parameter (_) @local.type (variable_declarator name: (identifier) @local.definition))
(lambda_expression parameters: (identifier) @local.definition)
(inferred_parameters (identifier) @local.definition)
(catch_formal_parameter (catch_type (_) @local.type) name: (identifier) @local.definition)
(enhanced_for_statement type: (_) @local.type name: (identifier) @local.definition)
(resource type: (_) @local.type name: (identifier) @local.definition)
(local_variable_declaration type: (_) @local.type
  declarator: (variable_declarator name: (identifier) @local.definition))
(local_variable_declaration
  declarator: (variable_declarator name: (identifier) @local.definition))
(instanceof_expression right: (_) @local.type name: (identifier) @local.definition)
(type_pattern (_) @local.type (identifier) @local.definition)
