; Rust definitions (throwaway pack). Methods of an `impl` block are placed under its type
; by @receiver; a function's return type is its @base (the resolver's result alias).
(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.interface
(field_declaration name: (field_identifier) @name type: (_) @base) @definition.field
(impl_item
  type: (type_identifier) @receiver
  body: (declaration_list
    (function_item name: (identifier) @name return_type: (_)? @base) @definition.method))
(function_item name: (identifier) @name return_type: (_)? @base) @definition.func
