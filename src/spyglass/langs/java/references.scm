; Java references. `a.b(c)` is one node spanning its arguments: its receiver is marked
; @receiver; a field access `a.b` and a scoped type `a.B` end with their name: @qualified.
(method_invocation object: (_) @receiver)
(method_reference . (_) @receiver)
(field_access field: (identifier)) @qualified
(scoped_type_identifier (type_identifier)) @qualified
(scoped_identifier name: (identifier)) @qualified

(method_invocation name: (identifier) @reference.call)
; argument counts tell overloads apart (syntax/arity.py)
(method_invocation arguments: (argument_list) @arguments)
(object_creation_expression arguments: (argument_list) @arguments)
(method_reference (identifier) @reference.call .)
(object_creation_expression type: (type_identifier) @reference.call)
(object_creation_expression type: (generic_type (type_identifier) @reference.call))
(type_identifier) @reference.type
(field_access field: (identifier) @reference.read)
(identifier) @reference.read
(assignment_expression left: (identifier) @reference.write)
(assignment_expression left: (field_access field: (identifier) @reference.write))
(import_declaration (scoped_identifier name: (identifier) @reference.import) .)
(marker_annotation name: (identifier) @reference.type)
(annotation name: (identifier) @reference.type)

; a package path is no reference; of an import's path only the imported name is
; (scoped identifiers occur in package and import lines and qualified annotations only)
(scoped_identifier scope: (identifier) @ignore)
(scoped_identifier scope: (scoped_identifier scope: (scoped_identifier name: (identifier) @ignore)))
; the segment before the last: a package's, but the class's of `import static a.b.C.m`
(package_declaration (scoped_identifier scope: (scoped_identifier name: (identifier) @ignore)))
; and the outer class's of a nested class's import, `import a.b.Outer.Inner` (a capitalised
; segment: Java's naming convention tells a type from a package)
((import_declaration (scoped_identifier scope: (scoped_identifier name: (identifier) @ignore))) @_i
  (#not-match? @_i "^import\\s+static")
  (#not-match? @ignore "^[A-Z]"))
((import_declaration (scoped_identifier scope: (scoped_identifier name: (identifier) @reference.import))) @_i
  (#not-match? @_i "^import\\s+static")
  (#match? @reference.import "^[A-Z]"))
((import_declaration (scoped_identifier scope: (scoped_identifier name: (identifier) @reference.import))) @_i
  (#match? @_i "^import\\s+static"))
(marker_annotation name: (scoped_identifier scope: (scoped_identifier name: (identifier) @ignore)))
(annotation name: (scoped_identifier scope: (scoped_identifier name: (identifier) @ignore)))
(module_declaration (scoped_identifier scope: (scoped_identifier name: (identifier) @ignore)))
(module_body (_ (scoped_identifier scope: (scoped_identifier name: (identifier) @ignore))))
(package_declaration (identifier) @ignore)
(package_declaration (scoped_identifier name: (identifier) @ignore))
(import_declaration (identifier) @ignore)
; `import a.b.*` names a package; `import static a.b.C.*` names the type C
((import_declaration (scoped_identifier name: (identifier) @ignore) (asterisk)) @_i
  (#not-match? @_i "^import\\s+static"))
(import_declaration (scoped_identifier name: (identifier) @reference.type) (asterisk))
(constructor_declaration name: (identifier) @ignore)
(compact_constructor_declaration name: (identifier) @ignore)
(formal_parameter name: (identifier) @ignore)
(catch_formal_parameter name: (identifier) @ignore)
(variable_declarator name: (identifier) @ignore)
(enhanced_for_statement name: (identifier) @ignore)
(resource name: (identifier) @ignore)
(inferred_parameters (identifier) @ignore)
(lambda_expression parameters: (identifier) @ignore)
(labeled_statement (identifier) @ignore)
(break_statement (identifier) @ignore)
(continue_statement (identifier) @ignore)
(element_value_pair key: (identifier) @ignore)
(type_parameter (type_identifier) @ignore)
