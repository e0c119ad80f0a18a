; Ruby references. `A::B` paths are qualified; a call's receiver is its @receiver (the
; call node spans the arguments). A bare name that is not a local is a method call on
; self (Ruby's rule), so bare identifiers are calls.
(scope_resolution name: (constant)) @qualified

(call receiver: (_) @receiver method: (identifier) @reference.call)
(call receiver: (_) @receiver method: (constant) @reference.call)
(call !receiver method: (identifier) @reference.call)
(identifier) @reference.call

(assignment left: (call receiver: (_) @receiver method: (identifier) @reference.write))
(operator_assignment left: (call receiver: (_) @receiver method: (identifier) @reference.write))

(superclass (constant) @reference.type)
(superclass (scope_resolution name: (constant) @reference.type))
(constant) @reference.read
(scope_resolution name: (constant) @reference.read)

; Parameters and the names a block or rescue binds are never uses.
(method_parameters (identifier) @ignore)
(block_parameters (identifier) @ignore)
(lambda_parameters (identifier) @ignore)
(optional_parameter name: (identifier) @ignore)
(keyword_parameter name: (identifier) @ignore)
(splat_parameter name: (identifier) @ignore)
(hash_splat_parameter name: (identifier) @ignore)
(block_parameter name: (identifier) @ignore)
(exception_variable (identifier) @ignore)
(assignment left: (identifier) @ignore)
(operator_assignment left: (identifier) @ignore)
