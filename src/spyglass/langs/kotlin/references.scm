; Kotlin references. A navigation `a.b` ends with its name: @qualified (a call node
; spans its arguments, the navigation inside it does not).
(navigation_expression) @qualified
(user_type) @qualified

(call_expression (navigation_expression (identifier) @reference.call .))
(call_expression . (identifier) @reference.call)
; argument counts tell overloads apart (syntax/arity.py): a trailing lambda is one more
(call_expression (value_arguments) @arguments)
(call_expression (annotated_lambda) @argument)
(user_type (identifier) @reference.type)
(navigation_expression (identifier) @reference.read .)
(identifier) @reference.read
(assignment (identifier) @reference.write)
(assignment (navigation_expression (identifier) @reference.write .))
(import (qualified_identifier (identifier) @reference.import .))

; a package path is no reference; of an import's path only the imported name is
(package_header (qualified_identifier (identifier) @ignore))
(import (qualified_identifier (identifier) @ignore (identifier)))
((import (qualified_identifier (identifier) @ignore .)) @_i (#match? @_i "\\*"))
(import (identifier) @ignore)
(parameter (identifier) @ignore)
(value_argument (identifier) @ignore . (_))
(class_parameter (identifier) @ignore)
(variable_declaration (identifier) @ignore)
(type_parameter (identifier) @ignore)
(label) @ignore
