; Bash imports: `source FILE` and `. FILE` load a script into this one (a wildcard import:
; every function it defines becomes callable). @import.module is the argument as written.
((command name: (command_name (word) @_s) . argument: [(word) (string) (raw_string) (concatenation)] @import.module) @import.wildcard
 (#match? @_s "^(source|\\.)$"))
