; Rust imports (throwaway pack): `use a::b::C;` and `use a::b::C as D;`.
(use_declaration argument: (scoped_identifier path: (_) @import.module name: (identifier) @import.name))
(use_declaration argument: (use_as_clause path: (scoped_identifier path: (_) @import.module name: (identifier) @import.name) alias: (identifier) @import.alias))
