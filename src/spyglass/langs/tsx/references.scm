; TSX adds JSX to the TypeScript references (the manifest extends typescript).
; JSX: a capitalised element name renders a component (a call); lowercase names are HTML.
(jsx_opening_element name: (identifier) @reference.call)
(jsx_self_closing_element name: (identifier) @reference.call)
(jsx_opening_element name: (member_expression property: (property_identifier) @reference.call))
(jsx_self_closing_element name: (member_expression property: (property_identifier) @reference.call))
((jsx_opening_element name: (identifier) @ignore) (#match? @ignore "^[a-z]"))
((jsx_self_closing_element name: (identifier) @ignore) (#match? @ignore "^[a-z]"))
(jsx_closing_element name: (_) @ignore)
(jsx_closing_element name: (member_expression property: (property_identifier) @ignore))
