; PHP definitions. @package is the namespace (`namespace App\Models;`); classes, interfaces,
; traits and enums hold their members by containment. A class's @base are its parent, its
; interfaces and the traits it uses; a method's declared return type and a property's
; declared type are their @base (the resolver's result aliases).
(namespace_definition name: (namespace_name) @package)

(class_declaration name: (name) @name (base_clause [(name) (qualified_name)] @base)) @definition.class
(class_declaration name: (name) @name (class_interface_clause [(name) (qualified_name)] @base)) @definition.class
(class_declaration name: (name) @name body: (declaration_list (use_declaration [(name) (qualified_name)] @base))) @definition.class
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name (base_clause [(name) (qualified_name)] @base)) @definition.interface
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name body: (declaration_list (use_declaration [(name) (qualified_name)] @base))) @definition.class
(trait_declaration name: (name) @name) @definition.class
(enum_declaration name: (name) @name (class_interface_clause [(name) (qualified_name)] @base)) @definition.enum
(enum_declaration name: (name) @name) @definition.enum
(enum_case name: (name) @name) @definition.const

(method_declaration name: (name) @name return_type: (named_type) @base) @definition.method
; A PHPDoc type stands for an undeclared one (`/** @return HandlerInterface */` above a
; method, `/** @var HandlerInterface */` above a property): the comment is the @base and
; the resolver reads the tag's class from it.
((comment) @base . (method_declaration name: (name) @name) @definition.method
  (#match? @base "[@]return"))
(method_declaration name: (name) @name) @definition.method
(function_definition name: (name) @name return_type: (named_type) @base) @definition.func
(function_definition name: (name) @name) @definition.func

(property_declaration type: (named_type) @base (property_element name: (variable_name (name) @name)) @definition.field)
((comment) @base . (property_declaration (property_element name: (variable_name (name) @name)) @definition.field)
  (#match? @base "[@]var"))
(property_declaration (property_element name: (variable_name (name) @name)) @definition.field)
(property_promotion_parameter type: (named_type) @base name: (variable_name (name) @name)) @definition.field
(property_promotion_parameter name: (variable_name (name) @name)) @definition.field
(const_declaration (const_element (name) @name) @definition.const)
