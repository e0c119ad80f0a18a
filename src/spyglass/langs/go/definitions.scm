; Go definitions. @definition.<kind> spans the whole definition, @name is its name.
; @receiver names a method's receiver type (qualname becomes Receiver.Method), @base an
; embedded struct/interface type (one match per embedded type; the engine merges them),
; @package the package clause.

(package_clause (package_identifier) @package)

; A function's or method's (first) result type is its @base: the resolver turns it into an
; alias `f.*` → `Type.*`, so that `x := f()` then `x.M()` reaches Type.M. A slice result
; `[]T` stands for T, as containers do elsewhere (`ms := f(); ms[0].M()`).
(function_declaration name: (identifier) @name
; include: _go/result-type
  ) @definition.func
(function_declaration name: (identifier) @name) @definition.func
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @receiver
             (pointer_type (type_identifier) @receiver)
             (generic_type type: (type_identifier) @receiver)
             (pointer_type (generic_type type: (type_identifier) @receiver))]))
  name: (field_identifier) @name
; include: _go/result-type
  ) @definition.method

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @receiver
             (pointer_type (type_identifier) @receiver)
             (generic_type type: (type_identifier) @receiver)
             (pointer_type (generic_type type: (type_identifier) @receiver))]))
  name: (field_identifier) @name) @definition.method

; Structs and interfaces first: the lowest pattern wins the kind of a name.
(type_spec
  name: (type_identifier) @name
  type: (struct_type
    (field_declaration_list
      (field_declaration
        !name
        type: [(type_identifier) @base
               (qualified_type) @base
               (generic_type type: [(type_identifier) (qualified_type)] @base)])))) @definition.struct
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type
    (type_elem . [(type_identifier) (qualified_type)] @base .))) @definition.interface
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface

; `type Alerts []*Alert` (a named slice, array, map or channel): the container type as
; written is its @base; the resolver gives its members the element type's (an index
; `as[i].M()` is read `as.M()`, as a container stands for its element type).
(type_spec name: (type_identifier) @name
  type: [(slice_type) (array_type) (map_type) (channel_type)] @base) @definition.type
(type_spec name: (type_identifier) @name) @definition.type
; `type T = U`: U is recorded as @base; the resolver turns it into an alias, not a base.
(type_alias name: (type_identifier) @name type: [(type_identifier) (qualified_type)] @base) @definition.type
(type_alias name: (type_identifier) @name) @definition.type

; Members: struct fields and interface methods nest under their type by containment.
; A field's or variable's declared type (or the composite literal it is initialised with)
; is its @base; the resolver turns it into an alias `T.field.*` → `Type.*`, so that
; `c.field.Method()` reaches Type.Method.
(field_declaration name: (field_identifier) @name
  type: [(type_identifier) @base (qualified_type) @base
          (pointer_type [(type_identifier) (qualified_type)] @base)
          (generic_type type: [(type_identifier) (qualified_type)] @base)
          (pointer_type (generic_type type: [(type_identifier) (qualified_type)] @base))]) @definition.field
; A container field (`[]T`, `map[K]T`, `chan T`) has its element type as @base: ranging
; over it or receiving from it yields a T (containers have no methods of their own).
(field_declaration name: (field_identifier) @name
  type: [(slice_type element: [(type_identifier) @base (qualified_type) @base
                               (pointer_type [(type_identifier) (qualified_type)] @base)])
         (map_type value: [(type_identifier) @base (qualified_type) @base
                           (pointer_type [(type_identifier) (qualified_type)] @base)])
         (channel_type value: [(type_identifier) @base (qualified_type) @base
                               (pointer_type [(type_identifier) (qualified_type)] @base)])]) @definition.field
(field_declaration name: (field_identifier) @name) @definition.field
(method_elem name: (field_identifier) @name
; include: _go/result-type
  ) @definition.method
(method_elem name: (field_identifier) @name) @definition.method

; Package-level constants and variables (function-local ones are scopes.scm bindings).
; A variable holding a function literal is a function (so its body encloses its calls).
(source_file (var_declaration (var_spec name: (identifier) @name value: (expression_list . (func_literal) .)) @definition.func))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name value: (expression_list . (func_literal) .)) @definition.func)))
(source_file (const_declaration (const_spec (identifier) @name) @definition.const))
(source_file (var_declaration (var_spec name: (identifier) @name type: [(type_identifier) @base (qualified_type) @base
          (pointer_type [(type_identifier) (qualified_type)] @base)
          (generic_type type: [(type_identifier) (qualified_type)] @base)
          (pointer_type (generic_type type: [(type_identifier) (qualified_type)] @base))]) @definition.var))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name type: [(type_identifier) @base (qualified_type) @base
          (pointer_type [(type_identifier) (qualified_type)] @base)
          (generic_type type: [(type_identifier) (qualified_type)] @base)
          (pointer_type (generic_type type: [(type_identifier) (qualified_type)] @base))]) @definition.var)))
(source_file (var_declaration (var_spec name: (identifier) @name value: (expression_list . [(composite_literal type: [(type_identifier) (qualified_type)] @base)
                            (unary_expression operand: (composite_literal type: [(type_identifier) (qualified_type)] @base))] .)) @definition.var))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name value: (expression_list . [(composite_literal type: [(type_identifier) (qualified_type)] @base)
                            (unary_expression operand: (composite_literal type: [(type_identifier) (qualified_type)] @base))] .)) @definition.var)))
; A container variable (`var plugins []Plugin`, `var all = []Any{}`) has its element type
; as @base, as a container field does: ranging over it yields that type.
(source_file (var_declaration (var_spec name: (identifier) @name
  type: [(slice_type element: [(type_identifier) @base (qualified_type) @base
                               (pointer_type [(type_identifier) (qualified_type)] @base)])
         (array_type element: [(type_identifier) @base (qualified_type) @base
                               (pointer_type [(type_identifier) (qualified_type)] @base)])
         (map_type value: [(type_identifier) @base (qualified_type) @base
                           (pointer_type [(type_identifier) (qualified_type)] @base)])
         (channel_type value: [(type_identifier) @base (qualified_type) @base
                               (pointer_type [(type_identifier) (qualified_type)] @base)])]) @definition.var))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name
  type: [(slice_type element: [(type_identifier) @base (qualified_type) @base
                               (pointer_type [(type_identifier) (qualified_type)] @base)])
         (array_type element: [(type_identifier) @base (qualified_type) @base
                               (pointer_type [(type_identifier) (qualified_type)] @base)])
         (map_type value: [(type_identifier) @base (qualified_type) @base
                           (pointer_type [(type_identifier) (qualified_type)] @base)])
         (channel_type value: [(type_identifier) @base (qualified_type) @base
                               (pointer_type [(type_identifier) (qualified_type)] @base)])]) @definition.var)))
(source_file (var_declaration (var_spec name: (identifier) @name value: (expression_list . (composite_literal
  type: [(slice_type element: [(type_identifier) @base (qualified_type) @base
                               (pointer_type [(type_identifier) (qualified_type)] @base)])
         (map_type value: [(type_identifier) @base (qualified_type) @base
                           (pointer_type [(type_identifier) (qualified_type)] @base)])]) .)) @definition.var))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name value: (expression_list . (composite_literal
  type: [(slice_type element: [(type_identifier) @base (qualified_type) @base
                               (pointer_type [(type_identifier) (qualified_type)] @base)])
         (map_type value: [(type_identifier) @base (qualified_type) @base
                           (pointer_type [(type_identifier) (qualified_type)] @base)])]) .)) @definition.var)))
(source_file (var_declaration (var_spec name: (identifier) @name value: (expression_list . (call_expression function: [(identifier) (selector_expression)] @base) .)) @definition.var))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name value: (expression_list . (call_expression function: [(identifier) (selector_expression)] @base) .)) @definition.var)))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.var))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.var)))
