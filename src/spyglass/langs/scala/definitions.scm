; Scala definitions. A type's @base are its parents (`extends A with B with C`: every
; type of the clause, one match each, not its constructor arguments); a function's
; and a value's @base its declared (result) type: the resolver reads bases by kind. A
; class and its companion object share one full name.
(package_clause name: (package_identifier) @package)

(class_definition name: (identifier) @name
  extend: (extends_clause [(type_identifier) (generic_type) (stable_type_identifier)] @base)?) @definition.class
(object_definition name: (identifier) @name
  extend: (extends_clause [(type_identifier) (generic_type) (stable_type_identifier)] @base)?) @definition.class
; `package object p { … }`: its members are p's (`a.b.p.helper` in package a.b)
(package_object name: (identifier) @name) @definition.module
(trait_definition name: (identifier) @name
  extend: (extends_clause [(type_identifier) (generic_type) (stable_type_identifier)] @base)?) @definition.interface
(enum_definition name: (identifier) @name) @definition.enum
(simple_enum_case name: (identifier) @name) @definition.const
(full_enum_case name: (identifier) @name) @definition.const
; a type alias's base is the type it names (`type JString = JsonAST.JString`: members
; of the alias are the type's)
(type_definition name: (type_identifier) @name
  type: [(type_identifier) (generic_type) (stable_type_identifier)] @base) @definition.type
(type_definition name: (type_identifier) @name) @definition.type

(function_definition name: (identifier) @name return_type: (_) @base) @definition.func
(function_definition name: (identifier) @name) @definition.func
(function_declaration name: (identifier) @name return_type: (_) @base) @definition.func
(function_declaration name: (identifier) @name) @definition.func
; parameter counts tell overloads apart (syntax/arity.py): every parameter list
(function_definition name: (identifier) @name (parameters)+ @parameters)
(function_declaration name: (identifier) @name (parameters)+ @parameters)

; Values of a type or a file (a function's locals are scopes.scm's); `final val` is a
; constant.
((template_body (val_definition (modifiers) @_m pattern: (identifier) @name) @definition.const)
  (#match? @_m "final"))
(template_body (val_definition pattern: (identifier) @name type: (_) @base) @definition.field)
(template_body (val_definition pattern: (identifier) @name
  value: (instance_expression . (_) @base)) @definition.field)
(template_body (val_definition pattern: (identifier) @name) @definition.field)
(template_body (var_definition pattern: (identifier) @name type: (_) @base) @definition.field)
(template_body (var_definition pattern: (identifier) @name) @definition.field)
(template_body (val_declaration name: (identifier) @name type: (_) @base) @definition.field)
(compilation_unit (val_definition pattern: (identifier) @name) @definition.var)
; a class's parameters are its fields (a case class's public, another's private)
(class_parameter name: (identifier) @name type: (_) @base) @definition.field
