; C includes: the path as written (`"foo/bar.h"`, `<linux/slab.h>`) is the module; it binds
; the path itself (never an identifier), which the include's reference site reads.
(preproc_include path: (string_literal (string_content) @import.module @import.alias))
(preproc_include path: (system_lib_string) @import.module @import.alias)
