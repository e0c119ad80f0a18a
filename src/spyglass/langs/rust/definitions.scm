; Rust definitions. @definition.<kind> spans the definition, @name is its name. Methods of
; an `impl` block are placed under its type by @receiver (qualname Type.method); a
; function's return type, a field's and a static's declared type are its @base (the
; resolver's result aliases). Modules (`mod m;` and `mod m { .. }`) are definitions of
; kind module: the names inside an inline module nest under it.

; `#[test]` functions (also `#[tokio::test]`, one more attribute between) are tests.
(_ (attribute_item (attribute [(identifier) (scoped_identifier name: (identifier))] @_t))
   .
   (function_item name: (identifier) @name) @definition.test
   (#match? @_t "^(test|.*::test)$"))
(_ (attribute_item (attribute [(identifier) (scoped_identifier name: (identifier))] @_t))
   .
   (attribute_item)
   .
   (function_item name: (identifier) @name) @definition.test
   (#match? @_t "^(test|.*::test)$"))
(_ (attribute_item (attribute (scoped_identifier name: (identifier) @_t)))
   .
   (function_item name: (identifier) @name) @definition.test
   (#eq? @_t "test"))

; The type an impl names, also behind a reference (`impl IntoIterator for &'a T`, `&mut
; T`) and written as a path (`impl Deserializer for crate::Value`: the whole path is the
; receiver, the resolver reads it from the file's module).
(impl_item
  type: [(type_identifier) @receiver
         (generic_type type: [(type_identifier) (scoped_type_identifier)] @receiver)
         (scoped_type_identifier) @receiver
         (reference_type type: [(type_identifier) (scoped_type_identifier)] @receiver)
         (reference_type type: (generic_type type: [(type_identifier) (scoped_type_identifier)] @receiver))]
  body: (declaration_list
    (function_item name: (identifier) @name return_type: (_)? @base) @definition.method))
(impl_item
  type: [(type_identifier) @receiver
         (generic_type type: [(type_identifier) (scoped_type_identifier)] @receiver)
         (scoped_type_identifier) @receiver
         (reference_type type: [(type_identifier) (scoped_type_identifier)] @receiver)
         (reference_type type: (generic_type type: [(type_identifier) (scoped_type_identifier)] @receiver))]
  body: (declaration_list
    (const_item name: (identifier) @name) @definition.const))
(impl_item
  type: [(type_identifier) @receiver
         (generic_type type: [(type_identifier) (scoped_type_identifier)] @receiver)
         (scoped_type_identifier) @receiver
         (reference_type type: [(type_identifier) (scoped_type_identifier)] @receiver)
         (reference_type type: (generic_type type: [(type_identifier) (scoped_type_identifier)] @receiver))]
  body: (declaration_list
    (type_item name: (type_identifier) @name) @definition.type))

(function_item name: (identifier) @name return_type: (_)? @base) @definition.func
(function_signature_item name: (identifier) @name return_type: (_)? @base) @definition.method

(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(enum_variant name: (identifier) @name) @definition.const
(trait_item name: (type_identifier) @name) @definition.interface
(type_item name: (type_identifier) @name type: (_) @base) @definition.type
(associated_type name: (type_identifier) @name) @definition.type
(field_declaration name: (field_identifier) @name type: (_) @base) @definition.field
(const_item name: (identifier) @name) @definition.const
(static_item name: (identifier) @name type: (_) @base) @definition.var
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
