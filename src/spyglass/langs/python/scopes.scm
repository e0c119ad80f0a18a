; Scopes: @scope opens a function scope, @scope.class a class body;
; @local.definition binds a name in the innermost scope; @local.global declares a name non-local.
(function_definition) @scope
(lambda) @scope
[(list_comprehension) (set_comprehension) (dictionary_comprehension) (generator_expression)] @scope
(class_definition) @scope.class
; @local.parameter: a parameter without a type annotation (its value comes from callers;
; nothing says what it holds). `self`/`cls` are the manifest's self_names.
((parameters (identifier) @local.parameter) (#not-any-of? @local.parameter "self" "cls"))
((parameters (identifier) @local.definition) (#any-of? @local.definition "self" "cls"))
(parameters (default_parameter name: (identifier) @local.parameter))
(parameters (typed_parameter (identifier) @local.definition))
(parameters (typed_default_parameter name: (identifier) @local.definition))
(parameters (list_splat_pattern (identifier) @local.parameter))
(parameters (dictionary_splat_pattern (identifier) @local.parameter))
(lambda_parameters (identifier) @local.parameter)
(lambda_parameters (default_parameter name: (identifier) @local.parameter))
(assignment left: (identifier) @local.definition)
(assignment left: (pattern_list (identifier) @local.definition))
(assignment left: (tuple_pattern (identifier) @local.definition))
(augmented_assignment left: (identifier) @local.definition)
(for_statement left: (identifier) @local.definition)
(for_statement left: (pattern_list (identifier) @local.definition))
(for_statement left: (tuple_pattern (identifier) @local.definition))
(for_in_clause left: (identifier) @local.definition)
(for_in_clause left: (pattern_list (identifier) @local.definition))
(for_in_clause left: (tuple_pattern (identifier) @local.definition))
(with_item value: (as_pattern alias: (as_pattern_target (identifier) @local.definition)))
(except_clause (as_pattern alias: (as_pattern_target (identifier) @local.definition)))
(named_expression name: (identifier) @local.definition)
(global_statement (identifier) @local.global)
(nonlocal_statement (identifier) @local.nonlocal)
; Typed bindings: @local.type is a name's declared type or the class it is constructed from
; (a call of a capitalised name); @local.member is an attribute set through `self`.
(assignment left: (identifier) @local.definition type: (type) @local.type)
(assignment
  left: (identifier) @local.definition
  right: (call function: [(identifier) (attribute)] @local.type)
  (#match? @local.type "(^|\\.)_*[A-Z][A-Za-z0-9_]*$"))
; A generic class constructed with its type arguments (`req = Request[State](scope)`): the class.
(assignment
  left: (identifier) @local.definition
  right: (call function: (subscript value: [(identifier) (attribute)] @local.type))
  (#match? @local.type "(^|\\.)_*[A-Z][A-Za-z0-9_]*$"))
; A call of a method of the same class (`x = self.m()`): the method's return type.
(assignment
  left: (identifier) @local.definition
  right: [(call function: (attribute object: (identifier) @_self) @local.type)
          (await (call function: (attribute object: (identifier) @_self) @local.type))]
  (#eq? @_self "self"))
(assignment
  left: (identifier) @local.definition
  right: (call function: [(identifier) (attribute)] @local.type))
; An attribute of a name (`base = boundary.version`, `boundary: Boundary`): the attribute's
; path, which its declared or assigned type carries on (manifest `typed_member_paths`).
((assignment
  left: (identifier) @local.definition
  right: (attribute object: (identifier) @_obj) @local.type)
 (#not-eq? @_obj "self"))
; A call of a call's result (`enc = codecs.getincrementalencoder(name)()`): typed by the
; inner callee, as the call chain `f()().m` is (the resolver collapses calls alike).
(assignment
  left: (identifier) @local.definition
  right: (call function: (call function: [(identifier) (attribute)] @local.type)))
; A literal or comprehension: its builtin type (manifest `literal_types`).
(assignment
  left: (identifier) @local.definition
  right: [(list) (list_comprehension) (dictionary) (dictionary_comprehension) (set)
          (set_comprehension) (tuple) (string) (concatenated_string)] @local.type)
(assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @local.member)
  right: [(list) (list_comprehension) (dictionary) (dictionary_comprehension) (set)
          (set_comprehension) (tuple) (string) (concatenated_string)] @local.type
  (#eq? @_self "self"))
(typed_parameter (identifier) @local.definition type: (type) @local.type)
(typed_default_parameter name: (identifier) @local.definition type: (type) @local.type)
(assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @local.member)
  type: (type) @local.type
  (#eq? @_self "self"))
(assignment
  left: (attribute object: (identifier) @_self attribute: (identifier) @local.member)
  right: (call function: [(identifier) (attribute)] @local.type)
  (#eq? @_self "self")
  (#match? @local.type "(^|\\.)_*[A-Z][A-Za-z0-9_]*$"))
(class_definition body: (block (expression_statement
  (assignment left: (identifier) @local.member type: (type) @local.type))))
(with_item value: (as_pattern
  (call function: [(identifier) (attribute)] @local.type)
  alias: (as_pattern_target (identifier) @local.definition))
  (#match? @local.type "(^|\\.)_*[A-Z][A-Za-z0-9_]*$"))
; `with f() as x`: what the call returns (a `@contextmanager` function: what it yields).
(with_item value: (as_pattern
  (call function: [(identifier) (attribute)] @local.type)
  alias: (as_pattern_target (identifier) @local.definition)))
; A type test guarding a block (`if isinstance(x, str):`, `elif …`, `a if isinstance(x, T)
; else b`): there x is a T (manifest `flow_types`; several types narrow when all builtins).
(_  ; an `if` or an `elif` (the nodes with a condition and a consequence)
  condition: (call function: (identifier) @_isinstance
    arguments: (argument_list . (identifier) @local.narrow
                 . [[(identifier) (attribute)] @local.type
                    (tuple [(identifier) (attribute)] @local.type)]))
  consequence: (block) @local.narrow.block
  (#eq? @_isinstance "isinstance"))
(conditional_expression
  . (_) @local.narrow.block
  . (call function: (identifier) @_isinstance
      arguments: (argument_list . (identifier) @local.narrow . [(identifier) (attribute)] @local.type))
  (#eq? @_isinstance "isinstance"))
; Element types (manifest `element_types`): a loop or comprehension target has the type
; of what its iterable yields; a local list's element type is what it is given by append.
(for_statement left: (_) @local.element.target right: (_) @local.element)
(for_in_clause left: (_) @local.element.target right: (_) @local.element)
(expression_statement (call
  function: (attribute object: (identifier) @local.appended attribute: (identifier) @_append)
  arguments: (argument_list . (_) @local.appended.value .))
  (#eq? @_append "append"))
; A local set from a self member (`c = self.client`): the member's type in this file.
(assignment
  left: (identifier) @local.read.name
  right: (attribute object: (identifier) @_self attribute: (identifier) @local.read)
  (#eq? @_self "self"))
