; Shared by the javascript and typescript packs (each includes it where it stands).
; ES module imports and re-exports, `require(…)` and dynamic `import(…)`.
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
