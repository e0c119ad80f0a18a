; C++ definitions, after the C pack's (namespaces, classes, methods, GoogleTest tests).
(namespace_definition name: (namespace_identifier) @name) @definition.module
(class_specifier name: (type_identifier) @name
  (base_class_clause [(type_identifier) @base (qualified_identifier) @base
                      (template_type name: (type_identifier) @base)])
  body: (field_declaration_list)) @definition.class
(class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class
(struct_specifier name: (type_identifier) @name
  (base_class_clause [(type_identifier) @base (qualified_identifier) @base])
  body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(alias_declaration name: (type_identifier) @name) @definition.type

; Methods: defined in the class body, declared there, or defined out of line (`A::f`).
(function_definition declarator: [
  (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
  (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
  (reference_declarator (function_declarator declarator: (field_identifier) @name))]) @definition.func
(field_declaration declarator: [
  (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
  (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
  (reference_declarator (function_declarator declarator: (field_identifier) @name))]) @definition.method
(declaration declarator: (function_declarator declarator: (identifier) @name)
  (#has-ancestor? @name field_declaration_list)) @definition.method
(function_definition declarator: [
  (function_declarator declarator: (qualified_identifier scope: (_) @receiver name: [(identifier) (destructor_name) (operator_name)] @name))
  (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @receiver name: (identifier) @name)))
  (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @receiver name: (identifier) @name)))]) @definition.method
(field_declaration declarator: [(field_identifier) @name
  (pointer_declarator declarator: (field_identifier) @name)
  (reference_declarator (field_identifier) @name)]) @definition.field

; GoogleTest: `TEST(Suite, Name) { … }` is the test Suite.Name.
((function_definition declarator: (function_declarator declarator: (identifier) @_macro
   parameters: (parameter_list . (parameter_declaration type: (type_identifier) @receiver)
                               . (parameter_declaration type: (type_identifier) @name) .))) @definition.test
 (#match? @_macro "^(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)$"))
