"""The built-in language packs (data folders); their resolvers implement syntax.resolver.Resolver."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # mypy checks that each resolver module implements the protocol
    from spyglass.langs.bash import resolver as _bash
    from spyglass.langs.c import resolver as _c
    from spyglass.langs.go import resolver as _go
    from spyglass.langs.java import resolver as _java
    from spyglass.langs.javascript import resolver as _javascript
    from spyglass.langs.lua import resolver as _lua
    from spyglass.langs.php import resolver as _php
    from spyglass.langs.python import resolver as _python
    from spyglass.langs.ruby import resolver as _ruby
    from spyglass.langs.rust import resolver as _rust
    from spyglass.langs.swift import resolver as _swift
    from spyglass.syntax.resolver import Resolver

    _RESOLVERS: tuple[Resolver, ...] = (_bash, _c, _go, _java, _javascript, _lua, _php, _python,
                                         _ruby, _rust, _swift)
