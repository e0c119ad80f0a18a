; TypeScript imports (as JavaScript, plus `import x = require(…)`). @import.module is the specifier (string content, without quotes);
; include: _ecma/imports-modules
(import_statement (import_require_clause (identifier) @import.alias source: (string (string_fragment) @import.module)))

; Re-exports from another module.
(export_statement (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias)) source: (string (string_fragment) @import.module)) @import.reexport
(export_statement "*" @import.wildcard source: (string (string_fragment) @import.module)) @import.reexport
(export_statement (namespace_export (identifier) @import.alias) source: (string (string_fragment) @import.module)) @import.reexport

; Re-exports of this module's own bindings.
(export_statement !source (export_clause (export_specifier name: (identifier) @import.name alias: (_)? @import.alias))) @import.reexport
(export_statement "default" @import.alias value: (identifier) @import.name) @import.reexport
(export_statement "default" @import.alias declaration: [
  (function_declaration name: (identifier) @import.name)
  (generator_function_declaration name: (identifier) @import.name)
  (class_declaration name: (type_identifier) @import.name)
  (abstract_class_declaration name: (type_identifier) @import.name)]) @import.reexport
