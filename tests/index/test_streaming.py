"""The builder streams parse work: chunks are cut lazily, bounded by files and by bytes."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from spyglass.index import builder
from spyglass.index.builder import WorkItem, _chunks
from spyglass.query.facade import CodeIntel
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


def test_an_index_reading_more_blobs_than_a_pipe_holds_completes(
        make_repo: Callable[..., Path]) -> None:
    # More blob ids than the `git cat-file` stdin pipe holds (64 KiB / 41 bytes): the feeder
    # is still writing when the pool forks, and a worker holding the pipe open would keep
    # git, and the build, waiting forever.
    n = 2000
    root = make_repo({f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(n)})
    ci = CodeIntel(root)
    done: list[object] = []
    worker = threading.Thread(target=lambda: done.append(ci.index()), daemon=True)
    worker.start()
    worker.join(timeout=45)
    assert done, "the build did not finish"
    assert len(ci.find_symbol("f1999").results) == 1  # type: ignore[attr-defined]
