; Rust imports: `use a::b::C;`, `use a::b::C as D;`, `use a::b::{C, D as E};`,
; `use a::b::*;`, `use a;`. @import.module is the path as written (with `::`); the
; resolver reads `crate::`, `self::`, `super::` and crate names. A `pub use` is also a
; re-export (the resolver's alias from this module's name to the used one).
(use_declaration argument: (scoped_identifier path: (_) @import.module name: (identifier) @import.name))
(use_declaration argument: (use_as_clause path: (scoped_identifier path: (_) @import.module name: (identifier) @import.name) alias: (identifier) @import.alias))
(use_declaration argument: (use_as_clause path: (identifier) @import.module alias: (identifier) @import.alias))
(use_declaration argument: (identifier) @import.module)
(use_declaration argument: (scoped_use_list path: (_) @import.module list: (use_list (identifier) @import.name)))
(use_declaration argument: (scoped_use_list path: (_) @import.module list: (use_list (use_as_clause path: (identifier) @import.name alias: (identifier) @import.alias))))
(use_declaration argument: (use_wildcard [(scoped_identifier) (identifier) (crate) (super) (self)] @import.module) @import.wildcard)

(use_declaration (visibility_modifier) argument: (scoped_identifier path: (_) @import.module name: (identifier) @import.name) @import.reexport)
(use_declaration (visibility_modifier) argument: (use_as_clause path: (scoped_identifier path: (_) @import.module name: (identifier) @import.name) alias: (identifier) @import.alias) @import.reexport)
(use_declaration (visibility_modifier) argument: (scoped_use_list path: (_) @import.module list: (use_list (identifier) @import.name)) @import.reexport)
(use_declaration (visibility_modifier) argument: (use_wildcard [(scoped_identifier) (identifier) (crate) (super) (self)] @import.module) @import.wildcard @import.reexport)
