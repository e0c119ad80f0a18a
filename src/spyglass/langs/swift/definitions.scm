; Swift definitions. `class`, `struct`, `enum`, `actor` and `protocol` declarations hold
; their members by containment; an `extension T` places its members under T by
; @receiver. Inherited types and conformances are @base; a function's return type and a
; property's declared type are its @base (the resolver's result aliases). Patterns on
; function_declaration are costly to compile in this grammar (about half a second each):
; methods of extensions and enums take no return type.
(class_declaration declaration_kind: "extension" name: (user_type (type_identifier) @receiver)
  body: (class_body (function_declaration name: (simple_identifier) @name) @definition.method))
(class_declaration declaration_kind: "extension" name: (user_type (type_identifier) @receiver)
  body: (class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.field))

(class_declaration declaration_kind: "struct" name: (type_identifier) @name (inheritance_specifier inherits_from: (user_type) @base)) @definition.struct
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name (inheritance_specifier inherits_from: (user_type) @base)) @definition.enum
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(class_declaration name: (type_identifier) @name (inheritance_specifier inherits_from: (user_type) @base)) @definition.class
(class_declaration name: (type_identifier) @name) @definition.class
(protocol_declaration name: (type_identifier) @name (inheritance_specifier inherits_from: (user_type) @base)) @definition.interface
(protocol_declaration name: (type_identifier) @name) @definition.interface

(enum_class_body (function_declaration name: (simple_identifier) @name) @definition.method)
(function_declaration name: (simple_identifier) @name (user_type)? @base) @definition.func
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
; An initializer is the method `init` (the manifest's constructor: `Circle(r: 1)` calls it).
(class_body (init_declaration "init" @name) @definition.method)
(enum_entry name: (simple_identifier) @name) @definition.const
(typealias_declaration . (type_identifier) @name) @definition.type

(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)
  (type_annotation (user_type) @base)) @definition.field)
(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)
  value: (call_expression . (simple_identifier) @base)) @definition.field)
(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.field)
(enum_class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.field)
(protocol_body (protocol_property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.field)
(source_file (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)
  (type_annotation (user_type) @base)) @definition.var)
(source_file (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.var)
