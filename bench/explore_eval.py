"""Evaluate explore on plain English: commit subjects of real history as questions, the source
files each commit changed as truth; recall@5/@10 of files beside a keyword baseline
(docs/explore.md)."""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from benchgit import GIT_SAFETY, git_env  # bench/ is on sys.path when a benchmark runs
from test_suggest_eval import git, is_test

from spyglass.query.facade import CodeIntel
from spyglass.query.names import words
from spyglass.syntax.langpack import pack_for_path

CACHE = Path.home() / ".cache" / "spyglass-corpora" / "explore"
MAX_TRUTH = 5  # commits changing more source files than this are refactors: skipped
MIN_WORDS = 3  # subjects with fewer content words say too little to be a question
BUDGET = 20000  # explore's answer budget (tokens): room for more than ten files
# Subjects that are not about code (releases, dependency bumps, reverts, merges, chores).
NOT_A_QUESTION = re.compile(
    r"^(bump|release|prepare|merge|revert|back to|update (the )?(changelog|changes|version|"
    r"dependencies|deps|docs?|readme|copyright|ci)|\[pre-commit|pre-commit|chore|docs?\b|ci\b"
    r"|changelog|version)", re.IGNORECASE)
TEST_FOLDERS = frozenset({"test", "tests", "testdata", "testing"})


def is_test_path(path: str) -> bool:
    """The pack's test-file rule, or a file under a folder named test(s)/testdata/testing
    (test data written in the language, such as a formatter's cases)."""
    return is_test(path) or bool(TEST_FOLDERS & set(path.split("/")[:-1]))


@dataclass
class Question:
    sha: str
    parent: str
    subject: str
    truth: list[str]  # source files the commit modified (they exist at the parent)


def questions(root: Path, language: str, n: int, scan: int, rev: str) -> list[Question]:
    """The newest `n` non-merge commits from `rev` whose subject passes NOT_A_QUESTION and
    has MIN_WORDS content words, modifying 1..MAX_TRUTH non-test source files of
    `language` (added files do not exist when the question is asked: not counted)."""
    log = git(root, "log", "--no-merges", "--no-renames", f"-{scan}", "--format=@%H %P%x09%s",
              "--name-status", rev)
    out: list[Question] = []
    current: Question | None = None
    for line in log.splitlines() + ["@"]:
        if line.startswith("@"):
            if current and 1 <= len(current.truth) <= MAX_TRUTH:
                out.append(current)
                if len(out) >= n:
                    break
            head, _, subject = line[1:].partition("\t")
            shas = head.split()
            ok = len(shas) == 2 and not NOT_A_QUESTION.match(subject.strip()) and \
                len(content_words(subject)) >= MIN_WORDS
            current = Question(shas[0], shas[1], subject, []) if ok else None
            continue
        if current is None or not line.strip():
            continue
        status, _, path = line.partition("\t")
        pack = pack_for_path(path)
        if pack is None or pack.name != language or is_test_path(path):
            continue
        if status[0] == "M":
            current.truth.append(path)
    return out


def content_words(text: str) -> list[str]:
    from spyglass.query.explore import STOP
    return [w for w in words(text) if w not in STOP and not w.isdigit()]


def keyword_ranking(root: Path, files: list[str], terms: list[str]) -> list[str]:
    """The baseline: files by the summed count of case-insensitive occurrences of the
    question's words (ripgrep-style substring counts; the same words explore gets)."""
    scores: list[tuple[int, str]] = []
    for path in files:
        try:
            text = (root / path).read_text(encoding="utf-8", errors="replace").lower()
        except OSError:
            continue
        score = sum(text.count(t) for t in terms)
        if score:
            scores.append((score, path))
    scores.sort(key=lambda s: (-s[0], s[1]))
    return [p for _, p in scores]


def explore_ranking(ci: CodeIntel, subject: str) -> tuple[list[str], list[str]]:
    """Explore's files: in the order of its ranked definitions, and its `files` section."""
    result = ci.explore(subject, budget=BUDGET)
    ranked = [r.path for r in result.results]  # type: ignore[attr-defined]
    files = list(dict(result.extra).get("files", ()))  # type: ignore[call-overload]
    return ([p for p in dict.fromkeys(ranked) if not is_test_path(p)],
            [p for p in files if not is_test_path(p)])


def recall(truth: list[str], ranked: list[str], k: int) -> float:
    return len(set(truth) & set(ranked[:k])) / len(truth)


@dataclass
class Score:
    sha: str
    subject: str
    truth: list[str]
    explore: list[str]
    files: list[str]
    keyword: list[str]
    explore5: float
    explore10: float
    files5: float
    files10: float
    keyword5: float
    keyword10: float
    seconds: float


def source_files(root: Path, language: str) -> list[str]:
    listed = git(root, "ls-files").splitlines()
    return [p for p in listed if (pack := pack_for_path(p)) is not None
            and pack.name == language and not is_test_path(p)]


def evaluate(gitdir: Path, name: str, language: str, n: int, scan: int, rev: str,
             cache: Path = CACHE) -> dict[str, object]:
    root = cache / name
    if not root.exists():
        root.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", *GIT_SAFETY, "-c", "protocol.file.allow=always", "clone", "-q",
                        "--no-checkout", str(gitdir), str(root)], env=git_env(), check=True)
    qs = questions(root, language, n, scan, rev)
    scores: list[Score] = []
    for i, q in enumerate(qs):
        git(root, "checkout", "-q", "-f", "--detach", q.parent)
        git(root, "clean", "-q", "-f", "-d", "-x", "-e", ".spyglass")
        ci = CodeIntel(root)
        ci.index()
        t0 = time.perf_counter()
        ranked, files = explore_ranking(ci, q.subject)
        seconds = time.perf_counter() - t0
        base = keyword_ranking(root, source_files(root, language), content_words(q.subject))
        s = Score(q.sha, q.subject, q.truth, ranked[:10], files, base[:10],
                  recall(q.truth, ranked, 5), recall(q.truth, ranked, 10),
                  recall(q.truth, files, 5), recall(q.truth, files, 10),
                  recall(q.truth, base, 5), recall(q.truth, base, 10), round(seconds, 3))
        scores.append(s)
        print(f"[{i + 1}/{len(qs)}] {q.sha[:10]} explore r@10={s.explore10:.2f} files "
              f"r@10={s.files10:.2f} keyword r@10={s.keyword10:.2f} {seconds * 1000:.0f}ms  "
              f"{q.subject[:60]}", file=sys.stderr)

    def mean(xs: list[float]) -> float:
        return round(statistics.fmean(xs), 3) if xs else 0.0
    return {
        "repo": name, "language": language, "rev": git(root, "rev-parse", rev).strip(),
        "questions": len(scores),
        "explore_recall@5": mean([s.explore5 for s in scores]),
        "explore_recall@10": mean([s.explore10 for s in scores]),
        "files_recall@5": mean([s.files5 for s in scores]),
        "files_recall@10": mean([s.files10 for s in scores]),
        "keyword_recall@5": mean([s.keyword5 for s in scores]),
        "keyword_recall@10": mean([s.keyword10 for s in scores]),
        "explore_seconds_median": statistics.median([s.seconds for s in scores] or [0]),
        "per_question": [asdict(s) for s in scores],
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--repo", required=True, type=Path, help="a git directory with history")
    p.add_argument("--name", required=True, help="cache folder name (owner+name)")
    p.add_argument("--language", required=True, choices=("python", "go"))
    p.add_argument("--questions", type=int, default=30)
    p.add_argument("--scan", type=int, default=2000, help="newest commits to look through")
    p.add_argument("--rev", default="origin/HEAD", help="newest commit to consider")
    p.add_argument("--out", type=Path, help="write the JSON report here")
    p.add_argument("--cache", type=Path, default=CACHE,
                   help="folder of the working clones (one per repository)")
    args = p.parse_args()
    report = evaluate(args.repo, args.name, args.language, args.questions, args.scan,
                      args.rev, args.cache)
    print(json.dumps({k: v for k, v in report.items() if k != "per_question"}, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
