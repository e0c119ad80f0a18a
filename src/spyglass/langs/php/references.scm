; PHP references. Member and static accesses take their qualifier from @receiver (the
; object, or the class of `A::m()`), written with `.` for `->`, `::` and `\`.
(qualified_name prefix: (namespace_name) @receiver (name))

(function_call_expression function: (name) @reference.call)
(function_call_expression function: (qualified_name (name) @reference.call))
(member_call_expression object: (_) @receiver name: (name) @reference.call)
(nullsafe_member_call_expression object: (_) @receiver name: (name) @reference.call)
(scoped_call_expression scope: (_) @receiver name: (name) @reference.call)
(object_creation_expression [(name) @reference.call (qualified_name (name) @reference.call)])

(assignment_expression left: (member_access_expression object: (_) @receiver name: (name) @reference.write))
(assignment_expression left: (scoped_property_access_expression scope: (_) @receiver name: (variable_name) @reference.write))
(member_access_expression object: (_) @receiver name: (name) @reference.read)
(nullsafe_member_access_expression object: (_) @receiver name: (name) @reference.read)
; A static property's use is its `$name` (the resolver drops the `$`).
(scoped_property_access_expression scope: (_) @receiver name: (variable_name) @reference.read)
(class_constant_access_expression . (_) @receiver (name) @reference.read .)

(named_type [(name) @reference.type (qualified_name (name) @reference.type)])
(base_clause [(name) @reference.type (qualified_name (name) @reference.type)])
(class_interface_clause [(name) @reference.type (qualified_name (name) @reference.type)])
(use_declaration [(name) @reference.type (qualified_name (name) @reference.type)])
(binary_expression operator: "instanceof" right: [(name) @reference.type (qualified_name (name) @reference.type)])
(scoped_call_expression scope: [(name) @reference.read (qualified_name (name) @reference.read)])
(class_constant_access_expression . [(name) @reference.read (qualified_name (name) @reference.read)])
(scoped_property_access_expression scope: [(name) @reference.read (qualified_name (name) @reference.read)])

(namespace_use_clause (qualified_name (name) @reference.import))
(namespace_use_group (namespace_use_clause . (name) @reference.import))

((name) @ignore (#eq? @ignore "class"))
