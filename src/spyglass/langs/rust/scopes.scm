; Rust scopes: functions, closures and inline modules open a scope (block scoping is
; approximated by the function); `impl` and `trait` bodies are class scopes (their items
; are reached as `Self::x` / `self.x`, never bare).
(function_item) @scope
(closure_expression) @scope
(mod_item body: (declaration_list)) @scope
(impl_item) @scope.class
(trait_item) @scope.class

(parameter pattern: (identifier) @local.definition)
(parameter pattern: (mut_pattern (identifier) @local.definition))
(let_declaration pattern: (identifier) @local.definition)
(let_declaration pattern: (mut_pattern (identifier) @local.definition))
(let_declaration pattern: (tuple_pattern (identifier) @local.definition))
(let_condition pattern: (tuple_struct_pattern (identifier) @local.definition))
(tuple_struct_pattern (identifier) @local.definition)
(struct_pattern (field_pattern name: (shorthand_field_identifier) @local.definition))
(match_pattern (identifier) @local.definition)
(for_expression pattern: (identifier) @local.definition)
(for_expression pattern: (tuple_pattern (identifier) @local.definition))
(closure_parameters (identifier) @local.definition)
(closure_parameters (parameter pattern: (identifier) @local.definition))
(type_parameters (type_parameter name: (type_identifier) @local.definition))

; Typed locals: a declared type (`let c: Circle`, `c: &Circle`), a struct literal
; (`Circle { .. }`) or a call (`Circle::new(..)`: the callee's result type, its alias).
(parameter pattern: (identifier) @local.definition type: (_) @local.type)
(let_declaration pattern: (identifier) @local.definition type: (_) @local.type)
(let_declaration pattern: (mut_pattern (identifier) @local.definition) type: (_) @local.type)
(let_declaration pattern: (identifier) @local.definition value: (struct_expression name: (_) @local.type))
(let_declaration pattern: (mut_pattern (identifier) @local.definition) value: (struct_expression name: (_) @local.type))
(let_declaration pattern: (identifier) @local.definition value: (call_expression function: [(identifier) (scoped_identifier)] @local.type))
(let_declaration pattern: (mut_pattern (identifier) @local.definition) value: (call_expression function: [(identifier) (scoped_identifier)] @local.type))
