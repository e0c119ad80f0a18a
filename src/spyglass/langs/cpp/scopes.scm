; C++ scopes, after the C pack's: class bodies, lambdas; reference parameters; locals of a
; qualified or template type.
(class_specifier body: (field_declaration_list)) @scope.class
(lambda_expression) @scope
(parameter_declaration declarator: (reference_declarator (identifier) @local.definition))
(parameter_declaration
  type: [(type_identifier) (qualified_identifier) (template_type)] @local.type
  declarator: [(reference_declarator (identifier) @local.definition)
               (pointer_declarator declarator: (identifier) @local.definition)
               (identifier) @local.definition])
(compound_statement (declaration
  type: [(qualified_identifier) (template_type)] @local.type
  declarator: [(identifier) @local.definition
               (init_declarator declarator: [(identifier) @local.definition
                                             (pointer_declarator declarator: (identifier) @local.definition)])]))
; A local constructed with arguments, which the grammar reads as a prototype (`py_key
; key(p, n);`, `handle tp(x), obj(y);`): a typed local of the enclosing function.
(compound_statement (declaration
  type: [(type_identifier) (qualified_identifier) (template_type)] @local.type
  declarator: (function_declarator declarator: (identifier) @local.definition)))
; A template's parameters are names of its own scope (`template <typename Key> … Key`);
; a `using X = …` in a function body is a local.
(template_declaration) @scope
(template_declaration parameters: (template_parameter_list [
  (type_parameter_declaration (type_identifier) @local.definition)
  (optional_type_parameter_declaration name: (type_identifier) @local.definition)
  (variadic_type_parameter_declaration (type_identifier) @local.definition)
  (parameter_declaration declarator: (identifier) @local.definition)
  (optional_parameter_declaration declarator: (identifier) @local.definition)]))
(compound_statement (alias_declaration name: (type_identifier) @local.definition))
; Parameters of every function definition and lambda, whatever wraps the function's
; declarator (`T **f(…)`, `T &f(…)`) and however a parameter is declared (a default value
; `size_t n = 0`, a pack `Args &&...args`): the C pack binds those of `f(…)` and `*f(…)`
; only. (Prototypes' parameters bind nothing.)
(function_definition declarator: [
  (function_declarator parameters: (parameter_list [
; include: _cpp/parameters
    ]))
  (pointer_declarator declarator: (function_declarator parameters: (parameter_list [
; include: _cpp/parameters
    ])))
  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator parameters: (parameter_list [
; include: _cpp/parameters
    ]))))
  (reference_declarator (function_declarator parameters: (parameter_list [
; include: _cpp/parameters
    ])))])
(lambda_expression declarator: (abstract_function_declarator parameters: (parameter_list [
; include: _cpp/parameters
  ])))
