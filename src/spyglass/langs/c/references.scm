; C references. @reference.<role> marks a used name; @qualified a member access ending
; with the used name (`p->f_op->read`: the qualifier of `read` is `p.f_op`); @ignore marks
; names that declare rather than use.
(field_expression field: (field_identifier)) @qualified

(call_expression function: (identifier) @reference.call)
(call_expression function: (field_expression field: (field_identifier) @reference.call))
(call_expression function: (parenthesized_expression (identifier) @reference.call))

(type_identifier) @reference.type
; A name written after `struct`, `union` or `enum` is in the tag name space (manifest
; `tag_namespace`: a typedef of the same name is another symbol).
(struct_specifier name: (type_identifier) @tag)
(union_specifier name: (type_identifier) @tag)
(enum_specifier name: (type_identifier) @tag)

(assignment_expression left: (identifier) @reference.write)
(assignment_expression left: (field_expression field: (field_identifier) @reference.write))
(update_expression argument: (identifier) @reference.write)
(update_expression argument: (field_expression field: (field_identifier) @reference.write))

(identifier) @reference.read
(field_expression field: (field_identifier) @reference.read)

; An `#include` names a file: the resolver binds it to the header it finds.
(preproc_include path: (string_literal (string_content) @reference.import))
(preproc_include path: (system_lib_string) @reference.import)

; Declarations are not uses: prototypes, `extern` variables, parameters of prototypes and
; of macros, forward declarations (`struct fwd;`, also inside an include guard).
(declaration declarator: (function_declarator declarator: (identifier) @ignore))
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @ignore)))
(declaration declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @ignore))))
((declaration declarator: [(identifier) @ignore
                           (pointer_declarator declarator: (identifier) @ignore)
                           (array_declarator declarator: (identifier) @ignore)]) @_decl
 (#match? @_decl "^extern\\s"))
(parameter_declaration declarator: [(identifier) @ignore
  (pointer_declarator declarator: (identifier) @ignore)
  (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @ignore))
  (array_declarator declarator: (identifier) @ignore)])
(preproc_params (identifier) @ignore)
(translation_unit [(struct_specifier name: (type_identifier) @ignore !body)
  (union_specifier name: (type_identifier) @ignore !body)])
(preproc_ifdef [(struct_specifier name: (type_identifier) @ignore !body)
  (union_specifier name: (type_identifier) @ignore !body)])
(preproc_if [(struct_specifier name: (type_identifier) @ignore !body)
  (union_specifier name: (type_identifier) @ignore !body)])
(preproc_else [(struct_specifier name: (type_identifier) @ignore !body)
  (union_specifier name: (type_identifier) @ignore !body)])
(preproc_elif [(struct_specifier name: (type_identifier) @ignore !body)
  (union_specifier name: (type_identifier) @ignore !body)])
; ... and inside `extern "C" {` (a header's `#ifdef __cplusplus` wrapper read as C).
(declaration_list [(struct_specifier name: (type_identifier) @ignore !body)
  (union_specifier name: (type_identifier) @ignore !body)])
