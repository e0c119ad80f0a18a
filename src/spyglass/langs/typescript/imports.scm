; TypeScript imports (as JavaScript, plus `import x = require(…)`). @import.module is the specifier (string content, without quotes);
; @import.name an imported name, @import.alias its local name, @import.default a default
; import's binding, @import.wildcard `export *`. @import.reexport marks exports that
; forward a name: with a source (`export {a as b} from './m'`, `export * from './m'`) or,
; without @import.module, from this very module (`export {a as b}`, `export default a`);
; the resolver turns them into aliases.

(import_statement (import_clause (identifier) @import.default) source: (string (string_fragment) @import.module))
(import_statement (import_clause (named_imports (import_specifier name: (_) @import.name !alias))) source: (string (string_fragment) @import.module))
(import_statement (import_clause (named_imports (import_specifier name: (_) @import.name alias: (identifier) @import.alias))) source: (string (string_fragment) @import.module))
(import_statement (import_clause (namespace_import (identifier) @import.alias)) source: (string (string_fragment) @import.module))
; Side-effect import: a dependency without a binding worth using.
(import_statement . source: (string (string_fragment) @import.module))

; CommonJS and dynamic imports.
((variable_declarator
   name: (identifier) @import.alias
   value: (call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @import.module) .)))
 (#eq? @_require "require"))
((variable_declarator
   name: (object_pattern [(shorthand_property_identifier_pattern) @import.name
                          (pair_pattern key: (property_identifier) @import.name value: (identifier) @import.alias)])
   value: (call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @import.module) .)))
 (#eq? @_require "require"))
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.module)))
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
