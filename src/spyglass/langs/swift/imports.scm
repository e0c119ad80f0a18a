; Swift imports: `import Module` (also `@testable import`, `import struct M.T`) binds the
; module's name.
(import_declaration (identifier) @import.module)
