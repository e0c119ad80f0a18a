; Java scopes (throwaway pack): methods and lambdas; classes are class scopes (their
; members are visible bare from their methods).
(method_declaration) @scope
(constructor_declaration) @scope
(lambda_expression) @scope
(class_declaration) @scope.class
(formal_parameter name: (identifier) @local.definition)
(formal_parameter type: (_) @local.type name: (identifier) @local.definition)
(local_variable_declaration declarator: (variable_declarator name: (identifier) @local.definition))
(local_variable_declaration type: (_) @local.type declarator: (variable_declarator name: (identifier) @local.definition))
(local_variable_declaration declarator: (variable_declarator name: (identifier) @local.definition value: (object_creation_expression type: (_) @local.type)))
