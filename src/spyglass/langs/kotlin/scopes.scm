; Kotlin scopes: functions, lambdas, accessors; a type body is a class scope (its members
; are visible bare from its functions).
(function_declaration) @scope
(lambda_literal) @scope
(anonymous_function) @scope
(getter) @scope
(setter) @scope
(class_declaration) @scope.class
(object_declaration) @scope.class
(companion_object) @scope.class
(object_literal) @scope.class

(parameter (identifier) @local.definition [(user_type) (nullable_type)] @local.type)
(parameter (identifier) @local.definition)
(lambda_parameters (variable_declaration (identifier) @local.definition))
(for_statement (variable_declaration (identifier) @local.definition))
(catch_block (identifier) @local.definition)
(property_declaration (variable_declaration (identifier) @local.definition
  [(user_type) (nullable_type)] @local.type))
(property_declaration (variable_declaration (identifier) @local.definition)
  (call_expression . (identifier) @local.type))
(property_declaration (variable_declaration (identifier) @local.definition))
(property_declaration (multi_variable_declaration (variable_declaration (identifier) @local.definition)))
