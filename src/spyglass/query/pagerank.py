"""Personalised PageRank by power iteration over a small weighted directed graph."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TypeVar

N = TypeVar("N", bound=Hashable)


class Graph(dict[N, dict[N, float]]):
    """Nodes mapped to their out-edges (target → weight); parallel edges add up."""

    def add_node(self, n: N) -> None:
        self.setdefault(n, {})

    def add_edge(self, a: N, b: N, weight: float = 1.0) -> None:
        self.add_node(b)
        out = self.setdefault(a, {})
        out[b] = out.get(b, 0.0) + weight

    def edge_count(self) -> int:
        return sum(len(out) for out in self.values())


def pagerank(graph: Graph[N], personalization: Mapping[N, float], alpha: float = 0.85,
             max_iter: int = 100, tol: float = 1e-4) -> dict[N, float]:
    """Rank of every node: a random walk that follows an out-edge with probability `alpha`
    (in proportion to its weight) and otherwise jumps to a node drawn from
    `personalization`; a node without out-edges jumps as a teleport does. Stops when the L1
    change is below `len(graph) * tol`, or after `max_iter` rounds (the last vector then)."""
    nodes = list(graph)
    if not nodes:
        return {}
    total = sum(max(0.0, personalization.get(n, 0.0)) for n in nodes)
    if total <= 0:
        jump = {n: 1.0 / len(nodes) for n in nodes}
    else:
        jump = {n: max(0.0, personalization.get(n, 0.0)) / total for n in nodes}
    share = {a: {b: w / s for b, w in out.items()}
             for a, out in graph.items() if (s := sum(out.values())) > 0}
    dangling = [n for n in nodes if n not in share]
    rank = {n: 1.0 / len(nodes) for n in nodes}
    for _ in range(max_iter):
        lost = alpha * sum(rank[n] for n in dangling)
        new = {n: (1.0 - alpha) * jump[n] + lost * jump[n] for n in nodes}
        for a, out in share.items():
            mass = alpha * rank[a]
            for b, f in out.items():
                new[b] += mass * f
        err = sum(abs(new[n] - rank[n]) for n in nodes)
        rank = new
        if err < len(nodes) * tol:
            break
    return rank
