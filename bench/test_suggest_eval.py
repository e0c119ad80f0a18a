"""Evaluate test suggestions on real history: recall@5/@10 and precision of the test files a commit changed."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchgit import GIT_SAFETY, git_env  # bench/ is on sys.path when a benchmark runs

from spyglass import budget, surface
from spyglass.query.facade import CodeIntel
from spyglass.query.testmap import runnable
from spyglass.syntax.langpack import pack_for_path

MAX_SOURCE_FILES = 15  # commits touching more source files than this are refactors: skipped


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", *GIT_SAFETY, *args], cwd=root, env=git_env(),
                          capture_output=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode("utf-8", "surrogateescape")


def is_test(path: str) -> bool:
    pack = pack_for_path(path)
    return pack is not None and pack.is_test_file(path)


@dataclass
class Commit:
    sha: str
    parent: str
    subject: str
    sources: list[str]  # changed (modified or added) source files, as in the commit
    deleted_sources: list[str]
    tests: list[str]  # changed (modified or added) test files
    others: list[str] = field(default_factory=list)  # other changed files (not source, not tests)
    deleted_others: list[str] = field(default_factory=list)


def pick_commits(root: Path, n: int, scan: int, rev: str) -> list[Commit]:
    """The newest `n` non-merge commits from `rev` changing both supported source and test
    files (at most MAX_SOURCE_FILES source files)."""
    log = git(root, "log", "--no-merges", "--no-renames", f"-{scan}", "--format=@%H %P%x09%s",
              "--name-status", rev)
    out: list[Commit] = []
    current: Commit | None = None
    for line in log.splitlines() + ["@"]:
        if line.startswith("@"):
            if current and current.sources and current.tests and \
                    len(current.sources) <= MAX_SOURCE_FILES:
                out.append(current)
                if len(out) >= n:
                    break
            head, _, subject = line[1:].partition("\t")
            shas = head.split()
            current = Commit(shas[0], shas[1], subject, [], [], []) if len(shas) == 2 else None
            continue
        if current is None or not line.strip():
            continue
        status, _, path = line.partition("\t")
        if pack_for_path(path) is None:  # a manifest, a lock file, a data file
            (current.deleted_others if status[0] == "D" else current.others).append(path)
            continue
        if is_test(path):
            if status[0] in "AM":
                current.tests.append(path)
        elif status[0] == "D":
            current.deleted_sources.append(path)
        elif status[0] in "AM":
            current.sources.append(path)
    return out


def line_targets(root: Path, c: Commit) -> list[str]:
    """PATH:START-END of each changed hunk (new side) of the commit's source files."""
    out: list[str] = []
    diff = git(root, "diff", "-U0", "--no-color", "--no-ext-diff", c.parent, c.sha, "--",
               *c.sources)
    path = ""
    for line in diff.splitlines():
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else ""
        elif line.startswith("@@") and path:
            new = line.split()[2][1:]
            start, _, count = new.partition(",")
            a, k = int(start), int(count or "1")
            out.append(f"{path}:{max(a, 1)}-{max(a, 1) + max(k, 1) - 1}")
    return out


@dataclass
class Score:
    sha: str
    truth: list[str]
    ranked: list[str]
    seconds: float
    recall5: float = 0.0
    recall10: float = 0.0
    precision5: float = 0.0
    precision10: float = 0.0
    precision: float = 0.0
    reachable: list[str] = field(default_factory=list)  # truth files existing before
    budget_recall10: float = 0.0  # recall@10 of the files the budgeted answer lists
    budget_files: int = 0  # test files the budgeted answer lists
    shown: list[str] = field(default_factory=list)  # the first 10 files of the budgeted answer
    subject: str = ""


def recall(truth: list[str], ranked: list[str], k: int = 10) -> float | None:
    """Share of `truth` in the first `k` of `ranked` (None without truth)."""
    return len(set(truth) & set(ranked[:k])) / len(set(truth)) if truth else None


def score(sha: str, truth: list[str], ranked: list[str], seconds: float, present: set[str]
          ) -> Score:
    s = Score(sha, truth, ranked[:20], round(seconds, 3))
    hits = set(truth)
    s.recall5 = len(hits & set(ranked[:5])) / len(hits)
    s.recall10 = len(hits & set(ranked[:10])) / len(hits)
    s.precision5 = len(hits & set(ranked[:5])) / max(min(len(ranked), 5), 1)
    s.precision10 = len(hits & set(ranked[:10])) / max(min(len(ranked), 10), 1)
    s.precision = len(hits & set(ranked)) / max(len(ranked), 1)
    s.reachable = [t for t in truth if t in present]
    return s


def evaluate(gitdir: Path, work: Path, n: int, scan: int, variant: str, mode: str,
             depth: int, rev: str, max_chars: int = 0) -> dict[str, object]:
    root = work / "repo"
    if not root.exists():
        subprocess.run(["git", *GIT_SAFETY, "-c", "protocol.file.allow=always", "clone", "-q",
                        "--shared", "--no-checkout",
                        str(gitdir), str(root)], env=git_env(), check=True)
    commits = pick_commits(root, n, scan, rev)
    scores: list[Score] = []
    for i, c in enumerate(commits):
        git(root, "checkout", "-q", "-f", "--detach", c.parent)
        git(root, "clean", "-q", "-f", "-d", "-x", "-e", ".spyglass")
        CodeIntel(root).index()
        if variant == "commit":  # the whole commit on disk, the snapshot at its parent
            git(root, "read-tree", "-u", "--reset", c.sha)
        else:  # only the source part of the commit: the tests as they were before it
            # (`no-tests`: every changed file but the tests: manifests, lock files, data too)
            others = c.others if variant == "no-tests" else []
            git(root, "checkout", "-q", c.sha, "--", *c.sources, *others)
            for p in c.deleted_sources + (c.deleted_others if variant == "no-tests" else []):
                (root / p).unlink(missing_ok=True)
        ci = CodeIntel(root)
        targets = [] if mode == "diff" else c.sources if mode == "files" else \
            line_targets(root, c)
        t0 = time.perf_counter()
        result = ci.suggest_tests(targets, c.parent if mode == "diff" else None, depth)
        seconds = time.perf_counter() - t0
        ranked = [f.path for f in result.results]  # type: ignore[attr-defined]
        present = {p for p in c.tests if (root / p).is_file()}
        truth = [p for p in c.tests if runnable(p)] or c.tests
        s = score(c.sha, truth, ranked, seconds, present)
        if max_chars:  # the files of the answer as the CLI prints it within the budget
            tool = surface.TOOLS["code_suggest_tests"]
            shown = [f.path for f in budget.fit(result, tool, max_chars, "cli").results]  # type: ignore[attr-defined]
            s.budget_files = len(shown)
            s.budget_recall10 = len(set(truth) & set(shown[:10])) / len(set(truth))
            s.shown = shown[:10]
        s.subject = c.subject
        scores.append(s)
        print(f"[{i + 1}/{len(commits)}] {c.sha[:10]} r@5={s.recall5:.2f} r@10={s.recall10:.2f} "
              f"budget r@10={s.budget_recall10:.2f} ({s.budget_files} files) "
              f"p={s.precision:.2f} n={len(ranked)} {seconds * 1000:.0f}ms  {c.subject[:50]}",
              file=sys.stderr)
    def mean(xs: list[float]) -> float:
        return round(statistics.fmean(xs), 3) if xs else 0.0

    def over_existing(k: int, budgeted: bool = False) -> float:
        return mean([r for s in scores if (r := recall(
            s.reachable, s.shown if budgeted else s.ranked, k)) is not None])
    return {
        "repo": str(gitdir), "rev": git(root, "rev-parse", rev).strip(), "variant": variant, "mode": mode, "depth": depth,
        "commits": len(scores),
        "recall@5": mean([s.recall5 for s in scores]),
        "recall@10": mean([s.recall10 for s in scores]),
        # The definition (the target applies to it): the changed test files that
        # exist before the commit. A test file the commit adds is not in the tree the
        # question is asked on, so it cannot be suggested; commits adding only test files
        # drop out. The figures above count every changed test file.
        "commits_with_existing": sum(1 for s in scores if s.reachable),
        "existing_recall@5": over_existing(5),
        "existing_recall@10": over_existing(10),
        "existing_budget_recall@10": over_existing(10, True) if max_chars else None,
        "budget": max_chars,
        "budget_recall@10": mean([s.budget_recall10 for s in scores]) if max_chars else None,
        "budget_files_median": statistics.median([s.budget_files for s in scores] or [0]),
        "precision@5": mean([s.precision5 for s in scores]),
        "precision@10": mean([s.precision10 for s in scores]),
        "precision": mean([s.precision for s in scores]),
        "suggested_files_median": statistics.median([len(s.ranked) for s in scores] or [0]),
        "seconds_median": statistics.median([s.seconds for s in scores] or [0]),
        "per_commit": [asdict(s) for s in scores],
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--repo", required=True, type=Path, help="a git directory with history")
    p.add_argument("--commits", type=int, default=50)
    p.add_argument("--scan", type=int, default=3000, help="newest commits to look through")
    p.add_argument("--variant", choices=("commit", "source-only", "no-tests"), default="commit",
                   help="what of the commit is on disk: all of it, its supported source files "
                        "only, or every file but its test files (manifests, lock files, data)")
    p.add_argument("--mode", choices=("files", "lines", "diff"), default="files",
                   help="ask with the changed files, their changed lines, or --diff PARENT")
    p.add_argument("--budget", type=int, default=surface.DEFAULT_CHARS,
                   help="also score the files the answer lists within this many characters "
                        "of CLI text (0: unbounded only)")
    p.add_argument("--depth", type=int, default=3)
    p.add_argument("--rev", default="origin/HEAD", help="newest commit to consider")
    p.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    p.add_argument("--out", type=Path, help="write the JSON report here")
    args = p.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="spyglass-eval-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        report = evaluate(args.repo, work, args.commits, args.scan, args.variant, args.mode,
                          args.depth, args.rev, args.budget)
    finally:
        if args.work is None and not os.environ.get("KEEP"):
            shutil.rmtree(work, ignore_errors=True)
    summary = {k: v for k, v in report.items() if k != "per_commit"}
    print(json.dumps(summary, indent=2))
    print("| repo | variant | mode | truth | commits | recall@5 | recall@10 unbounded | "
          "recall@10 at budget | files listed at budget (median) |\n"
          "|---|---|---|---|---|---|---|---|---|")
    name = Path(str(report['repo'])).parent.name
    print(f"| {name} | {args.variant} | {args.mode} | all changed test files | "
          f"{report['commits']} | {report['recall@5']} | {report['recall@10']} | "
          f"{report['budget_recall@10']} | {report['budget_files_median']} |")
    print(f"| {name} | {args.variant} | {args.mode} | changed test files existing before "
          f"the commit (the target's) | {report['commits_with_existing']} | "
          f"{report['existing_recall@5']} | {report['existing_recall@10']} | "
          f"{report['existing_budget_recall@10']} | {report['budget_files_median']} |")
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
