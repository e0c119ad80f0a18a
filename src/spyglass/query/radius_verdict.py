"""A language server's verdict on a blast radius's first layer (docs/bridge.md): distance-1
users it confirms become `live-lsp`, those it refutes are dropped (with what was reached only
through them), users only it knows are added."""

from __future__ import annotations

from dataclasses import replace

from spyglass.config import LspServer
from spyglass.query import symbols as sym
from spyglass.query.display import display, module_symbol
from spyglass.query.impact import Hit, Hop, Radius
from spyglass.query.results import DefRow
from spyglass.query.view import View
from spyglass.syntax.langpack import pack_for_path

Site = tuple[str, int]  # root-relative path, 1-based line
DOUBTFUL_MIN = 3  # certain index sites a server must deny before its answer is doubted


def served(path: str, server: LspServer) -> bool:
    """Whether `server` answers for the file's language."""
    pack = pack_for_path(path)
    return pack is not None and pack.name in server.languages


def folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def doubted(certain: set[Site], sites: frozenset[Site], anchors: set[str]) -> set[Site]:
    """The index's certain sites the server denies but is not trusted on: a server that
    denies most of them is more likely missing part of the workspace (a package it could
    not load) than right, for the folders where it reported nothing. In a folder it did
    report on, or the targets' own folders (`anchors`), its denial stands (gopls on a
    file excluded by build constraints, say)."""
    denied = certain - sites
    if len(denied) < DOUBTFUL_MIN or len(denied) * 2 <= len(certain):
        return set()
    loaded = {folder(p) for p, _ in sites} | anchors
    return {s for s in denied if folder(s[0]) not in loaded}


def innermost(view: View, path: str, line: int) -> DefRow | None:
    """The smallest definition of `path` enclosing `line`."""
    around = [d for d in sym.defs_in_file(view, path) if d.start_line <= line <= d.end_line]
    return min(around, key=lambda d: d.end_line - d.start_line) if around else None


def _covers(view: View, h: Hit, sites: frozenset[Site]) -> bool:
    """Whether a server site falls in the user `h` (its span, or its module level)."""
    if h.d is not None:
        return any(p == h.path and h.d.start_line <= ln <= h.d.end_line for p, ln in sites)
    return (h.path, h.line) in sites or any(
        p == h.path and innermost(view, p, ln) is None for p, ln in sites)


def merge(view: View, radius: Radius, seeds: list[DefRow], verdict: tuple[frozenset[Site], ...],
          server: LspServer, label: str, skipped: int,
          blind: frozenset[str] = frozenset()) -> Radius:
    """The radius with its distance-1 layer as the server sees it; users in `blind` files
    (changed files the server could not be given) stay as the index found them."""
    by_seed = {display(d): s for d, s in zip(seeds, verdict, strict=True)}
    origin = {h.symbol: h for h in radius.hits if h.distance == 0}
    first = [h for h in radius.hits if h.distance == 1 and h.seed in by_seed
             and served(h.path, server) and h.path not in blind]
    kept_as_is: set[str] = set()  # seeds whose answer is not trusted
    for seed, sites in by_seed.items():
        certain = {(h.chain[-1].path, h.chain[-1].line) for h in first
                   if h.seed == seed and not h.uncertain}
        anchor = {folder(d.path) for d in seeds if display(d) == seed}
        if (not sites and certain) or doubted(certain, sites, anchor):
            kept_as_is.add(seed)
    decided: dict[int, Hit | None] = {}  # id of a first-layer hit -> confirmed hit or None
    for h in first:
        if h.seed in kept_as_is:
            continue
        if _covers(view, h, by_seed[h.seed]):
            hop = replace(h.chain[0], note=f"confirmed by {server.label}")
            base = origin.get(h.seed)
            decided[id(h)] = replace(h, chain=(hop, *h.chain[1:]), source="live-lsp",
                                     uncertain=base.uncertain if base else False)
        else:
            decided[id(h)] = None
    refuted = {h.chain[0] for h in first if id(h) in decided and decided[id(h)] is None}
    hits: list[Hit] = []
    confirmed = dropped = further = 0
    for h in radius.hits:
        if id(h) in decided:
            kept = decided[id(h)]
            if kept is None:
                dropped += 1
            else:
                confirmed += 1
                hits.append(kept)
        elif h.distance > 1 and h.chain[-1] in refuted:
            further += 1
        else:
            hits.append(h)
    present = {(h.path, h.d.start_line if h.d else h.line, h.symbol) for h in hits}
    added = 0
    for seed, sites in sorted(by_seed.items()):
        if seed in kept_as_is:
            continue
        covered = [h for h in hits if h.distance == 1 and h.seed == seed]
        base = origin.get(seed)
        for path, line in sorted(sites):
            if not served(path, server) or path in blind or not (view.root / path).is_file() or any(
                    h.path == path and _covers(view, h, frozenset({(path, line)}))
                    for h in covered):
                continue
            user = innermost(view, path, line)
            if user is None and any(h.path == path and h.distance <= 1 for h in hits):
                continue  # a module-level line (an import) of a file already affected
            who = display(user) if user is not None else module_symbol(path)
            node = (path, user.start_line if user else line, who)
            if node in present or who == seed:
                continue
            present.add(node)
            added += 1
            hop = Hop(who, "references", seed, path, line,
                      f"found by {server.label}; not in the index's answer")
            hit = Hit(user, path, user.start_line if user else line, who, 1, (hop,),
                      base.origin if base else "changed", base.uncertain if base else False,
                      False, "live-lsp")
            hits.append(hit)
            covered.append(hit)
    radius.hits = sorted(hits, key=lambda h: (h.distance, h.uncertain, h.path, h.line))
    note = (f"{label}: distance 1 checked for {len(by_seed)} changed definition(s): "
            f"{confirmed} user(s) confirmed (live-lsp), {dropped} refuted and dropped"
            + (f" ({further} further hit(s) reached only through them dropped too)"
               if further else "") + f", {added} only the server found added (not walked "
            "further)")
    if kept_as_is:
        note += (f"; for {len(kept_as_is)} the server's view looked incomplete and the "
                 "index's users are kept")
    if skipped:
        note += f"; {skipped} more changed definition(s) not asked (the index's answer)"
    if blind:
        note += (f"; {len(blind)} file(s) the server has not seen as they are now (changed "
                 "since it read the workspace and its tool takes no unsaved content, or "
                 "flagged stale in its answer): their users are the index's")
    radius.limits.append(note)
    radius.notes.append(note)
    return radius
