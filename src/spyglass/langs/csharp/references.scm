; C# references. A member access `a.b` and a qualified name end with their name:
; @qualified (an invocation spans its arguments, the access inside it does not).
(member_access_expression) @qualified
(qualified_name) @qualified
(conditional_access_expression (member_binding_expression name: (identifier))) @qualified

(invocation_expression function: (identifier) @reference.call)
(invocation_expression function: (generic_name (identifier) @reference.call))
(invocation_expression function: (member_access_expression name: (identifier) @reference.call))
(invocation_expression function: (member_access_expression name: (generic_name (identifier) @reference.call)))
(object_creation_expression type: (identifier) @reference.call)
(object_creation_expression type: (generic_name (identifier) @reference.call))
(object_creation_expression type: (qualified_name name: (identifier) @reference.call))
(parameter type: (identifier) @reference.type)
(variable_declaration type: (identifier) @reference.type)
(base_list (identifier) @reference.type)
(method_declaration returns: (identifier) @reference.type)
(property_declaration type: (identifier) @reference.type)
(generic_name (identifier) @reference.type)
(type_argument_list (identifier) @reference.type)
(attribute name: (identifier) @reference.type)
(typeof_expression type: (identifier) @reference.type)
(cast_expression type: (identifier) @reference.type)
(member_access_expression name: (identifier) @reference.read)
(identifier) @reference.read
(assignment_expression left: (identifier) @reference.write)
(assignment_expression left: (member_access_expression name: (identifier) @reference.write))
(using_directive name: (identifier) (qualified_name name: (identifier) @reference.import))

; namespace paths are no references; of an alias `using`, the aliased type is
(namespace_declaration name: (identifier) @ignore)
(file_scoped_namespace_declaration name: (identifier) @ignore)
(qualified_name qualifier: (identifier) @ignore)
(qualified_name qualifier: (qualified_name name: (identifier) @ignore))
((using_directive (qualified_name name: (identifier) @ignore)) @_u (#not-match? @_u "="))
((using_directive (identifier) @ignore) @_u (#not-match? @_u "="))
(using_directive name: (identifier) @ignore)
(namespace_declaration name: (qualified_name name: (identifier) @ignore))
(file_scoped_namespace_declaration name: (qualified_name name: (identifier) @ignore))
(constructor_declaration name: (identifier) @ignore)
(destructor_declaration name: (identifier) @ignore)
(parameter name: (identifier) @ignore)
(variable_declarator name: (identifier) @ignore)
(foreach_statement left: (identifier) @ignore)
(catch_declaration name: (identifier) @ignore)
(declaration_expression name: (identifier) @ignore)
(declaration_pattern name: (identifier) @ignore)
(type_parameter (identifier) @ignore)
(labeled_statement (identifier) @ignore)
