; Shared by the javascript and typescript packs (each includes it where it stands).
; CommonJS definitions: `exports.f = …`, `module.exports.f = …`, prototype methods.
(program (expression_statement (assignment_expression
  left: (member_expression object: (identifier) @_exports property: (property_identifier) @name)
  right: [(arrow_function) (function_expression) (class)]) @definition.func)
  (#eq? @_exports "exports"))
(program (expression_statement (assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression) (class)]) @definition.func)
  (#eq? @_module "module") (#eq? @_exports "exports"))
; `exports.x = value` (not the `exports.x = void 0` / `exports.a = exports.b` preamble).
((program (expression_statement (assignment_expression
  left: (member_expression object: (identifier) @_exports property: (property_identifier) @name)
  right: (_) @_value) @definition.var))
  (#eq? @_exports "exports") (#not-match? @_value "^(void 0|exports\\.)"))
(program (expression_statement (assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @receiver property: (property_identifier) @_proto)
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)]) @definition.method)
  (#eq? @_proto "prototype"))
