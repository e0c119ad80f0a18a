; TypeScript references. @reference.<role> marks a used name; @qualified marks a member
; access or qualified type that ends with the used name (its text before the name is the
; qualifier, e.g. `this`, `ns`, `A.B`); @ignore marks identifiers that are not uses.
(member_expression property: [(property_identifier) (private_property_identifier)]) @qualified
(nested_type_identifier name: (type_identifier)) @qualified

(call_expression function: (identifier) @reference.call)
(call_expression function: (member_expression property: [(property_identifier) (private_property_identifier)] @reference.call))
(new_expression constructor: (identifier) @reference.call)
(new_expression constructor: (member_expression property: (property_identifier) @reference.call))
(decorator (identifier) @reference.call)
(decorator (member_expression property: (property_identifier) @reference.call))

(type_identifier) @reference.type
(extends_clause value: (identifier) @reference.type)
(extends_clause value: (member_expression property: (property_identifier) @reference.type))
; `typeof x` reads the value x (a read, by the patterns below), not a type.

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
(import_require_clause (identifier) @ignore)
; Binding sites of destructuring and declarations are not uses.
(variable_declarator name: (identifier) @ignore)
(pair_pattern value: (identifier) @ignore)
; A class expression's own name.
(class name: (_) @ignore)
; Type parameters and mapped-type keys are bindings.
(type_parameter name: (type_identifier) @ignore)
(mapped_type_clause name: (type_identifier) @ignore)
; Index-signature keys and tuple labels (`[key: string]`, `[index: number, name: T]`).
(index_signature name: (identifier) @ignore)
(required_parameter name: (identifier) @ignore)
(optional_parameter name: (identifier) @ignore)
