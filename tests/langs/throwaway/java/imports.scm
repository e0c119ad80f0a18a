; Java imports (throwaway pack): `import a.b.C;`.
(import_declaration (scoped_identifier scope: (_) @import.module name: (identifier) @import.name))
