; Java imports: `import a.b.C;` binds C; `import static a.b.C.m;` binds m;
; `import a.b.*;` is a wildcard of package a.b (the resolver reads the repository's
; packages for the names it brings).
(import_declaration (scoped_identifier scope: (_) @import.module name: (identifier) @import.name) .)
(import_declaration (scoped_identifier) @import.module (asterisk) @import.wildcard)
