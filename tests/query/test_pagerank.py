"""Personalised PageRank: closed forms and the properties explore relies on."""

from __future__ import annotations

import pytest

from spyglass.query.pagerank import Graph, pagerank


def test_chain_into_dangling_node_has_closed_form() -> None:
    # a -> b, b has no out-edge so its walk jumps back to a (all teleport mass is on a):
    # r_a = (1 - alpha) + alpha * r_b, r_b = alpha * r_a  =>  r_a = 1 / (1 + alpha).
    g: Graph[str] = Graph()
    g.add_edge("a", "b")
    r = pagerank(g, {"a": 1.0}, tol=1e-12, max_iter=1000)
    assert r["a"] == pytest.approx(1 / 1.85, rel=1e-6)
    assert r["b"] == pytest.approx(0.85 / 1.85, rel=1e-6)


def test_symmetric_cycle_is_uniform_and_sums_to_one() -> None:
    g: Graph[int] = Graph()
    for i in range(5):
        g.add_edge(i, (i + 1) % 5)
    r = pagerank(g, {i: 1.0 for i in range(5)})
    assert sum(r.values()) == pytest.approx(1.0)
    assert all(v == pytest.approx(0.2) for v in r.values())


def test_heavier_edge_carries_more_rank() -> None:
    g: Graph[str] = Graph()
    g.add_edge("hub", "x")
    g.add_edge("hub", "y")
    g.add_edge("hub", "y")  # parallel edges add up: y gets twice x's share
    r = pagerank(g, {"hub": 1.0})
    assert r["y"] > r["x"] > 0
    assert r["y"] == pytest.approx(2 * r["x"], rel=1e-3)


def test_unseeded_nodes_rank_by_what_flows_in() -> None:
    g: Graph[str] = Graph()
    for caller in ("c1", "c2", "c3"):
        g.add_edge(caller, "central")
    g.add_node("lonely")
    r = pagerank(g, {"c1": 1.0, "c2": 1.0, "c3": 1.0, "lonely": 1.0})
    assert r["central"] > max(r["c1"], r["lonely"])


def test_empty_graph_and_zero_seeds() -> None:
    assert pagerank(Graph(), {}) == {}
    g: Graph[str] = Graph()
    g.add_edge("a", "b")
    r = pagerank(g, {})  # no seed mass: teleport is uniform
    assert sum(r.values()) == pytest.approx(1.0)
    assert r["b"] > r["a"]
