; Ruby definitions. Classes and modules nest by containment (`module Geo; class Circle`
; is Geo.Circle); `class A::B` is placed under A by @receiver. A class's @base are its
; superclass and the modules it includes, extends or prepends. `def self.m` is a method of
; the class like `def m`; a `def` outside any class or module is a function.
(class name: (constant) @name superclass: (superclass (_) @base)) @definition.class
(class name: (constant) @name
  body: (body_statement (call method: (identifier) @_i arguments: (argument_list [(constant) (scope_resolution)] @base)))
  (#match? @_i "^(include|extend|prepend)$")) @definition.class
(class name: (constant) @name) @definition.class
(class name: (scope_resolution scope: (_) @receiver name: (constant) @name) superclass: (superclass (_) @base)) @definition.class
(class name: (scope_resolution scope: (_) @receiver name: (constant) @name)) @definition.class
(module name: (constant) @name
  body: (body_statement (call method: (identifier) @_i arguments: (argument_list [(constant) (scope_resolution)] @base)))
  (#match? @_i "^(include|extend|prepend)$")) @definition.module
(module name: (constant) @name) @definition.module
(module name: (scope_resolution scope: (_) @receiver name: (constant) @name)) @definition.module

(program (method name: (_) @name) @definition.func)
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method

(assignment left: (constant) @name) @definition.const
