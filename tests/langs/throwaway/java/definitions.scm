; Java definitions (throwaway pack). A method's return type is its @base.
(package_declaration [(identifier) (scoped_identifier)] @package)
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration type: (_) @base name: (identifier) @name) @definition.func
(field_declaration type: (_) @base declarator: (variable_declarator name: (identifier) @name)) @definition.field
