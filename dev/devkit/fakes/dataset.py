"""The shared vLLM data set (real merged PRs), synthetic rows shaped like it, and fake patches.

Rows follow /work/shared/data/README.md: number, title, merged_at, author, body,
files[{path, additions, deletions, binary?, old_path?}], additions, deletions, commit.
The data set has no diff text, so patches are synthesised with `synth_patch`; nor review comments,
so `review_comments` writes a few per PR (about five: the 52-PR day has a few hundred, which
GitHub's repository listing of review comments spreads over several pages of 100). Its `author` is a
git author name, not a GitHub login: `login_of` gives each author the login the fake GitHub knows
them by, and `populate` registers the author as that account's display name.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import random
import re
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from devkit.fakes.github import FakeGitHub

# <repo root>/../shared/data: the shared folder sits beside the work tree (and beside CI's clone).
# PRDIGEST_DATA names another folder holding vllm-prs.jsonl (and seed-prs.json).
DATA_ENV = "PRDIGEST_DATA"
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[3].parent / "shared" / "data"
DATASET_PATH = Path(os.environ.get(DATA_ENV) or DEFAULT_DATA_DIR) / "vllm-prs.jsonl"


class DatasetMissing(FileNotFoundError):
    """The data set is not where it is looked for; the message says where, and how to point elsewhere."""


def missing_message(path: Path) -> str:
    return (
        f"the vLLM data set is not at {path}: put the shared folder beside the repository "
        f"(../shared/data) or set {DATA_ENV} to the folder that holds vllm-prs.jsonl"
    )


def load_rows(path: str | Path | None = None) -> list[dict[str, Any]]:
    """All rows of the JSONL data set, in file (merge) order."""
    where = Path(path or DATASET_PATH)
    try:
        with open(where, encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]
    except FileNotFoundError as exc:
        raise DatasetMissing(missing_message(where)) from exc


def merged_on(rows: Iterable[dict[str, Any]], day: str) -> list[dict[str, Any]]:
    """Rows merged on a UTC day given as YYYY-MM-DD (the README's own selection rule)."""
    return [row for row in rows if row["merged_at"][:10] == day]


def parse_time(value: str) -> datetime:
    return datetime.fromisoformat(value)


# -- patches ---------------------------------------------------------------------------------

_CONTEXT = 3  # context lines before and after each hunk's changes
_CHANGED_PER_HUNK = 34  # so a hunk never exceeds 40 lines
_GAP = 20  # unchanged lines between hunks, only visible in the hunk headers' line numbers

# (suffixes, added line, removed line, context line, hunk section); {i} is a per-file counter.
_STYLES: list[tuple[tuple[str, ...], str, str, str, str]] = [
    (
        (".py", ".pyi"),
        "    value_{i} = compute({i})",
        "    value_{i} = legacy_compute({i})",
        "    return result_{i}",
        "def function_{i}():",
    ),
    (
        (".cu", ".cuh", ".cpp", ".cc", ".c", ".h", ".hpp"),
        "  int value_{i} = compute({i});",
        "  int value_{i} = legacy_compute({i});",
        "  // step {i}",
        "void kernel_{i}()",
    ),
    (
        (".rs",),
        "    let value_{i} = compute({i});",
        "    let value_{i} = legacy_compute({i});",
        "    // step {i}",
        "fn function_{i}()",
    ),
    (
        (".md", ".rst", ".txt"),
        "Line {i} of the updated documentation.",
        "Line {i} of the old documentation.",
        "",
        "## Section {i}",
    ),
    ((".yaml", ".yml"), "  - step_{i}: run-{i}", "  - step_{i}: old-run-{i}", "  # stage {i}", "jobs:"),
    ((".toml", ".cfg", ".ini"), "option_{i} = {i}", "option_{i} = {i}0", "# group {i}", "[section_{i}]"),
    ((".json",), '  "key_{i}": {i},', '  "old_key_{i}": {i},', '  "fixed_{i}": true,', ""),
    ((".sh",), 'echo "step {i}"', 'echo "old step {i}"', "# stage {i}", "run_{i}()"),
]
_REQUIREMENTS = ("package-{i}>=1.{i}", "package-{i}==0.{i}", "# pinned {i}", "")
_DEFAULT_STYLE = ("line {i}", "old line {i}", "unchanged line {i}", "")


def _style(path: str) -> tuple[str, str, str, str]:
    name = path.rsplit("/", 1)[-1].lower()
    if name.startswith("requirements") or path.startswith("requirements/"):
        return _REQUIREMENTS
    if name.startswith("dockerfile"):
        return ("RUN echo step-{i}", "RUN echo old-step-{i}", "# layer {i}", "")
    for suffixes, *style in _STYLES:
        if name.endswith(suffixes):
            return style[0], style[1], style[2], style[3]
    return _DEFAULT_STYLE


def synth_patch(path: str, additions: int, deletions: int) -> str:
    """A deterministic unified-diff body (hunks only, like GitHub's `patch` field).

    Exactly `additions` '+' lines and `deletions` '-' lines, split over hunks of at most 40 lines,
    each framed by a few context lines. Empty string when nothing changed.
    """
    if additions <= 0 and deletions <= 0:
        return ""
    added, removed, context, section = _style(path)
    hunks = math.ceil((additions + deletions) / _CHANGED_PER_HUNK)
    old_line = new_line = 1
    counter = 0
    out: list[str] = []
    for k in range(hunks):
        # Spread both kinds evenly so every hunk looks like an edit, not a pure block of '+'.
        dels = deletions // hunks + (k < deletions % hunks)
        adds = additions // hunks + (k < additions % hunks)
        old_len, new_len = 2 * _CONTEXT + dels, 2 * _CONTEXT + adds
        header = f"@@ -{old_line},{old_len} +{new_line},{new_len} @@"
        out.append(f"{header} {section.format(i=k)}".rstrip())
        lines = [" " + context.format(i=counter + j) for j in range(_CONTEXT)]
        lines += ["-" + removed.format(i=counter + j) for j in range(dels)]
        lines += ["+" + added.format(i=counter + j) for j in range(adds)]
        lines += [" " + context.format(i=counter + _CONTEXT + j) for j in range(_CONTEXT)]
        out.extend(lines)
        counter += max(dels, adds) + 2 * _CONTEXT
        old_line += old_len + _GAP
        new_line += new_len + _GAP
    return "\n".join(out)


# -- populating a FakeGitHub -----------------------------------------------------------------

# Where the rule would give two authors of the data set one login: "Misha Goin" would be "mgoin",
# Michael Goin's. A login names one account, so the second author gets one of their own.
_LOGINS = {"Misha Goin": "mishagoin"}


def login_of(author: str) -> str:
    """The GitHub login of a data-set author, which does not read like their name.

    A name with spaces becomes its first word's initial and its last word, lower-cased ASCII
    ("Nick Hill" -> "nhill", "Kevin H. Luu" -> "kluu", "Jane (Yuan) Xu" -> "jxu", "Elvir Crnčević"
    -> "ecrncevic"), as many real logins are, so a question naming "Nick Hill" finds his PRs only
    through his display name. A handle without spaces ("shikamd123", "dependabot[bot]") stays as is.
    """
    author = author.strip()
    if author in _LOGINS:
        return _LOGINS[author]
    if " " not in author:
        return author
    # A parenthesised part is a nickname ("Wei-Cheng (Wayne) Chiu"), not the first or last word.
    words = [word for word in (_login_part(w) for w in re.sub(r"\([^)]*\)", " ", author).split()) if word]
    if not words:  # no Latin letter or digit at all: keep the name, joined as a login would be
        return author.replace(" ", "-").lower()
    return words[0][:1] + words[-1] if len(words) > 1 else words[0]


def _login_part(word: str) -> str:
    """A word in the characters a GitHub login may hold (ASCII letters, digits, hyphens)."""
    ascii_word = unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9-]", "", ascii_word).strip("-")


def row_files(row: dict[str, Any]) -> list[dict[str, Any]]:
    """A row's files in FakeGitHub.add_pr's format."""
    files = []
    for f in row["files"]:
        entry: dict[str, Any] = {
            "path": f["path"],
            "additions": f.get("additions") or 0,  # binary files have null counts
            "deletions": f.get("deletions") or 0,
        }
        if f.get("binary"):
            entry["binary"] = True
        if f.get("old_path"):
            entry["previous_path"] = f["old_path"]
            entry["status"] = "renamed"
        files.append(entry)
    return files


# What reviewers write on a diff line; no digits, mentions or links, so that a card or a question
# never finds a figure or a reference here that the PR itself does not hold.
_REVIEW_BODIES = (
    "Could this branch get a test of its own?",
    "nit: the name reads oddly here.",
    "Is this still needed after the refactor?",
    "Why copy the tensor here instead of viewing it?",
    "This lock looks wider than it needs to be.",
    "Can we keep the old behaviour behind a flag?",
    "Please add a short comment on why this is safe.",
    "Looks good to me once CI is green.",
    "Does this path run on ROCm as well?",
    "Should this be logged at debug level instead?",
)
_REVIEWERS = ("reviewer-a", "reviewer-b", "reviewer-c", "maintainer")
# Review comments per PR, cycled through by PR number: five on average.
_REVIEWS_PER_PR = (0, 2, 3, 4, 5, 6, 7, 8, 10)
# The fake opens each PR this long before its merge (FakeGitHub.add_pr's default); its review
# comments fall in between.
_OPEN_FOR = timedelta(days=1)


def review_comments(row: dict[str, Any]) -> list[dict[str, Any]]:
    """A few review comments on the row's files, written while the PR was open (deterministic)."""
    paths = [f["path"] for f in row["files"] if not f.get("binary")]
    if not paths:
        return []
    rng = random.Random(row["number"])
    merged_at = parse_time(row["merged_at"])
    count = _REVIEWS_PER_PR[row["number"] % len(_REVIEWS_PER_PR)]
    moments = sorted(merged_at - _OPEN_FOR * rng.uniform(0.02, 0.98) for _ in range(count))
    return [
        {
            "author": rng.choice(_REVIEWERS),
            "body": rng.choice(_REVIEW_BODIES),
            "path": rng.choice(paths),
            "created_at": moment.replace(microsecond=0),
        }
        for moment in moments
    ]


def populate(
    fake: FakeGitHub, rows: Iterable[dict[str, Any]], repo: str = "vllm-project/vllm", *, reviews: bool = True
) -> int:
    """Add `repo` and every row as a merged PR by its author's login (`login_of`), with the author
    as that account's display name and a few review comments (`review_comments`; `reviews` False:
    none, the PRs exactly as the data set records them); returns the number of PRs added."""
    fake.add_repo(repo)
    added = 0
    for row in rows:
        merged_at = parse_time(row["merged_at"])
        login = login_of(row["author"])
        fake.add_user(login, row["author"])
        fake.add_pr(
            repo,
            row["number"],
            title=row["title"],
            body=row.get("body") or "",
            author=login,
            merged_at=merged_at,
            updated_at=merged_at,
            merge_commit_sha=row["commit"],
            files=row_files(row),
            review_comments=review_comments(row) if reviews else [],
        )
        added += 1
    return added


# -- synthetic rows --------------------------------------------------------------------------

# Nearest-rank percentiles from the README, as (quantile, value) knots; sampled by
# interpolating in log space, so the synthetic p50/p90/p99/max land near the real ones.
_FILES_KNOTS = [(0.0, 1), (0.5, 2), (0.9, 11), (0.99, 31), (1.0, 56)]
_LINES_KNOTS = [(0.0, 1), (0.5, 68), (0.9, 534), (0.99, 2383), (1.0, 6475)]
_SIZE_CORRELATION = 0.7  # big PRs touch many files; a Gaussian copula keeps both marginals

_PREFIXES = [
    ("[Bugfix]", 25),
    ("", 11),
    ("[ROCm]", 8),
    ("[CI]", 7),
    ("[XPU]", 4),
    ("[Perf]", 4),
    ("[Model]", 3),
    ("[Kernel]", 3),
    ("[Misc]", 2),
    ("[Frontend]", 2),
    ("[Doc]", 3),
    ("[Feature]", 2),
    ("[Core]", 2),
]
_VERBS = ["Fix", "Add", "Support", "Refactor", "Remove", "Update", "Optimize", "Enable", "Clean up", "Speed up"]
_SUBJECTS = [
    "FP8 MoE dispatch",
    "KV cache transfer",
    "prefix caching",
    "speculative decoding",
    "LoRA loading",
    "the OpenAI server",
    "tool-call parsing",
    "CUDA graph capture",
    "attention backend selection",
    "scheduler preemption",
    "tokenizer detokenization",
    "multimodal inputs",
    "pipeline parallel ranks",
    "the sampler",
    "structured outputs",
    "quantized linear layers",
    "expert parallel all-to-all",
]
_MODELS = ["llama", "qwen3", "deepseek_v3", "mixtral", "gemma3", "kimi_k3", "glm4", "phi4"]
_AREAS = [
    "engine",
    "worker",
    "attention",
    "distributed",
    "entrypoints/openai",
    "model_executor/layers",
    "v1/core",
    "v1/spec_decode",
    "lora",
    "multimodal",
    "config",
    "sampling_params",
]

# Where each kind of PR tends to change files: (directory template, suffix, weight).
_DIRS: dict[str, list[tuple[str, str, int]]] = {
    "code": [("vllm/{area}", ".py", 6), ("tests/{area}", ".py", 3), ("csrc", ".cu", 1), ("docs/features", ".md", 1)],
    "[CI]": [
        (".github/workflows", ".yml", 3),
        (".buildkite/test_areas", ".yaml", 3),
        ("tests/{area}", ".py", 2),
        ("requirements", ".txt", 1),
    ],
    "[Doc]": [("docs/{area}", ".md", 6), ("examples/online_serving", ".py", 1), ("README", ".md", 1)],
    "[Kernel]": [
        ("csrc/quantization", ".cu", 3),
        ("csrc", ".cuh", 1),
        ("vllm/model_executor/layers", ".py", 3),
        ("tests/kernels", ".py", 2),
        ("CMakeLists", ".txt", 1),
    ],
    "[Model]": [
        ("vllm/model_executor/models", ".py", 4),
        ("tests/models", ".py", 2),
        ("docs/models", ".md", 1),
        ("vllm/transformers_utils/configs", ".py", 1),
    ],
}


def _from_knots(knots: list[tuple[float, int]], u: float) -> int:
    for (q0, v0), (q1, v1) in itertools.pairwise(knots):
        if u <= q1:
            t = (u - q0) / (q1 - q0)
            return max(1, round(math.exp(math.log(v0) + t * (math.log(v1) - math.log(v0)))))
    return knots[-1][1]


def _split(total: int, parts: int, rng: random.Random) -> list[int]:
    """`total` split into `parts` positive, skewed amounts (a few files carry most lines)."""
    weights = [rng.paretovariate(1.2) for _ in range(parts)]
    scale = (total - parts) / sum(weights)
    amounts = [1 + int(w * scale) for w in weights]
    amounts[0] += total - sum(amounts)  # rounding remainder
    return amounts


def _paths(kind: str, count: int, rng: random.Random) -> list[str]:
    dirs = _DIRS.get(kind, _DIRS["code"])
    area = rng.choice(_AREAS if kind != "[Model]" else _MODELS)
    paths: list[str] = []
    while len(paths) < count:
        directory, suffix, _ = rng.choices(dirs, weights=[w for *_, w in dirs])[0]
        directory = directory.format(area=area)
        if directory in ("README", "CMakeLists"):
            path = directory + suffix
        else:
            stem = f"{rng.choice(['test_', ''] if directory.startswith('tests') else [''])}{rng.choice(_WORDS)}"
            path = f"{directory}/{stem}_{len(paths)}{suffix}"
        if path not in paths:
            paths.append(path)
    return paths


_WORDS = ["utils", "config", "runner", "kernels", "backend", "layer", "parser", "loader", "scheduler", "ops"]


def _title(prefix: str, rng: random.Random) -> str:
    text = f"{rng.choice(_VERBS)} {rng.choice(_SUBJECTS)}"
    if prefix == "[Model]":
        text = f"Add support for {rng.choice(_MODELS).title()} variant"
    elif prefix == "[Doc]":
        text = rng.choice(["Fix typo in", "Update", "Clarify"]) + f" {rng.choice(_SUBJECTS)} docs"
    return f"{prefix} {text}".strip()


def generate_rows(count: int, seed: int, start: datetime, span: timedelta) -> list[dict[str, Any]]:
    """`count` synthetic rows merged in [start, start + span), oldest first; same seed, same rows."""
    rng = random.Random(seed)
    normal = NormalDist()
    start = start if start.tzinfo else start.replace(tzinfo=UTC)
    offsets = sorted(rng.random() * span.total_seconds() for _ in range(count))
    numbers = rng.sample(range(40_000, 40_000 + max(4 * count, 1_000)), count)
    authors = [f"dev-{i:03d}" for i in range(max(8, count // 2))]
    # A few prolific authors and a long tail, like the real data's 225 authors for 461 PRs.
    author_weights = [1 / (i + 1) for i in range(len(authors))]
    rows = []
    for index, (offset, number) in enumerate(zip(offsets, numbers, strict=True)):
        z_files = rng.gauss(0, 1)
        z_lines = _SIZE_CORRELATION * z_files + math.sqrt(1 - _SIZE_CORRELATION**2) * rng.gauss(0, 1)
        n_files = _from_knots(_FILES_KNOTS, normal.cdf(z_files))
        n_lines = max(n_files, _from_knots(_LINES_KNOTS, normal.cdf(z_lines)))
        prefix = rng.choices([p for p, _ in _PREFIXES], weights=[w for _, w in _PREFIXES])[0]
        kind = prefix if prefix in _DIRS else "code"
        files: list[dict[str, Any]] = []
        for path, lines in zip(_paths(kind, n_files, rng), _split(n_lines, n_files, rng), strict=True):
            if rng.random() < 0.003:  # about as rare as in the real data (4 in ~2,000 files)
                files.append(
                    {"path": path.rsplit(".", 1)[0] + ".png", "additions": None, "deletions": None, "binary": True}
                )
                continue
            deletions = round(lines * rng.betavariate(0.7, 2.5))
            entry: dict[str, Any] = {"path": path, "additions": lines - deletions, "deletions": deletions}
            if rng.random() < 0.002:
                entry["old_path"] = path.replace("/", "/old_", 1) if "/" in path else "old_" + path
            files.append(entry)
        merged_at = start + timedelta(seconds=int(offset))
        rows.append(
            {
                "number": number,
                "title": _title(prefix, rng),
                "merged_at": merged_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "author": rng.choices(authors, weights=author_weights)[0],
                "body": "",
                "files": files,
                "additions": sum(f["additions"] or 0 for f in files),
                "deletions": sum(f["deletions"] or 0 for f in files),
                "commit": hashlib.sha1(f"{seed}:{index}".encode()).hexdigest(),
            }
        )
    return rows


def size_percentiles(rows: Sequence[dict[str, Any]], key: str) -> dict[str, int]:
    """Nearest-rank p50/p90/p99/max of 'files' (count) or 'lines' (additions + deletions)."""

    def size(row: dict[str, Any]) -> int:
        return len(row["files"]) if key == "files" else row["additions"] + row["deletions"]

    values = sorted(size(row) for row in rows)
    ranks = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "max": 1.0}
    return {name: values[max(0, math.ceil(q * len(values)) - 1)] for name, q in ranks.items()}
