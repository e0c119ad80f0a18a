; Swift scopes: functions, initializers and closures; type declarations are class scopes
; whose members are visible bare from their methods (implicit `self`).
(function_declaration) @scope
(init_declaration) @scope
(lambda_literal) @scope
(class_declaration) @scope.class
(protocol_declaration) @scope.class

(parameter name: (simple_identifier) @local.parameter)
(lambda_parameter (simple_identifier) @local.parameter)
(statements (property_declaration name: (pattern bound_identifier: (simple_identifier) @local.definition)))
(for_statement item: (pattern bound_identifier: (simple_identifier) @local.definition))

; Typed locals: a declared type, a constructor call (`Square()`), a call's result
; (`Circle.make(2)`: the callee's return type); typed properties type `self.x`.
(parameter name: (simple_identifier) @local.definition (user_type) @local.type)
(statements (property_declaration name: (pattern bound_identifier: (simple_identifier) @local.definition)
  (type_annotation (user_type) @local.type)))
(statements (property_declaration name: (pattern bound_identifier: (simple_identifier) @local.definition)
  value: (call_expression . [(simple_identifier) (navigation_expression)] @local.type)))
(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @local.member)
  (type_annotation (user_type) @local.type)))
(type_parameters (type_parameter (type_identifier) @local.definition))
