"""The per-file parse budget counts CPU time, so a busy machine does not drop a file."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from spyglass.syntax import budget


class _Clock:
    """Wall time runs `load` times faster than this thread's CPU time."""

    def __init__(self, load: float) -> None:
        self.load, self.cpu, self.wall = load, 0.0, 0.0

    def step(self, cpu: float) -> None:
        self.cpu += cpu
        self.wall += cpu * self.load

    def time(self) -> Any:
        return SimpleNamespace(thread_time=lambda: self.cpu, monotonic=lambda: self.wall)


class _SlowParser:
    """A parse needing `need` CPU seconds, resumable after a timeout like tree-sitter's."""

    def __init__(self, clock: _Clock, need: float) -> None:
        self.clock, self.left, self.timeout_micros, self.resets = clock, need, 0, 0

    def parse(self, data: bytes) -> str:
        cpu_until_timeout = self.timeout_micros / 1_000_000 / self.clock.load
        if self.left > cpu_until_timeout:
            self.clock.step(cpu_until_timeout)
            self.left -= cpu_until_timeout
            raise ValueError("timeout")
        self.clock.step(self.left)
        return "tree"

    def reset(self) -> None:
        self.resets += 1


def _parse(load: float, need: float, monkeypatch: pytest.MonkeyPatch) -> _SlowParser:
    clock = _Clock(load)
    monkeypatch.setattr(budget, "time", clock.time())
    parser = _SlowParser(clock, need)
    tree: object = budget.Budget(5.0).parse(parser, b"")  # type: ignore[arg-type]
    assert tree == "tree"
    return parser


def test_a_parse_slowed_by_other_processes_resumes_and_finishes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    parser = _parse(load=3.0, need=4.0, monkeypatch=monkeypatch)  # 12 s of wall clock
    assert parser.resets == 0


@pytest.mark.parametrize(("load", "need"), [(1.0, 6.0), (3.0, 5.5), (10.0, 2.5)])
def test_past_the_cpu_budget_or_the_wall_bound_the_parse_is_stopped(
        load: float, need: float, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(budget.OverBudget, match="parse budget"):
        _parse(load, need, monkeypatch)
    # 10x load: 2.5 s of CPU would take 25 s, past the 4 x 5 s wall-clock bound


def test_an_over_budget_parse_resets_the_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _Clock(1.0)
    monkeypatch.setattr(budget, "time", clock.time())
    parser = _SlowParser(clock, 9.0)
    with pytest.raises(budget.OverBudget):
        budget.Budget(5.0).parse(parser, b"")  # type: ignore[arg-type]
    assert parser.resets == 1
