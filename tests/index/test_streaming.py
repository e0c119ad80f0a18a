"""The builder streams parse work: chunks are cut lazily, bounded by files and by bytes."""

from __future__ import annotations

from collections.abc import Iterator

from spyglass.index import builder
from spyglass.index.builder import WorkItem, _chunks
from spyglass.types import FileContext


def _items(sizes: list[int], pulled: list[int]) -> Iterator[tuple[WorkItem, bytes]]:
    for i, size in enumerate(sizes):
        pulled.append(i)
        path = f"f{i}.c"
        yield WorkItem(path, f"b{i}", "c", FileContext(path, path), "k"), b"x" * size


def test_chunks_are_cut_lazily_by_count() -> None:
    pulled: list[int] = []
    chunks = _chunks(_items([10] * (builder.CHUNK_FILES * 3), pulled), base=100)
    first = next(chunks)
    assert len(first) == builder.CHUNK_FILES
    assert len(pulled) == builder.CHUNK_FILES  # nothing read beyond the first chunk
    assert [c[0] for c in first[:2]] == [101, 102]  # unit ids numbered on from base
    rest = list(chunks)
    assert [len(c) for c in rest] == [builder.CHUNK_FILES] * 2
    assert rest[-1][-1][0] == 100 + builder.CHUNK_FILES * 3


def test_a_chunk_closes_at_its_byte_bound() -> None:
    big = builder.CHUNK_BYTES // 2 + 1
    chunks = list(_chunks(_items([big, big, big, 5], []), base=0))
    assert [len(c) for c in chunks] == [2, 2]
    assert sum(len(item[3]) for item in chunks[0]) >= builder.CHUNK_BYTES
