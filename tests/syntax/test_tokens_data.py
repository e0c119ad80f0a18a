"""The packs' token data (manifest `[tokens]`, query/accounting.py): every kind a pack counts
is a leaf of its grammar, every pack's references query takes the kinds no catch-all
pattern captures, and a token no reference is made of is kept with why."""

from __future__ import annotations

import pytest

from spyglass.syntax.extract import extract
from spyglass.syntax.langpack import all_packs


@pytest.mark.parametrize("name", sorted(all_packs()))
def test_every_pack_counts_identifier_leaves_of_its_grammar(name: str) -> None:
    pack = all_packs()[name]
    assert pack.token_kinds, f"{name}: no [tokens] kinds: its tokens would go uncounted"
    lang = pack.language
    named = {lang.node_kind_for_id(i) for i in range(lang.node_kind_count)
             if lang.node_kind_is_named(i)}
    assert pack.token_kinds <= named, pack.token_kinds - named
    assert pack.references is not None  # compiles with the tokens pattern
    excluded = pack.manifest["tokens"].get("excluded", {})
    assert set(excluded) <= named, set(excluded) - named  # parents the grammar has


def test_a_token_the_pack_ignores_is_kept_with_its_parent() -> None:
    # A prototype's parameter name is an @ignore capture: no reference, a token kept with
    # the kind of its parent (the manifest decides it), at its place.
    facts = extract(all_packs()["c"], b"int f(int len);\nint g(void) { return 0; }\n")
    assert ("len", "ignore:parameter_declaration", "1:10") in facts.tokens, facts.tokens
    assert not any(n == "len" for n, *_ in facts.references)


def test_a_file_the_extractor_gives_up_on_keeps_its_words(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Over the parse budget a file gives no references: its words are kept as tokens
    # (read as text), so that the accounting still counts every use in it.
    from spyglass.syntax import budget
    monkeypatch.setattr(budget, "PARSE_SECONDS", 0.0)
    facts = extract(all_packs()["python"], b"import m\n\nm.helper(1)\n")
    assert facts.references == ()
    assert ("helper", "unparsed", "3:2") in facts.tokens, facts.tokens
