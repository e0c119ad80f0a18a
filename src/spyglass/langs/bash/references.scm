; Bash references: a command's name is a call (of a function, or of an external program
; when none is defined); `$x`, `${x}` read a variable; `x=..` writes one.
(command name: (command_name (word) @reference.call))
(simple_expansion (variable_name) @reference.read)
(expansion (variable_name) @reference.read)
(variable_assignment name: (variable_name) @reference.write)
; Positional and special parameters are never uses of a definition.
((variable_name) @ignore (#match? @ignore "^[0-9]+$"))
