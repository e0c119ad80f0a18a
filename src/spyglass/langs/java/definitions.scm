; Java definitions. A type's @base are its superclass and interfaces; a method's and a
; field's @base is its declared (return) type: the resolver reads bases by kind.
(package_declaration [(identifier) (scoped_identifier)] @package)

(class_declaration name: (identifier) @name
  superclass: (superclass (_) @base)?) @definition.class
(class_declaration name: (identifier) @name
  interfaces: (super_interfaces (type_list (_) @base))) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name
  interfaces: (super_interfaces (type_list (_) @base))) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(interface_declaration name: (identifier) @name
  (extends_interfaces (type_list (_) @base))) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(enum_declaration name: (identifier) @name
  interfaces: (super_interfaces (type_list (_) @base))) @definition.enum
(enum_constant name: (identifier) @name) @definition.const

; JUnit tests: a method annotated @Test / @ParameterizedTest / @RepeatedTest.
(method_declaration
  (modifiers [(marker_annotation name: (_) @_a) (annotation name: (_) @_a)])
  type: (_) @base name: (identifier) @name
  (#match? @_a "^(org\\.junit\\.(jupiter\\.api\\.)?)?(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)$")) @definition.test
(method_declaration type: (_) @base name: (identifier) @name) @definition.method
; parameter counts tell overloads apart (syntax/arity.py)
(method_declaration name: (identifier) @name parameters: (formal_parameters) @parameters)
(annotation_type_element_declaration type: (_) @base name: (identifier) @name) @definition.method

; `static final` fields and interface constants are constants; other fields are fields.
(field_declaration (modifiers) @_m type: (_) @base
  declarator: (variable_declarator name: (identifier) @name)
  (#match? @_m "\\bstatic\\b") (#match? @_m "\\bfinal\\b")) @definition.const
(constant_declaration type: (_) @base
  declarator: (variable_declarator name: (identifier) @name)) @definition.const
(field_declaration type: (_) @base
  declarator: (variable_declarator name: (identifier) @name)) @definition.field
(record_declaration parameters: (formal_parameters
  (formal_parameter type: (_) @base name: (identifier) @name) @definition.field))
