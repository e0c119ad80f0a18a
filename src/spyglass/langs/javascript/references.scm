; JavaScript references. @reference.<role> marks a used name; @qualified marks a member
; access that ends with the used name (its text before the name is the qualifier, e.g.
; `this`, `ns`, `a.b`); @ignore marks identifiers that are not uses of a symbol.
(member_expression property: [(property_identifier) (private_property_identifier)]) @qualified

(call_expression function: (identifier) @reference.call)
(call_expression function: (member_expression property: [(property_identifier) (private_property_identifier)] @reference.call))
(new_expression constructor: (identifier) @reference.call)
(new_expression constructor: (member_expression property: (property_identifier) @reference.call))
(decorator (identifier) @reference.call)
(decorator (member_expression property: (property_identifier) @reference.call))

; JSX: a capitalised element name renders a component (a call); lowercase names are HTML.
(jsx_opening_element name: (identifier) @reference.call)
(jsx_self_closing_element name: (identifier) @reference.call)
(jsx_opening_element name: (member_expression property: (property_identifier) @reference.call))
(jsx_self_closing_element name: (member_expression property: (property_identifier) @reference.call))

(class_heritage (identifier) @reference.type)
(class_heritage (member_expression property: (property_identifier) @reference.type))

(assignment_expression left: (identifier) @reference.write)
(assignment_expression left: (member_expression property: [(property_identifier) (private_property_identifier)] @reference.write))
(augmented_assignment_expression left: (identifier) @reference.write)
(augmented_assignment_expression left: (member_expression property: [(property_identifier) (private_property_identifier)] @reference.write))
(update_expression argument: (identifier) @reference.write)
(update_expression argument: (member_expression property: [(property_identifier) (private_property_identifier)] @reference.write))

(identifier) @reference.read
(shorthand_property_identifier) @reference.read
(member_expression property: [(property_identifier) (private_property_identifier)] @reference.read)

; Imported names are import sites; aliases and namespace names are bindings, not uses.
(import_specifier name: (identifier) @reference.import)
(import_clause (identifier) @reference.import)
((variable_declarator
   name: (object_pattern [(shorthand_property_identifier_pattern) @reference.import
                          (pair_pattern key: (property_identifier) @reference.import)])
   value: (call_expression function: (identifier) @_require))
 (#eq? @_require "require"))
(export_statement (export_clause (export_specifier name: (identifier) @reference.import)) source: (_))
(import_specifier alias: (identifier) @ignore)
(namespace_import (identifier) @ignore)
(namespace_export (identifier) @ignore)
(export_specifier alias: (identifier) @ignore)
((jsx_opening_element name: (identifier) @ignore) (#match? @ignore "^[a-z]"))
((jsx_self_closing_element name: (identifier) @ignore) (#match? @ignore "^[a-z]"))
(jsx_closing_element name: (_) @ignore)
(jsx_closing_element name: (member_expression property: (property_identifier) @ignore))
; Binding sites of destructuring and declarations are not uses.
(variable_declarator name: (identifier) @ignore)
(pair_pattern value: (identifier) @ignore)
; A class expression's own name.
(class name: (_) @ignore)
