"""Child processes under isolation and the language servers behind the query layer (docs/bridge.md)."""
