; TypeScript references. @reference.<role> marks a used name; @qualified marks a member
; access or qualified type that ends with the used name (its text before the name is the
; qualifier, e.g. `this`, `ns`, `A.B`); @ignore marks identifiers that are not uses.
(member_expression property: [(property_identifier) (private_property_identifier)]) @qualified
(nested_type_identifier name: (type_identifier)) @qualified
; Doc comments: the manifest's `doc_link` finds `{@link Name}` in them (tsc counts those).
(comment) @doc

; include: _ecma/references-calls

(type_identifier) @reference.type
(extends_clause value: (identifier) @reference.type)
(extends_clause value: (member_expression property: (property_identifier) @reference.type))
; `typeof x` reads the value x (a read, by the patterns below), not a type.

; include: _ecma/references-writes-reads-imports
; Keys destructured from a value read its members (`const { state } = this` reads
; this.state; tsc lists them): the value is their receiver (syntax/destructured.py).
(variable_declarator
  name: (object_pattern [(shorthand_property_identifier_pattern) @destructured
                         (pair_pattern key: (property_identifier) @destructured)
                         (object_assignment_pattern left: (shorthand_property_identifier_pattern) @destructured)])
  value: [(this) (identifier) (member_expression) (new_expression)])
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
