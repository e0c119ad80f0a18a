; C++ references, after the C pack's: `a::b::c` is qualified by `a::b`, calls through
; qualified names and templates, `this->x`.
(qualified_identifier name: (_)) @qualified
; Argument counts tell overloads apart (manifest [arity]).
(call_expression arguments: (argument_list) @arguments)
(new_expression arguments: (argument_list) @arguments)
(call_expression function: (qualified_identifier name: (identifier) @reference.call))
(call_expression function: (qualified_identifier name: (qualified_identifier name: (identifier) @reference.call)))
(call_expression function: (template_function name: (identifier) @reference.call))
(call_expression function: (field_expression field: (template_method name: (field_identifier) @reference.call)))
(new_expression type: (type_identifier) @reference.call)
(parameter_declaration declarator: (reference_declarator (identifier) @ignore))
(field_initializer (field_identifier) @reference.write)
