; Shared by the javascript and typescript packs (each includes it where it stands).
; Module-level variables (functions, classes, destructured names).
; Module-level variables: functions and classes by their value, then everything else
; (the lowest pattern wins the kind). `require(…)` results are imports, not variables.
(program [
  (lexical_declaration (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.func)
  (variable_declaration (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.func)
  (export_statement declaration: (lexical_declaration (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.func))])
(program [
  (lexical_declaration (variable_declarator name: (identifier) @name value: (class)) @definition.class)
  (variable_declaration (variable_declarator name: (identifier) @name value: (class)) @definition.class)
  (export_statement declaration: (lexical_declaration
    (variable_declarator name: (identifier) @name value: (class)) @definition.class))])
((program [
  (lexical_declaration (variable_declarator name: (identifier) @name value: (_)? @_value) @definition.var)
  (variable_declaration (variable_declarator name: (identifier) @name value: (_)? @_value) @definition.var)])
 (#not-match? @_value "^require\\s*\\("))
(program (export_statement declaration: (lexical_declaration
  (variable_declarator name: (identifier) @name) @definition.var)))
(program (export_statement declaration: (variable_declaration
  (variable_declarator name: (identifier) @name) @definition.var)))
((program [
  (lexical_declaration (variable_declarator
    name: (object_pattern [
      (shorthand_property_identifier_pattern) @name
      (pair_pattern value: (identifier) @name)
      (object_assignment_pattern left: (shorthand_property_identifier_pattern) @name)])
    value: (_) @_value) @definition.var)
  (variable_declaration (variable_declarator
    name: (object_pattern [
      (shorthand_property_identifier_pattern) @name
      (pair_pattern value: (identifier) @name)
      (object_assignment_pattern left: (shorthand_property_identifier_pattern) @name)])
    value: (_) @_value) @definition.var)])
 (#not-match? @_value "^require\\s*\\("))
(program [
  (lexical_declaration (variable_declarator name: (array_pattern (identifier) @name)) @definition.var)
  (variable_declaration (variable_declarator name: (array_pattern (identifier) @name)) @definition.var)])
