; JavaScript references. @reference.<role> marks a used name; @qualified marks a member
; access that ends with the used name (its text before the name is the qualifier, e.g.
; `this`, `ns`, `a.b`); @ignore marks identifiers that are not uses of a symbol.
(member_expression property: [(property_identifier) (private_property_identifier)]) @qualified

; include: _ecma/references-calls

; JSX: a capitalised element name renders a component (a call); lowercase names are HTML.
(jsx_opening_element name: (identifier) @reference.call)
(jsx_self_closing_element name: (identifier) @reference.call)
(jsx_opening_element name: (member_expression property: (property_identifier) @reference.call))
(jsx_self_closing_element name: (member_expression property: (property_identifier) @reference.call))

(class_heritage (identifier) @reference.type)
(class_heritage (member_expression property: (property_identifier) @reference.type))

; include: _ecma/references-writes-reads-imports
((jsx_opening_element name: (identifier) @ignore) (#match? @ignore "^[a-z]"))
((jsx_self_closing_element name: (identifier) @ignore) (#match? @ignore "^[a-z]"))
(jsx_closing_element name: (_) @ignore)
(jsx_closing_element name: (member_expression property: (property_identifier) @ignore))
; Binding sites of destructuring and declarations are not uses.
(variable_declarator name: (identifier) @ignore)
(pair_pattern value: (identifier) @ignore)
; A class expression's own name.
(class name: (_) @ignore)
