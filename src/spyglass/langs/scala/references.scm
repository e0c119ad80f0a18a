; Scala references. A selection `a.b` ends with its name: @qualified (a call node spans
; its arguments, the selection inside it does not).
(field_expression) @qualified
(stable_type_identifier) @qualified
(stable_identifier) @qualified

(call_expression function: (identifier) @reference.call)
(call_expression function: (field_expression field: (identifier) @reference.call))
; with type arguments: `AsyncParser[J](mode)`, `ChannelParser.fromFile[J](f)`
(call_expression function: (generic_function function: (identifier) @reference.call))
(call_expression function: (generic_function
  function: (field_expression field: (identifier) @reference.call)))
; argument counts tell overloads apart (syntax/arity.py): each argument list, a block one
(call_expression arguments: (arguments) @arguments)
(call_expression arguments: (block) @argument)
(instance_expression . (type_identifier) @reference.call)
(instance_expression . (generic_type type: (type_identifier) @reference.call))
(type_identifier) @reference.type
(field_expression field: (identifier) @reference.read)
(identifier) @reference.read
(assignment_expression left: (identifier) @reference.write)
(assignment_expression left: (field_expression field: (identifier) @reference.write))
(import_declaration (identifier) @reference.import .)
(namespace_selectors (identifier) @reference.import)
(arrow_renamed_identifier name: (identifier) @reference.import)

; a package path is no reference; of an import's path only the imported names are
(package_identifier (identifier) @ignore)
(import_declaration (identifier) @ignore . (identifier))
(import_declaration (identifier) @ignore . (namespace_selectors))
(import_declaration (identifier) @ignore . (namespace_wildcard))
(arrow_renamed_identifier alias: (identifier) @ignore)
(parameter name: (identifier) @ignore)
(class_parameter name: (identifier) @ignore)
(binding name: (identifier) @ignore)
(val_definition pattern: (identifier) @ignore)
(var_definition pattern: (identifier) @ignore)
(enumerator (identifier) @ignore)
(typed_pattern pattern: (identifier) @ignore)
(type_parameters (identifier) @ignore)
