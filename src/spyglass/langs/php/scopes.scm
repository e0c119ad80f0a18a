; PHP scopes: functions, methods and closures; class-likes are class scopes. Variables
; carry `$`, so they never shadow a function or class name; only typed ones are bound.
(function_definition) @scope
(method_declaration) @scope
(anonymous_function) @scope
(arrow_function) @scope
(class_declaration) @scope.class
(interface_declaration) @scope.class
(trait_declaration) @scope.class
(enum_declaration) @scope.class

(simple_parameter name: (variable_name) @local.definition)
(assignment_expression left: (variable_name) @local.definition)
; Typed locals: a declared parameter type, or the class a `new` builds (`$c = new C()`);
; a typed property (`private Circle $c;`, a promoted constructor parameter) types
; `$this->c`.
(simple_parameter type: (named_type) @local.type name: (variable_name) @local.definition)
(assignment_expression left: (variable_name) @local.definition
  right: (object_creation_expression [(name) (qualified_name)] @local.type))
(assignment_expression left: (variable_name) @local.definition
  right: (scoped_call_expression) @local.type)
(property_declaration type: (named_type) @local.type (property_element name: (variable_name (name) @local.member)))
(property_promotion_parameter type: (named_type) @local.type name: (variable_name (name) @local.member))
