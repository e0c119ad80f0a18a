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
; A class named in a string (a forward reference) where a type is written: an annotation
; (`x: "URL"`, `Optional["URL"]`), a subscript of typing's forms (`Union["URL", str]` as a
; module-level type alias's value; `typing.List["URL"]` in an annotation), a module-level
; TypeVar's bound, cast's type. One name only ("URL | None" is not). The subscript and
; TypeVar patterns are held to module-level assignments: every `d["key"]` and call with a
; keyword string elsewhere would be a match to test (Django extraction +3 % unrestricted).
((type (string (string_content) @reference.type))
 (#match? @reference.type "^[A-Za-z_][A-Za-z0-9_]*$"))
((type (subscript subscript: (string (string_content) @reference.type)))
 (#match? @reference.type "^[A-Za-z_][A-Za-z0-9_]*$"))
((module (expression_statement (assignment right: (subscript value: [(identifier) (attribute)] @_form subscript: (string (string_content) @reference.type)))))
 (#match? @_form "(^|\\.)(Union|Optional|Type|type|ClassVar|Final|List|Dict|Set|FrozenSet|Tuple|Sequence|Mapping|MutableMapping|Iterable|Iterator|Generator|Awaitable|list|dict|set|frozenset|tuple)$")
 (#match? @reference.type "^[A-Za-z_][A-Za-z0-9_]*$"))
((module (expression_statement (assignment right: (call function: [(identifier) (attribute)] @_tv
   arguments: (argument_list (keyword_argument name: (identifier) @_kw
                                               value: (string (string_content) @reference.type)))))))
 (#match? @_tv "(^|\\.)TypeVar$") (#eq? @_kw "bound")
 (#match? @reference.type "^[A-Za-z_][A-Za-z0-9_]*$"))
((call function: [(identifier) (attribute)] @_cast arguments: (argument_list . (string (string_content) @reference.type)))
 (#match? @_cast "(^|\\.)cast$") (#match? @reference.type "^[A-Za-z_][A-Za-z0-9_]*$"))
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
