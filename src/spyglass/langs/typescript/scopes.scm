; TypeScript scopes: functions, methods and arrows open a scope (block scoping of let and
; const is approximated by the enclosing function); so do classes, interfaces, type
; aliases and signatures, which hold type parameters and parameter names (function types
; are not scopes, so that `infer U` in their parameters reaches the conditional type). Class bodies
; and object literals are class scopes: their members are reached through `this` or the
; object, never bare. `this` is the manifest's self name.
[(function_declaration) (generator_function_declaration) (function_expression)
 (generator_function) (arrow_function) (method_definition)] @scope
[(class_declaration) (abstract_class_declaration) (class) (interface_declaration)
 (type_alias_declaration)] @scope
[(function_signature) (method_signature) (abstract_method_signature) (call_signature)
 (construct_signature) (index_signature)] @scope
(class_body) @scope.class
(object) @scope.class
; Scopes that bind `this` (arrow functions do not): inside one that is not a method or a
; class of the file's definitions (an object literal's method passed as an argument, a
; plain function), `this` has an unknown type, never the class around it.
[(function_declaration) (generator_function_declaration) (function_expression)
 (generator_function) (method_definition) (class)] @scope.self

; Type parameters, mapped-type keys and `infer` variables.
(type_parameter name: (type_identifier) @local.definition)
(mapped_type_clause name: (type_identifier) @local.definition)
(infer_type (type_identifier) @local.definition)

; Parameters, including destructuring patterns and defaults.
(required_parameter pattern: (identifier) @local.definition)
(optional_parameter pattern: (identifier) @local.definition)
(assignment_pattern left: (identifier) @local.definition)
(arrow_function parameter: (identifier) @local.definition)
(object_pattern (shorthand_property_identifier_pattern) @local.definition)
(object_pattern (object_assignment_pattern left: (shorthand_property_identifier_pattern) @local.definition))
(object_pattern (pair_pattern value: (identifier) @local.definition))
(array_pattern (identifier) @local.definition)
; include: _ecma/scopes-variables

; A type parameter's constraint is its type (`<T extends Schema>`: `s: T` reaches
; Schema's members; an intersection `T extends A & B` reaches either's), as it is for the
; bases of fields and methods typed with it (syntax/extract.py substitutes it there).
(type_parameter name: (type_identifier) @local.definition
  constraint: (constraint [(type_identifier) (nested_type_identifier) (generic_type)
                           (intersection_type) (union_type) (parenthesized_type)] @local.type))

; A declared `this` parameter (`function f(this: Window)`, `m(this: Api)`) types `this` in
; that function, before the class or object around it.
(required_parameter pattern: (this) @local.definition
  type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)
                          (intersection_type) (union_type) (parenthesized_type)] @local.type))

; Typed locals (@local.type): a parameter's or local variable's declared type, or the class
; a local is constructed from, so that `x.m()` resolves to Type.m (inferred). Typed object
; literals are definitions instead (definitions.scm), and module-level variables reach
; their type through the resolver's instance alias.
(required_parameter pattern: (identifier) @local.definition
  type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)
                          (intersection_type) (union_type) (parenthesized_type)] @local.type))
(optional_parameter pattern: (identifier) @local.definition
  type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)
                          (intersection_type) (union_type) (parenthesized_type)] @local.type))
(statement_block [
  (lexical_declaration (variable_declarator name: (identifier) @local.definition
    type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)
                          (intersection_type) (union_type) (parenthesized_type)] @local.type)
    !value))
  (variable_declaration (variable_declarator name: (identifier) @local.definition
    type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)
                          (intersection_type) (union_type) (parenthesized_type)] @local.type)
    !value))])
((statement_block [
  (lexical_declaration (variable_declarator name: (identifier) @local.definition
    type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)
                          (intersection_type) (union_type) (parenthesized_type)] @local.type)
    value: (_) @_value))
  (variable_declaration (variable_declarator name: (identifier) @local.definition
    type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)
                          (intersection_type) (union_type) (parenthesized_type)] @local.type)
    value: (_) @_value))])
 (#not-match? @_value "^\\{"))
(statement_block [
  (lexical_declaration (variable_declarator name: (identifier) @local.definition
    value: (new_expression constructor: [(identifier) (member_expression)] @local.type)))
  (variable_declaration (variable_declarator name: (identifier) @local.definition
    value: (new_expression constructor: [(identifier) (member_expression)] @local.type)))])
; A local set from a type assertion (`const el = e.target as Element`, also in a `for`
; header) has the asserted type, as tsc gives it.
(statement_block [
  (lexical_declaration (variable_declarator name: (identifier) @local.definition
    !type value: (as_expression (_) [(type_identifier) (nested_type_identifier) (generic_type)] @local.type)))
  (variable_declaration (variable_declarator name: (identifier) @local.definition
    !type value: (as_expression (_) [(type_identifier) (nested_type_identifier) (generic_type)] @local.type)))])
(for_statement initializer: [
  (lexical_declaration (variable_declarator name: (identifier) @local.definition
    !type value: (as_expression (_) [(type_identifier) (nested_type_identifier) (generic_type)] @local.type)))
  (variable_declaration (variable_declarator name: (identifier) @local.definition
    !type value: (as_expression (_) [(type_identifier) (nested_type_identifier) (generic_type)] @local.type)))])
; A receiver declared or cast with a predefined type (`x: string`, `p = y as any`) has no
; project members (the manifest lists these type names as builtins): never a name match.
(required_parameter pattern: (identifier) @local.definition
  type: (type_annotation (predefined_type) @local.type))
(optional_parameter pattern: (identifier) @local.definition
  type: (type_annotation (predefined_type) @local.type))
(statement_block [
  (lexical_declaration (variable_declarator name: (identifier) @local.definition
    type: (type_annotation (predefined_type) @local.type)))
  (variable_declaration (variable_declarator name: (identifier) @local.definition
    type: (type_annotation (predefined_type) @local.type)))
  (lexical_declaration (variable_declarator name: (identifier) @local.definition
    value: (as_expression (predefined_type) @local.type)))
  (variable_declaration (variable_declarator name: (identifier) @local.definition
    value: (as_expression (predefined_type) @local.type)))])
; An array's element type stands for the array in member lookups (`signals: AbortSignal[]`:
; `signals.map` is a builtin's member, never a project name match; wrong only where a
; project element type defines an Array method's name), and a `for … of` variable over a
; typed local has that element type (manifest type_unwrap strips the `[]`).
(required_parameter pattern: (identifier) @local.definition
  type: (type_annotation (array_type) @local.type))
(optional_parameter pattern: (identifier) @local.definition
  type: (type_annotation (array_type) @local.type))
(for_in_statement left: (identifier) @local.definition operator: "of" right: (identifier) @local.type)
; The first parameter of an untyped callback of an array method has the element type
; too (`queries.forEach((q) => q.reset())`, like `for (const q of queries)`), also over
; what a method returns (`this.getAll().forEach(…)`: its declared return type, as for
; `const all = this.getAll()`).
((call_expression
   function: (member_expression object: (call_expression function: (member_expression) @local.type
                                                         arguments: (arguments . ")"))
                                property: (property_identifier) @_iterate)
   arguments: (arguments . (arrow_function parameter: (identifier) @local.definition)))
 (#match? @_iterate "^(forEach|map|flatMap|filter|find|findLast|findIndex|findLastIndex|some|every)$"))
((call_expression
   function: (member_expression object: (call_expression function: (member_expression) @local.type
                                                         arguments: (arguments . ")"))
                                property: (property_identifier) @_iterate)
   arguments: (arguments . (arrow_function parameters: (formal_parameters
     . (required_parameter pattern: (identifier) @local.definition !type)))))
 (#match? @_iterate "^(forEach|map|flatMap|filter|find|findLast|findIndex|findLastIndex|some|every)$"))
((call_expression
   function: (member_expression object: [(identifier) (member_expression)] @local.type
                                property: (property_identifier) @_iterate)
   arguments: (arguments . (arrow_function parameter: (identifier) @local.definition)))
 (#match? @_iterate "^(forEach|map|flatMap|filter|find|findLast|findIndex|findLastIndex|some|every)$"))
((call_expression
   function: (member_expression object: [(identifier) (member_expression)] @local.type
                                property: (property_identifier) @_iterate)
   arguments: (arguments . (arrow_function parameters: (formal_parameters
     . (required_parameter pattern: (identifier) @local.definition !type)))))
 (#match? @_iterate "^(forEach|map|flatMap|filter|find|findLast|findIndex|findLastIndex|some|every)$"))
; An array literal of named values whose every element the callback is given in turn
; (`[A, B].forEach(K => K.create())`): the parameter is each element (syntax/composite.py
; each_of); only for the methods that visit every element (`find`, `some`: not all).
((call_expression
   function: (member_expression object: (array) @local.type
                                property: (property_identifier) @_iterate)
   arguments: (arguments . (arrow_function parameter: (identifier) @local.definition)))
 (#match? @_iterate "^(forEach|map|flatMap|filter)$"))
((call_expression
   function: (member_expression object: (array) @local.type
                                property: (property_identifier) @_iterate)
   arguments: (arguments . (arrow_function parameters: (formal_parameters
     . (required_parameter pattern: (identifier) @local.definition !type)))))
 (#match? @_iterate "^(forEach|map|flatMap|filter)$"))
; A local set from a call of a named function has the type the function returns
; (`f.*`, mapped by the resolver when f declares its return type).
(statement_block [
  (lexical_declaration (variable_declarator name: (identifier) @local.definition
    value: (call_expression function: (identifier) @local.type)))
  (variable_declaration (variable_declarator name: (identifier) @local.definition
    value: (call_expression function: (identifier) @local.type)))])
; A local set from a typed local or its member has its type (manifest `typed_member_paths`):
; `const s = opts.signal` with `opts: Options` is Options.signal, `const t = s` too.
(statement_block [
  (lexical_declaration (variable_declarator name: (identifier) @local.definition
    value: [(member_expression) (identifier)] @local.type))
  (variable_declaration (variable_declarator name: (identifier) @local.definition
    value: [(member_expression) (identifier)] @local.type))])
; A name destructured from a typed local or its member (`const { router } = opts`) has
; the type of that member (`opts.router`; the extractor appends the key).
(statement_block [
  (lexical_declaration (variable_declarator
    name: (object_pattern [(shorthand_property_identifier_pattern) @local.definition
                           (pair_pattern key: (property_identifier) value: (identifier) @local.definition)])
    value: [(member_expression) (identifier)] @local.type))
  (variable_declaration (variable_declarator
    name: (object_pattern [(shorthand_property_identifier_pattern) @local.definition
                           (pair_pattern key: (property_identifier) value: (identifier) @local.definition)])
    value: [(member_expression) (identifier)] @local.type))])
; So has a name destructured from a typed parameter (`function f({ router }: Opts)`).
(required_parameter
  pattern: (object_pattern [(shorthand_property_identifier_pattern) @local.definition
                            (pair_pattern key: (property_identifier) value: (identifier) @local.definition)])
  type: (type_annotation [(type_identifier) (nested_type_identifier) (generic_type)
                          (intersection_type) (union_type) (parenthesized_type)] @local.type))
; A local set from a method call on a typed local (`const c = client.getCache()`): the
; method's declared return type (`Client.getCache.*`, mapped by the resolver).
(statement_block [
  (lexical_declaration (variable_declarator name: (identifier) @local.definition
    value: (call_expression function: (member_expression) @local.type)))
  (variable_declaration (variable_declarator name: (identifier) @local.definition
    value: (call_expression function: (member_expression) @local.type)))])
