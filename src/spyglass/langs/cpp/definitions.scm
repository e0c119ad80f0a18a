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
; `using X = …` at file, namespace, class or template level (in a function body it is a
; local: scopes.scm).
([(translation_unit (alias_declaration name: (type_identifier) @name) @definition.type)
  (declaration_list (alias_declaration name: (type_identifier) @name) @definition.type)
  (field_declaration_list (alias_declaration name: (type_identifier) @name) @definition.type)
  (template_declaration (alias_declaration name: (type_identifier) @name) @definition.type)
  (preproc_if (alias_declaration name: (type_identifier) @name) @definition.type)
  (preproc_ifdef (alias_declaration name: (type_identifier) @name) @definition.type)
  (preproc_else (alias_declaration name: (type_identifier) @name) @definition.type)
  (preproc_elif (alias_declaration name: (type_identifier) @name) @definition.type)])

; Methods: defined in the class body, declared there, or defined out of line (`A::f`).
(function_definition declarator: [
  (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
  (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
  (reference_declarator (function_declarator declarator: (field_identifier) @name))]) @definition.func
(field_declaration declarator: [
  (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
  (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
  (reference_declarator (function_declarator declarator: (field_identifier) @name))]) @definition.method
; A declaration without a type directly in a class body is a constructor (`Foo(int a);`),
; unless its name is all capitals: a macro invoked there (`NB_TYPE_CASTER(T, name)`). A
; template member is declared under a template_declaration. Elsewhere (a function body)
; `T x(a, b);` is a local constructed with arguments (scopes.scm), not a definition.
((field_declaration_list
   (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.method)
 (#not-match? @name "^[A-Z][A-Z0-9_]*$"))
(field_declaration_list (template_declaration
  (declaration declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (operator_name)] @name)) @definition.method))
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

; Parameter counts (manifest [arity]): a function's or method's parameter list, by its
; name (a declarator that is no definition adds nothing). Not an out-of-line definition's
; (`A::f`): its default arguments are on the declaration in the class, so its own list
; would rule out the calls leaving them out; it is never told apart by counts.
(function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name
  parameters: (parameter_list) @parameters)
