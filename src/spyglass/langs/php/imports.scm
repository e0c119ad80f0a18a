; PHP imports: `use A\B\C;`, `use A\B\C as D;`, `use A\B\{C, D as E};`, `use function A\f;`.
; @import.module is the namespace as written (with `\`); a name without a namespace
; (`use Foo;`) is a module of its own. `require`/`include` of a literal path is a wildcard
; import of that file (it binds no name).
(namespace_use_declaration (namespace_use_clause (qualified_name prefix: (namespace_name) @import.module (name) @import.name) !alias))
(namespace_use_declaration (namespace_use_clause (qualified_name prefix: (namespace_name) @import.module (name) @import.name) alias: (name) @import.alias))
(namespace_use_declaration (namespace_use_clause . (name) @import.module .))
(namespace_use_declaration (namespace_use_clause . (name) @import.module alias: (name) @import.alias))
(namespace_use_declaration (namespace_name) @import.module body: (namespace_use_group (namespace_use_clause . (name) @import.name .)))
(namespace_use_declaration (namespace_name) @import.module body: (namespace_use_group (namespace_use_clause . (name) @import.name alias: (name) @import.alias)))
([(require_expression) (require_once_expression) (include_expression) (include_once_expression)]
  [(string (string_content) @import.module)
   (encapsed_string (string_content) @import.module)
   (binary_expression right: [(string (string_content) @import.module)
                              (encapsed_string (string_content) @import.module)])]) @import.wildcard
