; Rust scopes (throwaway pack): functions and closures; `impl` bodies are class scopes.
(function_item) @scope
(closure_expression) @scope
(impl_item) @scope.class
(parameter pattern: (identifier) @local.definition)
(let_declaration pattern: (identifier) @local.definition)
; A `let` with a declared type, or set from a call (`Circle::new(..)`: the callee's result).
(let_declaration pattern: (identifier) @local.definition type: (_) @local.type)
(let_declaration pattern: (identifier) @local.definition value: (call_expression function: (_) @local.type))
