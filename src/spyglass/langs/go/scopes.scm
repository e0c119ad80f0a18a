; Go scopes: functions, methods and closures open a scope (block scoping is approximated
; by the enclosing function). @local.self binds a method's receiver name, so `c.Foo()`
; in a method of *Command resolves to Command.Foo. Type declarations are class scopes:
; they hold their type parameters and members, never visible bare from methods.
(function_declaration) @scope
(method_declaration) @scope
(func_literal) @scope
; A `for` statement and a `select` case scope the variables they declare (`for _, m :=
; range ms`, `case x := <-ch:`), so two loops may bind the same name to different types.
(for_statement) @scope
(communication_case) @scope
(type_spec) @scope.class

(method_declaration receiver: (parameter_list (parameter_declaration name: (identifier) @local.self)))
(function_declaration parameters: (parameter_list (parameter_declaration name: (identifier) @local.definition)))
(function_declaration parameters: (parameter_list (variadic_parameter_declaration name: (identifier) @local.definition)))
(function_declaration result: (parameter_list (parameter_declaration name: (identifier) @local.definition)))
(method_declaration parameters: (parameter_list (parameter_declaration name: (identifier) @local.definition)))
(method_declaration parameters: (parameter_list (variadic_parameter_declaration name: (identifier) @local.definition)))
(method_declaration result: (parameter_list (parameter_declaration name: (identifier) @local.definition)))
(func_literal parameters: (parameter_list (parameter_declaration name: (identifier) @local.definition)))
(func_literal parameters: (parameter_list (variadic_parameter_declaration name: (identifier) @local.definition)))
(func_literal result: (parameter_list (parameter_declaration name: (identifier) @local.definition)))
(type_parameter_declaration name: (identifier) @local.definition)
; Receiver type parameters: `func (l *List[T]) Len()`.
(method_declaration receiver: (parameter_list (parameter_declaration type: [
  (generic_type type_arguments: (type_arguments (type_elem (type_identifier) @local.definition)))
  (pointer_type (generic_type type_arguments: (type_arguments (type_elem (type_identifier) @local.definition))))])))

(short_var_declaration left: (expression_list (identifier) @local.definition))
(range_clause left: (expression_list (identifier) @local.definition))
(receive_statement left: (expression_list (identifier) @local.definition))
(type_switch_statement alias: (expression_list (identifier) @local.definition))
(statement_list (var_declaration (var_spec name: (identifier) @local.definition)))
(statement_list (var_declaration (var_spec_list (var_spec name: (identifier) @local.definition))))
(statement_list (const_declaration (const_spec (identifier) @local.definition)))

; Typed locals (@local.type): a parameter's or variable's declared type, or the struct a
; composite literal builds (`x := &T{}`), so `x.M()` resolves to T.M (inferred). Only a
; single name on the left: `a, b := X{}, Y{}` stays untyped rather than mismatched.
(parameter_declaration name: (identifier) @local.definition
  type: [(type_identifier) (qualified_type) (pointer_type)] @local.type)
(var_spec name: (identifier) @local.definition
  type: [(type_identifier) (qualified_type) (pointer_type)] @local.type)
(short_var_declaration
  left: (expression_list . (identifier) @local.definition .)
  right: (expression_list . (composite_literal type: [(type_identifier) (qualified_type)] @local.type) .))
(short_var_declaration
  left: (expression_list . (identifier) @local.definition .)
  right: (expression_list . (unary_expression operator: "&"
    operand: (composite_literal type: [(type_identifier) (qualified_type)] @local.type)) .))
; A type assertion (`a := x.(Any)`, `w, ok := x.(*T)`) holds the asserted type; so does the
; value a converted pointer points to (`a := *(*Any)(p)`).
; Not `m, ok := m.X().(T)`: the right side's `m` is the outer one, whose member is used.
((short_var_declaration
  left: (expression_list . (identifier) @local.definition)
  right: (expression_list . (type_assertion_expression
    operand: [(identifier) (selector_expression operand: (identifier))] @_operand
    type: [(type_identifier) (qualified_type) (pointer_type)] @local.type) .))
 (#not-eq? @_operand @local.definition))
(short_var_declaration
  left: (expression_list . (identifier) @local.definition .)
  right: (expression_list . (unary_expression operator: "*"
    operand: (call_expression function: (parenthesized_expression
      (unary_expression operator: "*" operand: [(identifier) (selector_expression)] @local.type)))) .))
; `make([]T, n)`, `make(map[K]T)`, `make(chan T)` build a container of T (before the
; call-result rule below, which would take `make` for a function).
((short_var_declaration
  left: (expression_list . (identifier) @local.definition .)
  right: (expression_list . (call_expression function: (identifier) @_make
    arguments: (argument_list . [(slice_type element: (_) @local.type)
                                 (map_type value: (_) @local.type)
                                 (channel_type value: (_) @local.type)])) .))
 (#eq? @_make "make"))
((var_spec name: (identifier) @local.definition .
  value: (expression_list . (call_expression function: (identifier) @_make
    arguments: (argument_list . [(slice_type element: (_) @local.type)
                                 (map_type value: (_) @local.type)
                                 (channel_type value: (_) @local.type)])) .))
 (#eq? @_make "make"))
; `new(T)` is a *T (before the call-result rule, which would take `new` for a function).
((short_var_declaration
  left: (expression_list . (identifier) @local.definition .)
  right: (expression_list . (call_expression function: (identifier) @_new
    arguments: (argument_list . [(type_identifier) (qualified_type)] @local.type .)) .))
 (#eq? @_new "new"))
((var_spec name: (identifier) @local.definition .
  value: (expression_list . (call_expression function: (identifier) @_new
    arguments: (argument_list . [(type_identifier) (qualified_type)] @local.type .)) .))
 (#eq? @_new "new"))
; A variable set from a call (`x := NewT()`, `x, err := pkg.Open()`, `var x = f()`) has the
; called function's name as its type; the function's result type (its @base, an alias
; `f.*` → `Type.*`) carries `x.M()` on to Type.M.
(short_var_declaration
  left: (expression_list . (identifier) @local.definition)
  right: (expression_list . (call_expression function: [(identifier) (selector_expression)] @local.type) .))
(var_spec name: (identifier) @local.definition .
  value: (expression_list . (call_expression function: [(identifier) (selector_expression)] @local.type) .))

; Containers stand for their element type (`[]T`, `map[K]T`, `chan T`, `make(chan T)`): the
; value variable of a `range` (the second, or the only one) and a received value (`x :=
; <-ch`, `case x := <-ch:`) get the element type of what they range over or receive from.
(parameter_declaration name: (identifier) @local.definition
  type: [(slice_type element: (_) @local.type) (map_type value: (_) @local.type)
         (channel_type value: (_) @local.type)])
(var_spec name: (identifier) @local.definition
  type: [(slice_type element: (_) @local.type) (map_type value: (_) @local.type)
         (channel_type value: (_) @local.type)])
(range_clause left: (expression_list (identifier) . (identifier) @local.definition)
  right: [(identifier) (selector_expression)] @local.type)
; A literal of a container type (`cases := []struct{…}{…}`, `tests := map[string]T{…}`,
; `for _, tc := range []T{…}`) holds elements of T; a struct written in place has its
; fields' declared types (manifest `anonymous_structs`), as table-driven tests use them.
(short_var_declaration
  left: (expression_list . (identifier) @local.definition .)
  right: (expression_list . (composite_literal type: [(slice_type element: (_) @local.type)
    (array_type element: (_) @local.type)
    (implicit_length_array_type element: (_) @local.type) (map_type value: (_) @local.type)]) .))
(var_spec name: (identifier) @local.definition .
  value: (expression_list . (composite_literal type: [(slice_type element: (_) @local.type)
    (array_type element: (_) @local.type)
    (implicit_length_array_type element: (_) @local.type) (map_type value: (_) @local.type)]) .))
(range_clause left: (expression_list (identifier) . (identifier) @local.definition)
  right: (composite_literal type: [(slice_type element: (_) @local.type)
    (array_type element: (_) @local.type)
    (implicit_length_array_type element: (_) @local.type) (map_type value: (_) @local.type)]))
(range_clause left: (expression_list . (identifier) @local.definition .)
  right: [(identifier) (selector_expression)] @local.type)
(short_var_declaration
  left: (expression_list . (identifier) @local.definition .)
  right: (expression_list . (unary_expression operator: "<-"
    operand: [(identifier) (selector_expression)] @local.type) .))
(receive_statement left: (expression_list . (identifier) @local.definition .)
  right: (unary_expression operator: "<-" operand: [(identifier) (selector_expression)] @local.type))

; A type switch's case of one type (`switch v := x.(type) { case *T: … }`): in that case
; v is a T (manifest `flow_types`); a case of several types (v keeps x's type) narrows
; nothing, nor does `default`.
(type_switch_statement
  alias: (expression_list . (identifier) @local.narrow .)
  (type_case type: [(type_identifier) (qualified_type) (pointer_type)] @local.type)
    @local.narrow.block)
