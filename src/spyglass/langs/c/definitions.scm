; C definitions. @definition.<kind> spans the definition, @name is its name. @base carries
; what the resolver needs beyond the name: `static` (a file-local function or variable in a
; source file) and the declared type (a function's result, a variable's, a field's, the
; type a typedef names), which the resolver turns into an alias `f.*` → `Type.*`.
; Prototypes and `extern` declarations are declarations, not definitions (references.scm
; ignores their names).

; -- functions (the declarator may be wrapped in pointers: `struct file *getf(void)`)
(function_definition declarator: [
  (function_declarator declarator: (identifier) @name)
  (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))]) @definition.func
((function_definition (storage_class_specifier) @base declarator: [
  (function_declarator declarator: (identifier) @name)
  (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))]) @definition.func
 (#eq? @base "static"))
(function_definition
  type: [(type_identifier) @base (struct_specifier name: (type_identifier) @base)
         (union_specifier name: (type_identifier) @base)]
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))]) @definition.func

; -- macros: object-like and function-like `#define`s are definitions; the parameters and
; the body are @base (the resolver reads the names the body uses: an expansion uses them)
(preproc_def name: (identifier) @name value: (preproc_arg) @base) @definition.macro
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name parameters: (preproc_params) @base
  value: (preproc_arg) @base) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; -- structs, unions, enums (with a body; `struct x;` and `struct x *p` are uses)
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(enumerator name: (identifier) @name) @definition.const

; -- fields (nested under their struct by containment); the declared type is @base
(field_declaration
  type: [(type_identifier) @base (struct_specifier name: (type_identifier) @base)
         (union_specifier name: (type_identifier) @base)]
  declarator: [(field_identifier) @name
               (pointer_declarator declarator: (field_identifier) @name)
               (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
               (array_declarator declarator: (field_identifier) @name)]) @definition.field
(field_declaration declarator: [
  (field_identifier) @name
  (pointer_declarator declarator: (field_identifier) @name)
  (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
  (array_declarator declarator: (field_identifier) @name)
  (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))]) @definition.field

; -- typedefs: the named type is @base (`typedef struct point point_t`: point_t.* → point.*)
(type_definition
  type: [(type_identifier) @base (struct_specifier name: (type_identifier) @base)
         (union_specifier name: (type_identifier) @base)
         (enum_specifier name: (type_identifier) @base)]
  declarator: [(type_identifier) @name
               (pointer_declarator declarator: (type_identifier) @name)]) @definition.type
(type_definition declarator: [
  (type_identifier) @name
  (pointer_declarator declarator: (type_identifier) @name)
  (pointer_declarator declarator: (pointer_declarator declarator: (type_identifier) @name))
  (array_declarator declarator: (type_identifier) @name)
  (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  (function_declarator declarator: (type_identifier) @name)]) @definition.type

; -- file-level variables, also inside `#if` blocks (not `extern` declarations: those are
; uses of another file's variable). A `static` one is file-local; a declared type is @base.
((translation_unit (declaration (storage_class_specifier) @base
   declarator: [(identifier) @name
                (init_declarator declarator: [(identifier) @name
                                              (pointer_declarator declarator: (identifier) @name)
                                              (array_declarator declarator: (identifier) @name)])
                (pointer_declarator declarator: (identifier) @name)
                (array_declarator declarator: (identifier) @name)]) @definition.var)
 (#eq? @base "static"))
((translation_unit (declaration
   type: [(type_identifier) @base (struct_specifier name: (type_identifier) @base)
          (union_specifier name: (type_identifier) @base)]
   declarator: [(identifier) @name
                (init_declarator declarator: [(identifier) @name
                                              (pointer_declarator declarator: (identifier) @name)
                                              (array_declarator declarator: (identifier) @name)])
                (pointer_declarator declarator: (identifier) @name)
                (array_declarator declarator: (identifier) @name)]) @definition.var)
 (#not-match? @definition.var "^extern\\s"))
((translation_unit (declaration
   declarator: [(identifier) @name
                (init_declarator declarator: [(identifier) @name
                                              (pointer_declarator declarator: (identifier) @name)
                                              (array_declarator declarator: (identifier) @name)])
                (pointer_declarator declarator: (identifier) @name)
                (array_declarator declarator: (identifier) @name)]) @definition.var)
 (#not-match? @definition.var "^extern\\s"))
((preproc_ifdef (declaration (storage_class_specifier) @base
   declarator: [(identifier) @name
                (init_declarator declarator: [(identifier) @name
                                              (pointer_declarator declarator: (identifier) @name)
                                              (array_declarator declarator: (identifier) @name)])
                (pointer_declarator declarator: (identifier) @name)
                (array_declarator declarator: (identifier) @name)]) @definition.var)
 (#eq? @base "static"))
((preproc_ifdef (declaration
   type: [(type_identifier) @base (struct_specifier name: (type_identifier) @base)
          (union_specifier name: (type_identifier) @base)]
   declarator: [(identifier) @name
                (init_declarator declarator: [(identifier) @name
                                              (pointer_declarator declarator: (identifier) @name)
                                              (array_declarator declarator: (identifier) @name)])
                (pointer_declarator declarator: (identifier) @name)
                (array_declarator declarator: (identifier) @name)]) @definition.var)
 (#not-match? @definition.var "^extern\\s"))
((preproc_ifdef (declaration
   declarator: [(identifier) @name
                (init_declarator declarator: [(identifier) @name
                                              (pointer_declarator declarator: (identifier) @name)
                                              (array_declarator declarator: (identifier) @name)])
                (pointer_declarator declarator: (identifier) @name)
                (array_declarator declarator: (identifier) @name)]) @definition.var)
 (#not-match? @definition.var "^extern\\s"))
((preproc_if (declaration (storage_class_specifier) @base
   declarator: [(identifier) @name
                (init_declarator declarator: [(identifier) @name
                                              (pointer_declarator declarator: (identifier) @name)
                                              (array_declarator declarator: (identifier) @name)])
                (pointer_declarator declarator: (identifier) @name)
                (array_declarator declarator: (identifier) @name)]) @definition.var)
 (#eq? @base "static"))
((preproc_if (declaration
   type: [(type_identifier) @base (struct_specifier name: (type_identifier) @base)
          (union_specifier name: (type_identifier) @base)]
   declarator: [(identifier) @name
                (init_declarator declarator: [(identifier) @name
                                              (pointer_declarator declarator: (identifier) @name)
                                              (array_declarator declarator: (identifier) @name)])
                (pointer_declarator declarator: (identifier) @name)
                (array_declarator declarator: (identifier) @name)]) @definition.var)
 (#not-match? @definition.var "^extern\\s"))
((preproc_if (declaration
   declarator: [(identifier) @name
                (init_declarator declarator: [(identifier) @name
                                              (pointer_declarator declarator: (identifier) @name)
                                              (array_declarator declarator: (identifier) @name)])
                (pointer_declarator declarator: (identifier) @name)
                (array_declarator declarator: (identifier) @name)]) @definition.var)
 (#not-match? @definition.var "^extern\\s"))
((preproc_else (declaration (storage_class_specifier) @base
   declarator: [(identifier) @name
                (init_declarator declarator: [(identifier) @name
                                              (pointer_declarator declarator: (identifier) @name)
                                              (array_declarator declarator: (identifier) @name)])
                (pointer_declarator declarator: (identifier) @name)
                (array_declarator declarator: (identifier) @name)]) @definition.var)
 (#eq? @base "static"))
((preproc_else (declaration
   type: [(type_identifier) @base (struct_specifier name: (type_identifier) @base)
          (union_specifier name: (type_identifier) @base)]
   declarator: [(identifier) @name
                (init_declarator declarator: [(identifier) @name
                                              (pointer_declarator declarator: (identifier) @name)
                                              (array_declarator declarator: (identifier) @name)])
                (pointer_declarator declarator: (identifier) @name)
                (array_declarator declarator: (identifier) @name)]) @definition.var)
 (#not-match? @definition.var "^extern\\s"))
((preproc_else (declaration
   declarator: [(identifier) @name
                (init_declarator declarator: [(identifier) @name
                                              (pointer_declarator declarator: (identifier) @name)
                                              (array_declarator declarator: (identifier) @name)])
                (pointer_declarator declarator: (identifier) @name)
                (array_declarator declarator: (identifier) @name)]) @definition.var)
 (#not-match? @definition.var "^extern\\s"))
((preproc_elif (declaration (storage_class_specifier) @base
   declarator: [(identifier) @name
                (init_declarator declarator: [(identifier) @name
                                              (pointer_declarator declarator: (identifier) @name)
                                              (array_declarator declarator: (identifier) @name)])
                (pointer_declarator declarator: (identifier) @name)
                (array_declarator declarator: (identifier) @name)]) @definition.var)
 (#eq? @base "static"))
((preproc_elif (declaration
   type: [(type_identifier) @base (struct_specifier name: (type_identifier) @base)
          (union_specifier name: (type_identifier) @base)]
   declarator: [(identifier) @name
                (init_declarator declarator: [(identifier) @name
                                              (pointer_declarator declarator: (identifier) @name)
                                              (array_declarator declarator: (identifier) @name)])
                (pointer_declarator declarator: (identifier) @name)
                (array_declarator declarator: (identifier) @name)]) @definition.var)
 (#not-match? @definition.var "^extern\\s"))
((preproc_elif (declaration
   declarator: [(identifier) @name
                (init_declarator declarator: [(identifier) @name
                                              (pointer_declarator declarator: (identifier) @name)
                                              (array_declarator declarator: (identifier) @name)])
                (pointer_declarator declarator: (identifier) @name)
                (array_declarator declarator: (identifier) @name)]) @definition.var)
 (#not-match? @definition.var "^extern\\s"))
