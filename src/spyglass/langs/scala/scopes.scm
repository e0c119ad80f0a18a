; Scala scopes: functions, lambdas, blocks of a case; a template body is a class scope
; (its members are visible bare from its functions).
(function_definition) @scope
(lambda_expression) @scope
(case_clause) @scope
(class_definition) @scope.class
(object_definition) @scope.class
(trait_definition) @scope.class
(enum_definition) @scope.class

(parameter name: (identifier) @local.definition type: (_) @local.type)
(parameter name: (identifier) @local.definition)
(bindings (binding name: (identifier) @local.definition))
(lambda_expression parameters: (identifier) @local.definition)
(block (val_definition pattern: (identifier) @local.definition type: (_) @local.type))
(block (val_definition pattern: (identifier) @local.definition
  value: (instance_expression . (_) @local.type)))
(block (val_definition pattern: (identifier) @local.definition))
(block (var_definition pattern: (identifier) @local.definition type: (_) @local.type))
(block (var_definition pattern: (identifier) @local.definition))
(enumerator (identifier) @local.definition)
; a pattern's variables (`case a :: tail`, `case LongNum(n)`, `case (k, v)`, `all @ P(_)`,
; `val (value, i) = …`); a capitalised name in a pattern is a stable identifier (`case
; JNull =>`): a reference, not a variable
((case_clause pattern: (identifier) @local.definition) (#match? @local.definition "^[a-z_]"))
((infix_pattern [left: (identifier) right: (identifier)] @local.definition)
  (#match? @local.definition "^[a-z_]"))
((case_class_pattern pattern: (identifier) @local.definition)
  (#match? @local.definition "^[a-z_]"))
((tuple_pattern (identifier) @local.definition) (#match? @local.definition "^[a-z_]"))
(capture_pattern name: (identifier) @local.definition)
(typed_pattern pattern: (identifier) @local.definition type: (_) @local.type)
(typed_pattern (identifier) @local.definition)
; type parameters (`class Parser[J]`, `def parse[T]`) are names of their scope, not types
; of the package
(type_parameters name: (identifier) @local.definition)
; a self alias (`object JNum { self => … self.zero }`) names the enclosing type
(self_type . (identifier) @local.self)
