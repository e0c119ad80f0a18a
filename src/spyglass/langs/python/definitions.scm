; Definitions: @definition.<kind> spans the whole definition, @name is its name.
(function_definition name: (identifier) @name) @definition.func
(class_definition
  name: (identifier) @name
  superclasses: (argument_list [(identifier) (attribute)] @base)?) @definition.class
(module (expression_statement (assignment left: (identifier) @name) @definition.var))
(module (expression_statement (assignment left: (pattern_list (identifier) @name)) @definition.var))
(class_definition body: (block (expression_statement (assignment left: (identifier) @name) @definition.field)))
(module (if_statement consequence: (block (expression_statement (assignment left: (identifier) @name) @definition.var))))
(module (try_statement body: (block (expression_statement (assignment left: (identifier) @name) @definition.var))))
