; Bash definitions: functions (`f() {..}`, `function f {..}`) and variables assigned at the
; top level of a script (upper-case ones are constants, the manifest's const_pattern).
(function_definition name: (word) @name) @definition.func
(program (variable_assignment name: (variable_name) @name) @definition.var)
(program (declaration_command (variable_assignment name: (variable_name) @name)) @definition.var)
