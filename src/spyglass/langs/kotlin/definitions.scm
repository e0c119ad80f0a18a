; Kotlin definitions. A type's @base are its supertypes; a function's and a property's
; @base is its declared (result) type: the resolver reads bases by kind. Extension
; functions are methods of their receiver type (@receiver: `fun Job.cancelAndJoin()` is
; Job.cancelAndJoin, which `job.cancelAndJoin()` on a Job reaches); the resolver also
; names them by their package (`import a.cancelAndJoin`).
(package_header (qualified_identifier) @package)

(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration name: (identifier) @name (enum_class_body)) @definition.enum
(class_declaration name: (identifier) @name
  (delegation_specifiers (delegation_specifier
    [(constructor_invocation (user_type) @base) (user_type) @base]))) @definition.class
(class_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name
  (delegation_specifiers (delegation_specifier
    [(constructor_invocation (user_type) @base) (user_type) @base]))) @definition.class
(object_declaration name: (identifier) @name) @definition.class
(companion_object name: (identifier) @name) @definition.class
(type_alias type: (identifier) @name) @definition.type
(enum_entry (identifier) @name) @definition.const

; JUnit tests: a function annotated @Test / @ParameterizedTest.
(function_declaration
  (modifiers (annotation (user_type (identifier) @_a)))
  name: (identifier) @name
  (#match? @_a "^(Test|ParameterizedTest|RepeatedTest|TestFactory)$")) @definition.test
; The members of an object expression (`object : DisposableHandle { override fun
; dispose() }` inside a function) are methods of that anonymous class.
(object_literal (class_body (function_declaration name: (identifier) @name) @definition.method))
(function_declaration
  [(user_type . (identifier) @receiver) (nullable_type (user_type . (identifier) @receiver))]
  . name: (identifier) @name (function_value_parameters) .
  [(user_type) (nullable_type)] @base) @definition.method
(function_declaration
  [(user_type . (identifier) @receiver) (nullable_type (user_type . (identifier) @receiver))]
  . name: (identifier) @name) @definition.method
(function_declaration name: (identifier) @name (function_value_parameters) .
  [(user_type) (nullable_type)] @base) @definition.func
(function_declaration name: (identifier) @name) @definition.func
; parameter counts tell overloads apart (syntax/arity.py)
(function_declaration name: (identifier) @name (function_value_parameters) @parameters)

; Properties of a type or a file (a function's locals are scopes.scm's).
([(class_body (property_declaration (modifiers (property_modifier) @_m)
    (variable_declaration (identifier) @name)) @definition.const)
  (source_file (property_declaration (modifiers (property_modifier) @_m)
    (variable_declaration (identifier) @name)) @definition.const)]
  (#eq? @_m "const"))
; An extension property (`val CoroutineScope.isActive: Boolean get() = …`) is a member of
; its receiver type, like an extension function.
(source_file (property_declaration
  [(user_type . (identifier) @receiver) (nullable_type (user_type . (identifier) @receiver))]
  . (variable_declaration (identifier) @name)) @definition.field)
(class_body (property_declaration (variable_declaration (identifier) @name
  [(user_type) (nullable_type)] @base)) @definition.field)
(source_file (property_declaration (variable_declaration (identifier) @name
  [(user_type) (nullable_type)] @base)) @definition.var)
(class_body (property_declaration (variable_declaration (identifier) @name)
  (call_expression . (identifier) @base)) @definition.field)
(source_file (property_declaration (variable_declaration (identifier) @name)
  (call_expression . (identifier) @base)) @definition.var)
(class_body (property_declaration (variable_declaration (identifier) @name)) @definition.field)
(source_file (property_declaration (variable_declaration (identifier) @name)) @definition.var)
(class_parameter ["val" "var"] (identifier) @name [(user_type) (nullable_type)] @base) @definition.field
