; References: @reference.<role> marks a used name. @qualified marks a member access that
; ends with the used name; the text before the name is its qualifier (receiver).
; @ignore marks identifiers that are not uses (call keywords, import paths, aliases).
(attribute attribute: (identifier)) @qualified
(call function: (identifier) @reference.call)
(call function: (attribute attribute: (identifier) @reference.call))
(decorator (identifier) @reference.call)
(decorator (attribute attribute: (identifier) @reference.call))
(decorator (call function: (attribute attribute: (identifier) @reference.call)))
(type (identifier) @reference.type)
(type (attribute attribute: (identifier) @reference.type))
(type (generic_type (identifier) @reference.type))
(generic_type (type_parameter (type (identifier) @reference.type)))
(class_definition superclasses: (argument_list (identifier) @reference.type))
(class_definition superclasses: (argument_list (attribute attribute: (identifier) @reference.type)))
(assignment left: (identifier) @reference.write)
(augmented_assignment left: (identifier) @reference.write)
(assignment left: (attribute attribute: (identifier) @reference.write))
(augmented_assignment left: (attribute attribute: (identifier) @reference.write))
(identifier) @reference.read
(keyword_argument name: (identifier) @ignore)
(import_from_statement module_name: (dotted_name (identifier) @ignore))
(relative_import (dotted_name (identifier) @ignore))
(future_import_statement (dotted_name (identifier) @ignore))
(import_statement name: (dotted_name (identifier) @ignore))
(import_statement name: (aliased_import (dotted_name (identifier) @ignore)))
(aliased_import alias: (identifier) @ignore)
(import_from_statement name: (dotted_name (identifier) @reference.import))
(import_from_statement name: (aliased_import name: (dotted_name (identifier) @reference.import)))
; Names listed in __all__ are uses of the module-level names they export.
(module (expression_statement (assignment
  left: (identifier) @_all
  right: [(list (string (string_content) @reference.ref)) (tuple (string (string_content) @reference.ref))])
  (#eq? @_all "__all__")))
