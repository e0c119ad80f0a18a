; TypeScript definitions. @definition.<kind> spans the whole definition, @name is its name;
; members nest under their class, interface, enum or namespace by byte-range containment.
; @base records `extends` / `implements` types (one match per type; the engine merges
; them). Re-exports (`export default x`, `export {a as b}`) are in imports.scm.

; A function's declared return type is its @base: the resolver maps the members of what it
; returns (`f.*`) to the type's, for `const x = f(); x.m()` and `return { m() {} }`. A
; union or intersection (`A | undefined`, `A & B`) is read as one composite type
; (manifest `type_operators`, syntax/composite.py): the resolver aliases each operand.
(function_declaration name: (identifier) @name
  return_type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base])) @definition.func
(function_declaration name: (identifier) @name) @definition.func
(generator_function_declaration name: (identifier) @name) @definition.func
(function_signature name: (identifier) @name) @definition.func

; Classes: base-capturing patterns first (lowest pattern wins the kind, bases merge).
(class_declaration name: (type_identifier) @name
  (class_heritage (extends_clause value: [(identifier) (member_expression)] @base))) @definition.class
(class_declaration name: (type_identifier) @name
  (class_heritage (implements_clause [(type_identifier) (nested_type_identifier)] @base))) @definition.class
(class_declaration name: (type_identifier) @name
  (class_heritage (implements_clause (generic_type) @base))) @definition.class
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name
  (class_heritage (extends_clause value: [(identifier) (member_expression)] @base))) @definition.class
(abstract_class_declaration name: (type_identifier) @name
  (class_heritage (implements_clause [(type_identifier) (nested_type_identifier)] @base))) @definition.class
(abstract_class_declaration name: (type_identifier) @name
  (class_heritage (implements_clause (generic_type) @base))) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class

(interface_declaration name: (type_identifier) @name
  (extends_type_clause type: [(type_identifier) (nested_type_identifier)] @base)) @definition.interface
(interface_declaration name: (type_identifier) @name
  (extends_type_clause type: (generic_type) @base)) @definition.interface
(interface_declaration name: (type_identifier) @name) @definition.interface
; A type alias's value is its @base (`type AnyBuilder = Builder<any>`), so that members
; reached through the alias are the aliased type's members.
(type_alias_declaration name: (type_identifier) @name
  value: [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base)]) @definition.type
; A union's operands are its bases too (`type Stream = Reader | Writer`: a member of either).
(type_alias_declaration name: (type_identifier) @name
  value: (union_type [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base])) @definition.type
(type_alias_declaration name: (type_identifier) @name
  value: (union_type (union_type [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base]))) @definition.type
(type_alias_declaration name: (type_identifier) @name
  value: (intersection_type [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base)])) @definition.type
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(enum_body name: (property_identifier) @name @definition.const)
(enum_assignment name: (property_identifier) @name) @definition.const
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module
(module name: [(identifier) (nested_identifier)] @name) @definition.module
(module name: (string (string_fragment) @name)) @definition.module

; Anonymous default exports define the module's `default` (named ones are aliases).
(export_statement "default" @name value: [(function_expression) (arrow_function) (generator_function)] @definition.func)
(export_statement "default" @name value: (class) @definition.class)
(export_statement "default" @name value: [(object) (call_expression) (new_expression) (array) (as_expression) (satisfies_expression)] @definition.var)

; Class, interface and object-type members.
; A method's declared return type is its @base, as for functions (`c.getCache().clear()`).
(class_body (method_definition name: [(property_identifier) (private_property_identifier)] @name
  return_type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base])) @definition.method)
; A method without a declared return type whose body ends by returning a constructed
; class (`$pos(n) { …; return new NodePos(…) }`) returns that class, as tsc infers it —
; only where that is the body's one `return` (another may return another type).
((class_body (method_definition name: [(property_identifier) (private_property_identifier)] @name
  !return_type
  body: (statement_block (return_statement (new_expression constructor: [(identifier) (member_expression)] @base)) .) @_body) @definition.method)
 (#not-match? @_body "\\breturn\\b[\\s\\S]*\\breturn\\b"))
; A method returning `this` (a fluent builder) returns its own class.
(class_body (method_definition name: [(property_identifier) (private_property_identifier)] @name
  return_type: (type_annotation (this_type) @base)) @definition.method)
; So does one without a declared return type whose body ends by returning `this` and
; whose every other `return` returns `this` too (`mul(t) { …; return this }`), as tsc
; infers `this`; a `return` of anything else (`return this.x`, a nested callback's
; `return v`) leaves it without a return type.
((class_body (method_definition name: [(property_identifier) (private_property_identifier)] @name
  !return_type
  body: (statement_block (return_statement (this) @base) .) @_body) @definition.method)
 (#not-match? @_body "\\breturn\\b(?!\\s*this\\s*(?:;|\\n|\\}|$))"))
(class_body (method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method)
; A `get` accessor: reading it runs it, so a read is a call (tsc's call hierarchy counts
; `editor.isEditable` as an incoming call of `get isEditable()`); @property marks it.
(class_body (method_definition "get" @property name: [(property_identifier) (private_property_identifier)] @name) @definition.method)
(class_body (method_signature name: [(property_identifier) (private_property_identifier)] @name) @definition.method)
(class_body (abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name) @definition.method)
; A field's or variable's declared type (or the class it is constructed from) is its
; @base (an array's element type stands for the array, as for typed locals); the resolver turns it into an alias `C.field.*` → `Type.*`, so that
; `this.field.m()` reaches Type.m.
(class_body (public_field_definition name: [(property_identifier) (private_property_identifier)] @name
  type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base])) @definition.field)
(class_body (public_field_definition name: [(property_identifier) (private_property_identifier)] @name
  value: (new_expression constructor: [(identifier) (member_expression)] @base)) @definition.field)
(class_body (public_field_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.field)
; Constructor parameter properties (`constructor(private readonly db: Db)`) are fields.
((_ name: (type_identifier) @receiver
   body: (class_body (method_definition
     parameters: (formal_parameters [
       (required_parameter pattern: (identifier) @name type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base])?) @definition.field
       (optional_parameter pattern: (identifier) @name type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base])?) @definition.field]))))
 (#match? @definition.field "^(public|private|protected|readonly|override)\\s"))
(method_signature name: (property_identifier) @name
  return_type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base])) @definition.method
(method_signature name: (property_identifier) @name) @definition.method
; A property's declared type is its @base, as for class fields (`input: Transformer`).
(property_signature name: (property_identifier) @name
  type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base])) @definition.field
(property_signature name: (property_identifier) @name) @definition.field

; Class expressions held by a variable (`const Widget = class extends Base { … }`, also in a
; function body): a class whose members `this` reaches, with the base they inherit from.
(program [
  (lexical_declaration (variable_declarator name: (identifier) @name
    value: (class (class_heritage (extends_clause value: [(identifier) (member_expression)] @base)))) @definition.class)
  (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name
    value: (class (class_heritage (extends_clause value: [(identifier) (member_expression)] @base)))) @definition.class))])
(statement_block (lexical_declaration (variable_declarator name: (identifier) @name
  value: (class (class_heritage (extends_clause value: [(identifier) (member_expression)] @base)))) @definition.class))
(statement_block (lexical_declaration (variable_declarator name: (identifier) @name value: (class)) @definition.class))

; A module-level arrow or function expression's declared return type is its @base, as for
; function declarations (`export const createStore = (): Store => …`).
(program [
  (lexical_declaration (variable_declarator name: (identifier) @name
    value: [(arrow_function return_type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base]))
            (function_expression return_type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base]))]) @definition.func)
  (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name
    value: [(arrow_function return_type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base]))
            (function_expression return_type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base]))]) @definition.func))])

; A module-level arrow function without a declared return type whose body is one
; construction (`const wide = () => new Stadium(…)`) returns that class, as tsc infers it;
; so does a function whose body is only `return new C(…)`. A body with other statements
; may return something else on another path: it is left without a return type.
(program [
  (lexical_declaration (variable_declarator name: (identifier) @name
    value: (arrow_function !return_type body: (new_expression constructor: [(identifier) (member_expression)] @base))) @definition.func)
  (variable_declaration (variable_declarator name: (identifier) @name
    value: (arrow_function !return_type body: (new_expression constructor: [(identifier) (member_expression)] @base))) @definition.func)
  (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name
    value: (arrow_function !return_type body: (new_expression constructor: [(identifier) (member_expression)] @base))) @definition.func))])
(function_declaration name: (identifier) @name !return_type
  body: (statement_block . (return_statement (new_expression constructor: [(identifier) (member_expression)] @base)) .)) @definition.func

; include: _ecma/definitions-module-variables

; Typed module-level variables: `export const registry: Registry = …`, `const r = new Registry()`.
(program [
  (lexical_declaration (variable_declarator name: (identifier) @name type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base])) @definition.var)
  (variable_declaration (variable_declarator name: (identifier) @name type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base])) @definition.var)
  (export_statement declaration: (lexical_declaration
    (variable_declarator name: (identifier) @name type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base])) @definition.var))
  (lexical_declaration (variable_declarator name: (identifier) @name value: (new_expression constructor: [(identifier) (member_expression)] @base)) @definition.var)
  (variable_declaration (variable_declarator name: (identifier) @name value: (new_expression constructor: [(identifier) (member_expression)] @base)) @definition.var)
  (export_statement declaration: (lexical_declaration
    (variable_declarator name: (identifier) @name value: (new_expression constructor: [(identifier) (member_expression)] @base)) @definition.var))])

; A module-level array literal of names (`const handlers = [json, form]`): its elements
; are its @base, marked (syntax/composite.py `[=]`) — the resolver follows them only to
; the file's own typed constants, so that `handlers.find((h) => h.isMatch(r))` reaches
; their declared type's member.
(program [
  (lexical_declaration (variable_declarator name: (identifier) @name value: (array (identifier) @base)) @definition.var)
  (variable_declaration (variable_declarator name: (identifier) @name value: (array (identifier) @base)) @definition.var)
  (export_statement declaration: (lexical_declaration
    (variable_declarator name: (identifier) @name value: (array (identifier) @base)) @definition.var))])

; Typed object literals in function bodies (`const self: Observable<T> = { … }`) define
; f.self: their members implement the declared type's members, as at module level.
(statement_block [
  (lexical_declaration (variable_declarator name: (identifier) @name
    type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base])
    value: (object)) @definition.var)
  (variable_declaration (variable_declarator name: (identifier) @name
    type: (type_annotation [(type_identifier) @base (nested_type_identifier) @base (generic_type) @base (array_type [(type_identifier) (nested_type_identifier) (generic_type)] @base) (union_type) @base (intersection_type) @base (parenthesized_type) @base])
    value: (object)) @definition.var)])

; Methods of object literals that are assigned or exported: `const api = { get() {} }`
; defines api.get (scopes.scm makes such objects class scopes, so they bind no bare names).
; A property holding a function (`{ get: () => 1 }`) is a field, as tsc says: calling an
; interface member it implements does not call it (query/related.py).
(variable_declarator value: (object (method_definition name: (property_identifier) @name) @definition.method))
(assignment_expression right: (object (method_definition name: (property_identifier) @name) @definition.method))
(export_statement value: (object (method_definition name: (property_identifier) @name) @definition.method))
(variable_declarator value: (object (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.field))
(assignment_expression right: (object (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.field))
(export_statement value: (object (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.field))

; Members of a returned object literal: `return { add() {} }` in f defines f.add.
(return_statement (object (method_definition name: (property_identifier) @name) @definition.method))
(return_statement (object (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.field))
; A returned property holding an object literal defines f.key, so the literal's members are
; f.key.m, implementing the member of the type f's declared result gives key
; (`markdownTokenizer: MarkdownTokenizer`, then `return { markdownTokenizer: { start() {} } }`).
(return_statement (object (pair key: (property_identifier) @name value: (object)) @definition.field))

; Members of object literals nested in a defined property: `{ input: { parse() {} } }`.
(pair key: (property_identifier) value: (object (method_definition name: (property_identifier) @name) @definition.method))
(pair key: (property_identifier) value: (object (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.field))

; Properties of module-level object literals: `export const config = { debug: false }`
; defines config.debug (after the method patterns above, which win for function values).
(program [
  (lexical_declaration (variable_declarator value: (object (pair key: (property_identifier) @name) @definition.field)))
  (variable_declaration (variable_declarator value: (object (pair key: (property_identifier) @name) @definition.field)))
  (export_statement declaration: (lexical_declaration
    (variable_declarator value: (object (pair key: (property_identifier) @name) @definition.field))))
  (lexical_declaration (variable_declarator value: [(as_expression (object (pair key: (property_identifier) @name) @definition.field))
                                                   (satisfies_expression (object (pair key: (property_identifier) @name) @definition.field))]))
  (export_statement declaration: (lexical_declaration
    (variable_declarator value: [(as_expression (object (pair key: (property_identifier) @name) @definition.field))
                                 (satisfies_expression (object (pair key: (property_identifier) @name) @definition.field))])))])

; CommonJS (in .ts files compiled as CommonJS): `exports.f = …`, `module.exports.f = …`, `Foo.prototype.bar = function`.
; include: _ecma/definitions-commonjs

; Ambient declarations (`declare const x: T`) and namespace / ambient-module bodies.
(program (ambient_declaration [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
                               (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)]))
(program (export_statement declaration: (ambient_declaration [
  (lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
  (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)])))
(internal_module body: (statement_block [
  (lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
  (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)
  (export_statement declaration: [
    (lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
    (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)])]))
(module body: (statement_block [
  (lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
  (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)
  (export_statement declaration: [
    (lexical_declaration (variable_declarator name: (identifier) @name) @definition.var)
    (variable_declaration (variable_declarator name: (identifier) @name) @definition.var)])]))
