; Shared by the javascript and typescript packs (each includes it where it stands).
; Writes, reads, import sites, and bindings that are not uses.
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
