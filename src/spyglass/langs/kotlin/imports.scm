; Kotlin imports: `import a.b.C` binds C, `import a.b.C as D` binds D, `import a.b.*` is a
; wildcard of package a.b. The module is written whole (`a.b.C`): the resolver drops the
; imported name from its end.
(import (qualified_identifier (identifier) @import.name .) @import.module
  (identifier) @import.alias)
((import (qualified_identifier (identifier) @import.name .) @import.module) @_i
  (#not-match? @_i "(\\*|\\sas\\s)"))
(import (qualified_identifier) @import.module "*" @import.wildcard)
