; Lua definitions. `function M.f()` and `function M:m()` are placed under their table by
; @receiver (M.f; a `:` function is a method, `self` is its table); so is `M.f = function()`.
; @package is the name of the table the file returns (`return M`): the resolver names its
; members after the module.
(chunk (return_statement (expression_list . (identifier) @package .)))

(function_declaration name: (method_index_expression table: (_) @receiver method: (identifier) @name)) @definition.method
(function_declaration name: (dot_index_expression table: (_) @receiver field: (identifier) @name)) @definition.func
(function_declaration name: (identifier) @name) @definition.func
(assignment_statement
  (variable_list . name: (dot_index_expression table: (_) @receiver field: (identifier) @name) .)
  (expression_list . value: (function_definition) .)) @definition.func
(chunk (assignment_statement
  (variable_list . name: (dot_index_expression table: (identifier) @receiver field: (identifier) @name) .)) @definition.var)
(chunk (assignment_statement
  (variable_list . name: (identifier) @name .)
  (expression_list . value: (function_definition) .)) @definition.func)
