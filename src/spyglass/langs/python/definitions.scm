; Definitions: @definition.<kind> spans the whole definition, @name is its name.
(function_definition name: (identifier) @name) @definition.func
; A generic base (`class Request(Connection[StateT])`) is inheritance from the class it
; subscripts.
(class_definition
  name: (identifier) @name
  superclasses: (argument_list [(identifier) @base (attribute) @base
                                (subscript value: [(identifier) (attribute)] @base)])?) @definition.class
(module (expression_statement (assignment left: (identifier) @name) @definition.var))
(module (expression_statement (assignment left: (pattern_list (identifier) @name)) @definition.var))
(class_definition body: (block (expression_statement (assignment left: (identifier) @name) @definition.field)))
(module (if_statement consequence: (block (expression_statement (assignment left: (identifier) @name) @definition.var))))
(module (try_statement body: (block (expression_statement (assignment left: (identifier) @name) @definition.var))))
; @base of a module variable: its declared type or the class it is constructed from.
(module (expression_statement (assignment left: (identifier) @name type: (type) @base) @definition.var))
; A type alias (`X: TypeAlias = A | B`, also under `if TYPE_CHECKING:`; `type X = A | B`):
; @base is the type it stands for (the resolver aliases its members to each operand's).
(module (expression_statement (assignment
  left: (identifier) @name type: (type) @_alias right: (_) @base
  (#match? @_alias "(^|\\.)TypeAlias$")) @definition.var))
(module (if_statement consequence: (block (expression_statement (assignment
  left: (identifier) @name type: (type) @_alias right: (_) @base
  (#match? @_alias "(^|\\.)TypeAlias$")) @definition.var))))
(module (type_alias_statement left: (type (identifier) @name) right: (type) @base) @definition.var)
; An implicit type alias (`X = Union[A, B]`, `X = Optional[A]`, also under `if TYPE_CHECKING:`).
(module (expression_statement (assignment
  left: (identifier) @name
  right: (subscript value: [(identifier) (attribute)] @_union) @base
  (#match? @_union "(^|\\.)(Union|Optional)$")) @definition.var))
(module (if_statement consequence: (block (expression_statement (assignment
  left: (identifier) @name
  right: (subscript value: [(identifier) (attribute)] @_union) @base
  (#match? @_union "(^|\\.)(Union|Optional)$")) @definition.var))))

(module (expression_statement (assignment
  left: (identifier) @name
  right: (call function: [(identifier) (attribute)] @base)
  (#match? @base "(^|\\.)_*[A-Z][A-Za-z0-9_]*$")) @definition.var))
; @base of a function: its decorators, as written with their "@" (the resolver keeps the
; property-like ones), and its return type (no "@": the type of calling it or, for a
; property, of reading it).
(decorated_definition
  (decorator) @base
  definition: (function_definition name: (identifier) @name) @definition.func)
(function_definition name: (identifier) @name return_type: (type) @base) @definition.func
; Attributes assigned through `self` in `__init__` are fields of the class (@receiver names
; it); @base is their declared type or the class they are constructed from.
((class_definition name: (identifier) @receiver
   body: (block (function_definition
     name: (identifier) @_init
     body: (block (expression_statement
       (assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name))
         @definition.field)))))
 (#eq? @_init "__init__") (#eq? @_self "self"))
((class_definition name: (identifier) @receiver
   body: (block (function_definition
     name: (identifier) @_init
     body: (block (expression_statement
       (assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name)
         type: (type) @base) @definition.field)))))
 (#eq? @_init "__init__") (#eq? @_self "self"))
((class_definition name: (identifier) @receiver
   body: (block (function_definition
     name: (identifier) @_init
     body: (block (expression_statement
       (assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name)
         right: [(call function: [(identifier) (attribute)] @base)
                 (conditional_expression . (call function: [(identifier) (attribute)] @base))])
         @definition.field)))))
 (#eq? @_init "__init__") (#eq? @_self "self"))
; …or, assigned a parameter of `__init__` that declares its type (`self._stream = stream`
; with `stream: SyncByteStream`), that type.
((class_definition name: (identifier) @receiver
   body: (block (function_definition
     name: (identifier) @_init
     parameters: (parameters [(typed_parameter (identifier) @_param type: (type) @base)
                              (typed_default_parameter name: (identifier) @_param
                                                       type: (type) @base)])
     body: (block (expression_statement
       (assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name)
         right: (identifier) @_value) @definition.field)))))
 (#eq? @_init "__init__") (#eq? @_self "self") (#eq? @_param @_value))
; …or a copy of such a parameter (`self.routes = list(routes)`, `[] if routes is None else
; list(routes)`): the parameter's declared type, whose elements the copy holds.
((class_definition name: (identifier) @receiver
   body: (block (function_definition
     name: (identifier) @_init
     parameters: (parameters [(typed_parameter (identifier) @_param type: (type) @base)
                              (typed_default_parameter name: (identifier) @_param
                                                       type: (type) @base)])
     body: (block (expression_statement
       (assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name)
         right: [(call function: (identifier) @_copy
                       arguments: (argument_list . (identifier) @_value .))
                 (conditional_expression . (call function: (identifier) @_copy
                       arguments: (argument_list . (identifier) @_value .)))
                 (conditional_expression (call function: (identifier) @_copy
                       arguments: (argument_list . (identifier) @_value .)) .)])
         @definition.field)))))
 (#eq? @_init "__init__") (#eq? @_self "self") (#eq? @_param @_value)
 (#any-of? @_copy "list" "tuple" "sorted" "set" "frozenset"))
; @base of a class-body field: its declared type.
(class_definition body: (block (expression_statement
  (assignment left: (identifier) @name type: (type) @base) @definition.field)))
