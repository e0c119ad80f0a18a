; C# scopes: methods, constructors, accessors, local functions, lambdas; a type body is
; a class scope (its members are visible bare from its methods).
(method_declaration) @scope
(constructor_declaration) @scope
(destructor_declaration) @scope
(accessor_declaration) @scope
(local_function_statement) @scope
(lambda_expression) @scope
(anonymous_method_expression) @scope
(class_declaration) @scope.class
(struct_declaration) @scope.class
(interface_declaration) @scope.class
(record_declaration) @scope.class
(enum_declaration) @scope.class

; `var x = new T()` first: at one binding site the earliest pattern wins
(local_declaration_statement (variable_declaration type: (implicit_type)
  (variable_declarator name: (identifier) @local.definition
    (object_creation_expression type: (_) @local.type))))
(parameter type: (_) @local.type name: (identifier) @local.definition)
(parameter name: (identifier) @local.definition)
(lambda_expression parameters: (identifier) @local.definition)
(local_declaration_statement (variable_declaration type: (_) @local.type
  (variable_declarator name: (identifier) @local.definition)))
(local_declaration_statement (variable_declaration
  (variable_declarator name: (identifier) @local.definition)))
(using_statement (variable_declaration type: (_) @local.type
  (variable_declarator name: (identifier) @local.definition)))
(foreach_statement type: (_) @local.type left: (identifier) @local.definition)
(foreach_statement left: (identifier) @local.definition)
(catch_declaration type: (_) @local.type name: (identifier) @local.definition)
(declaration_expression type: (_) @local.type name: (identifier) @local.definition)
(declaration_pattern type: (_) @local.type name: (identifier) @local.definition)
