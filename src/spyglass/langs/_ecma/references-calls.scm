; Shared by the javascript and typescript packs (each includes it where it stands).
; Calls and `new` expressions.
(call_expression function: (identifier) @reference.call)
(call_expression function: (member_expression property: [(property_identifier) (private_property_identifier)] @reference.call))
(new_expression constructor: (identifier) @reference.call)
(new_expression constructor: (member_expression property: (property_identifier) @reference.call))
(decorator (identifier) @reference.call)
(decorator (member_expression property: (property_identifier) @reference.call))
