; Go imports: @import.module is the import path (string content, without quotes),
; @import.alias an explicit package name, @import.wildcard a dot import. A blank import
; (`_ "embed"`) is recorded with alias "_", which binds nothing usable.
(import_spec !name path: (interpreted_string_literal (interpreted_string_literal_content) @import.module))
(import_spec
  name: [(package_identifier) (blank_identifier)] @import.alias
  path: (interpreted_string_literal (interpreted_string_literal_content) @import.module))
(import_spec
  name: (dot) @import.wildcard
  path: (interpreted_string_literal (interpreted_string_literal_content) @import.module))
