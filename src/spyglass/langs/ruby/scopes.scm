; Ruby scopes: methods, blocks and lambdas; classes and modules are class scopes, whose
; methods are callable bare from their other methods (class_scope_encloses).
(method) @scope
(singleton_method) @scope
(block) @scope
(do_block) @scope
(lambda) @scope
(class) @scope.class
(module) @scope.class
(singleton_class) @scope.class

(method_parameters (identifier) @local.parameter)
(method_parameters (optional_parameter name: (identifier) @local.parameter))
(method_parameters (keyword_parameter name: (identifier) @local.parameter))
(method_parameters (splat_parameter name: (identifier) @local.parameter))
(method_parameters (hash_splat_parameter name: (identifier) @local.parameter))
(method_parameters (block_parameter name: (identifier) @local.parameter))
(block_parameters (identifier) @local.parameter)
(lambda_parameters (identifier) @local.parameter)
(assignment left: (identifier) @local.definition)
(operator_assignment left: (identifier) @local.definition)
(left_assignment_list (identifier) @local.definition)
(exception_variable (identifier) @local.definition)
(for pattern: (identifier) @local.definition)

; Typed locals: `x = Circle.new(..)` has the class; `x = Circle.build(..)` the callee.
((assignment left: (identifier) @local.definition
   right: (call receiver: [(constant) (scope_resolution)] @local.type method: (identifier) @_new))
 (#eq? @_new "new"))
