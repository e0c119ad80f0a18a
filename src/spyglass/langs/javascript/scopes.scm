; JavaScript scopes: functions, methods and arrows open a scope (block scoping of let and
; const is approximated by the enclosing function). Class bodies and object literals are
; class scopes: their members are reached through `this` or the object, never bare.
; `this` is the manifest's self name.
[(function_declaration) (generator_function_declaration) (function_expression)
 (generator_function) (arrow_function) (method_definition)] @scope
(class_declaration) @scope
(class) @scope
(class_body) @scope.class
(object) @scope.class

; Parameters, including destructuring patterns and defaults.
(formal_parameters (identifier) @local.definition)
(formal_parameters (assignment_pattern left: (identifier) @local.definition))
(arrow_function parameter: (identifier) @local.definition)
(object_pattern (shorthand_property_identifier_pattern) @local.definition)
(object_pattern (object_assignment_pattern left: (shorthand_property_identifier_pattern) @local.definition))
(object_pattern (pair_pattern value: (identifier) @local.definition))
(object_pattern (pair_pattern value: (assignment_pattern left: (identifier) @local.definition)))
(array_pattern (identifier) @local.definition)
(array_pattern (assignment_pattern left: (identifier) @local.definition))
; include: _ecma/scopes-variables
