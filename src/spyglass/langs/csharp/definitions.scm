; C# definitions under the namespace the file declares (block or file-scoped). A type's
; @base are its base class and interfaces; a method's, a field's and a property's @base
; its declared type: the resolver reads bases by kind.
(namespace_declaration name: (_) @package)
(file_scoped_namespace_declaration name: (_) @package)

(class_declaration name: (identifier) @name (base_list (_) @base)?) @definition.class
(record_declaration name: (identifier) @name (base_list (_) @base)?) @definition.class
(interface_declaration name: (identifier) @name (base_list (_) @base)?) @definition.interface
(struct_declaration name: (identifier) @name (base_list (_) @base)?) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(enum_member_declaration name: (identifier) @name) @definition.const
(delegate_declaration name: (identifier) @name) @definition.type

; xUnit, NUnit and MSTest tests: a method with a test attribute.
(method_declaration (attribute_list (attribute name: (_) @_a))
  returns: (_) @base name: (identifier) @name
  (#match? @_a "^(Fact|Theory|Test|TestCase|TestCaseSource|TestMethod|DataTestMethod)$")) @definition.test
(method_declaration returns: (_) @base name: (identifier) @name) @definition.method
(local_function_statement name: (identifier) @name) @definition.func
; parameter counts tell overloads apart (syntax/arity.py)
(method_declaration name: (identifier) @name parameters: (parameter_list) @parameters)
(local_function_statement name: (identifier) @name parameters: (parameter_list) @parameters)

(field_declaration (modifier) @_m
  (variable_declaration type: (_) @base (variable_declarator name: (identifier) @name))
  (#eq? @_m "const")) @definition.const
(field_declaration
  (variable_declaration type: (_) @base (variable_declarator name: (identifier) @name))) @definition.field
(event_field_declaration
  (variable_declaration type: (_) @base (variable_declarator name: (identifier) @name))) @definition.field
(property_declaration type: (_) @base name: (identifier) @name) @definition.field
(event_declaration type: (_) @base name: (identifier) @name) @definition.field
(record_declaration (parameter_list
  (parameter type: (_) @base name: (identifier) @name) @definition.field))
