; JavaScript definitions. @definition.<kind> spans the whole definition, @name is its name;
; members nest under their class (or object-literal variable) by byte-range containment.
; @receiver names the class of a `Foo.prototype.bar = function` method; @base an
; `extends` expression. Re-exports (`export default x`, `export {a as b}`) are imports.scm.

(function_declaration name: (identifier) @name) @definition.func
(generator_function_declaration name: (identifier) @name) @definition.func
(class_declaration
  name: (identifier) @name
  (class_heritage [(identifier) (member_expression)] @base)?) @definition.class

; Anonymous default exports define the module's `default` (named ones are aliases).
(export_statement "default" @name value: [(function_expression) (arrow_function) (generator_function)] @definition.func)
(export_statement "default" @name value: (class) @definition.class)
(export_statement "default" @name value: [(object) (call_expression) (new_expression) (array)] @definition.var)

; Class members.
(class_body (method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method)
; A field's or variable's class, when it is constructed with `new`, is its @base; the
; resolver turns it into an alias `C.field.*` → `Type.*`, so that `this.field.m()` reaches Type.m.
(class_body (field_definition property: [(property_identifier) (private_property_identifier)] @name
  value: (new_expression constructor: [(identifier) (member_expression)] @base)) @definition.field)
(class_body (field_definition property: [(property_identifier) (private_property_identifier)] @name) @definition.field)

; include: _ecma/definitions-module-variables

; Module-level variables constructed with `new`: `const registry = new Registry()`.
(program [
  (lexical_declaration (variable_declarator name: (identifier) @name value: (new_expression constructor: [(identifier) (member_expression)] @base)) @definition.var)
  (variable_declaration (variable_declarator name: (identifier) @name value: (new_expression constructor: [(identifier) (member_expression)] @base)) @definition.var)
  (export_statement declaration: (lexical_declaration
    (variable_declarator name: (identifier) @name value: (new_expression constructor: [(identifier) (member_expression)] @base)) @definition.var))])

; Methods of object literals that are assigned or exported: `const api = { get() {} }`
; defines api.get (scopes.scm makes such objects class scopes, so they bind no bare names).
(variable_declarator value: (object (method_definition name: (property_identifier) @name) @definition.method))
(assignment_expression right: (object (method_definition name: (property_identifier) @name) @definition.method))
(export_statement value: (object (method_definition name: (property_identifier) @name) @definition.method))
(variable_declarator value: (object (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method))
(assignment_expression right: (object (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method))
(export_statement value: (object (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method))

; Properties of module-level object literals: `export const config = { debug: false }`
; defines config.debug (after the method patterns above, which win for function values).
(program [
  (lexical_declaration (variable_declarator value: (object (pair key: (property_identifier) @name) @definition.field)))
  (variable_declaration (variable_declarator value: (object (pair key: (property_identifier) @name) @definition.field)))
  (export_statement declaration: (lexical_declaration
    (variable_declarator value: (object (pair key: (property_identifier) @name) @definition.field))))])

; Fields assigned in a constructor (`this.x = …`), for classes without field declarations.
((class_declaration name: (identifier) @receiver
   body: (class_body (method_definition
     name: (property_identifier) @_ctor
     body: (statement_block (expression_statement
       (assignment_expression
         left: (member_expression object: (this) property: (property_identifier) @name)
         right: (new_expression constructor: [(identifier) (member_expression)] @base)?) @definition.field)))))
 (#eq? @_ctor "constructor"))

; CommonJS: `exports.f = …`, `module.exports.f = …`, `Foo.prototype.bar = function`.
; include: _ecma/definitions-commonjs
