; Scala imports: `import a.b.C`, `import a.b.{C => D, E}`, `import a.b._` (or `*`, a
; wildcard of package a.b). The path is several nodes: the module is the whole
; declaration's text, which the resolver reduces to the path.
(import_declaration (identifier) @import.name .) @import.module
(import_declaration (namespace_selectors (identifier) @import.name)) @import.module
(import_declaration (namespace_selectors (arrow_renamed_identifier
  name: (identifier) @import.name alias: (identifier) @import.alias))) @import.module
(import_declaration (namespace_wildcard) @import.wildcard) @import.module
