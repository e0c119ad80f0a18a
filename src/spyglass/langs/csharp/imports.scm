; C# `using`: `using A.B;` brings every type of namespace A.B (a wildcard: the resolver
; reads the repository's namespaces for the names), `using X = A.B.C;` binds X, `using
; static A.B.C;` brings C's members.
((using_directive [(identifier) (qualified_name)] @import.module @import.wildcard) @_u
  (#not-match? @_u "="))
(using_directive name: (identifier) @import.alias
  (qualified_name qualifier: (_) @import.module name: (identifier) @import.name))
