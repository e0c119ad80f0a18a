"""Accuracy benchmark CLI: `oracle` refreshes stored oracle answers, `report` measures spyglass.

    python bench/accuracy/run.py oracle flask            # needs the oracle installed
    python bench/accuracy/run.py report flask requests   # offline: stored answers only
    python bench/accuracy/run.py floors                  # record current scores as CI floors
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from accuracy.compare import ORACLE_DIR, fetch_corpus, markdown, measure, render
from accuracy.corpora import CORPORA


def dump_oracle(doc: dict[str, object]) -> str:
    """Compact, diff-friendly JSON: the header indented, one line per target."""
    targets = doc["targets"]
    assert isinstance(targets, list)
    head = json.dumps({k: v for k, v in doc.items() if k != "targets"}, indent=1)
    rows = ",\n".join("  " + json.dumps(t, separators=(",", ":")) for t in targets)
    return head[:-2] + ',\n "targets": [\n' + rows + "\n ]\n}\n"


def cmd_oracle(names: list[str]) -> int:
    from accuracy.oracle import ask_oracle
    from accuracy.sample import sample

    for name in names:
        corpus = CORPORA[name]
        source = fetch_corpus(name)
        targets = sample(name, source, corpus.source_dirs, corpus.n,
                         "c" if corpus.compile_flags else None)
        print(f"{name}: {len(targets)} targets", flush=True)
        doc = ask_oracle(corpus, source, targets, log=lambda m: print(m, flush=True))
        ORACLE_DIR.mkdir(parents=True, exist_ok=True)
        out = ORACLE_DIR / f"{name}.json"
        out.write_text(dump_oracle(doc))
        print(f"wrote {out}")
    return 0


def cmd_call_items(names: list[str]) -> int:
    from accuracy.oracle import mark_call_items

    for name in names:
        out = ORACLE_DIR / f"{name}.json"
        doc = json.loads(out.read_text())
        marked = mark_call_items(CORPORA[name], fetch_corpus(name), doc,
                                 log=lambda m: print(m, flush=True))
        if marked:
            out.write_text(dump_oracle(doc))
        print(f"{name}: {marked} target(s) without a call hierarchy item", flush=True)
    return 0


GROUPS = (("heldout", "held-out corpora (picked by the README's rule, never tuned on)"),
          ("tune", "tune corpora (the resolution rules were developed on these)"))


def cmd_report(names: list[str], as_json: bool, details: bool, as_md: bool = False,
               max_matches: int | None = None, follow: bool = True) -> int:
    """Measure each corpus; print the held-out group first, the tune group beside it."""
    results = [measure(name, max_matches=max_matches, follow=follow) for name in names]
    if as_json:
        print(json.dumps([r.to_json() | {"group": CORPORA[r.name].group} for r in results],
                         indent=1))
        return 0
    for group, title in GROUPS:
        chosen = [r for r in results if CORPORA[r.name].group == group]
        if chosen:
            print(f"{'### ' if as_md else '== '}{title}\n")
            print(markdown(chosen) if as_md else render(chosen, details=details))
            print()
    return 0


def cmd_floors(names: list[str], margin: float = 0.0) -> int:
    """Record the current scores, rounded down to two places less `margin`, as CI floors;
    the headline's silent-miss rate rounded up plus `margin` as its ceiling (on the
    corpus's CI sample of targets when it has one)."""
    path = ORACLE_DIR / "floors.json"
    floors = json.loads(path.read_text()) if path.exists() else {}

    def floor(x: float) -> float:
        return max(0.0, round(math.floor(x * 100) / 100 - margin, 2))
    def ceiling(x: float) -> float:
        return min(1.0, round(math.ceil(x * 100) / 100 + margin, 2))
    # a corpus with a CI sample (AccuracyCorpus.ci_targets) is floored on that sample,
    # which is what tests/accuracy/test_accuracy.py scores
    for result in (measure(name, targets=CORPORA[name].ci_targets) for name in names):
        floors[result.name] = {
            f"{q}/{v}": {"precision": floor(s.precision), "recall": floor(s.recall)}
            for (q, v), s in result.scores.items()}
        # the headline: certain precision floored, the silent-miss rate capped
        floors[result.name].update({
            f"{q}/headline": {"certain_precision": floor(h.certain_precision),
                              "silent_rate_max": ceiling(h.silent_rate)}
            for q, h in result.headline.items() if h.oracle or h.returned})
        print(result.name, floors[result.name])
    path.write_text(json.dumps(floors, indent=1, sort_keys=True) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_oracle = sub.add_parser("oracle", help="ask the oracle; write tests/accuracy/oracle/*.json")
    p_oracle.add_argument("names", nargs="+", choices=sorted(CORPORA))
    p_items = sub.add_parser("call-items", help="mark stored targets the oracle has no call "
                             "hierarchy item for (calls: null; answers stored before the "
                             "oracle told 'no item' from 'no callers')")
    p_items.add_argument("names", nargs="+", choices=sorted(CORPORA))
    p_report = sub.add_parser("report", help="compare spyglass with the stored oracle answers")
    p_report.add_argument("names", nargs="*", default=None)
    p_report.add_argument("--json", action="store_true")
    p_report.add_argument("--details", action="store_true", help="list every miss")
    p_report.add_argument("--markdown", action="store_true", help="the docs/accuracy.md tables")
    p_report.add_argument("--max-matches", type=int, default=None,
                          help="the per-answer cap, i.e. the page size (default: the shipped "
                               "limit)")
    p_report.add_argument("--first-page", action="store_true",
                          help="score first pages only: do not continue truncated answers "
                               "by offset (sites past the cap count as misses)")
    p_floors = sub.add_parser("floors", help="record current scores as CI floors")
    p_floors.add_argument("names", nargs="*", default=None)
    p_floors.add_argument("--margin", type=float, default=0.01,
                          help="subtracted from each rounded-down score (default 0.01)")
    args = parser.parse_args(argv)
    if args.cmd == "oracle":
        return cmd_oracle(args.names)
    if args.cmd == "call-items":
        return cmd_call_items(args.names)
    names = args.names or sorted((p.stem for p in ORACLE_DIR.glob("*.json")
                                  if p.stem in CORPORA),
                                 key=lambda n: (CORPORA[n].group != "heldout", n))
    if args.cmd == "floors":
        return cmd_floors(names, args.margin)
    return cmd_report(names, args.json, args.details, args.markdown, args.max_matches,
                      not args.first_page)


if __name__ == "__main__":
    sys.exit(main())
