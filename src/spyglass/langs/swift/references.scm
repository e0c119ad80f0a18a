; Swift references. `a.b` is qualified (a navigation expression); `T(..)` calls T.
(navigation_expression suffix: (navigation_suffix suffix: (simple_identifier))) @qualified

(call_expression . (simple_identifier) @reference.call)
(call_expression . (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @reference.call)))
; The grammar reads `a() + b.c()` as `(a() + b.c)()`: the operand on the right of a binary
; expression that is called is the callee.
(call_expression . (_ rhs: [(navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @reference.call))
                            (simple_identifier) @reference.call]) . (call_suffix))

(assignment target: (directly_assignable_expression (simple_identifier) @reference.write))
(assignment target: (directly_assignable_expression (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @reference.write))))

(type_identifier) @reference.type
(simple_identifier) @reference.read
(navigation_suffix suffix: (simple_identifier) @reference.read)

(import_declaration (identifier (simple_identifier) @ignore))
(value_argument_label (simple_identifier) @ignore)
(parameter external_name: (simple_identifier) @ignore)
(parameter name: (simple_identifier) @ignore)
(lambda_parameter (simple_identifier) @ignore)
(pattern bound_identifier: (simple_identifier) @ignore)
(attribute (user_type (type_identifier) @ignore))
