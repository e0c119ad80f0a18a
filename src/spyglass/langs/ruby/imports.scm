; Ruby imports: `require "a/b"` and `require_relative "b"` load a file and bind no name (a
; wildcard import); the method's name is kept as the alias, for the resolver.
((call method: (identifier) @import.alias
   arguments: (argument_list . (string . (string_content) @import.module .) .)) @import.wildcard
 (#match? @import.alias "^(require|require_relative|load)$"))
