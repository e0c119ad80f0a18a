; Lua imports: `local x = require("a.b")` binds x to module a.b; a bare `require "a.b"`
; loads it (a wildcard import, binding no name).
(variable_declaration (assignment_statement
  (variable_list . name: (identifier) @import.alias .)
  (expression_list . value: (function_call name: (identifier) @_r
    arguments: (arguments . (string content: (string_content) @import.module) .)) .))
  (#eq? @_r "require"))
([(chunk (function_call name: (identifier) @_r
           arguments: (arguments . (string content: (string_content) @import.module) .)) @import.wildcard)
  (block (function_call name: (identifier) @_r
           arguments: (arguments . (string content: (string_content) @import.module) .)) @import.wildcard)]
 (#eq? @_r "require"))
