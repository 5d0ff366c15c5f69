"""Why a PR is where it is, rule by rule: a channel's filters (in its digest or not), the signals
that set a heuristic card's verdict, and the channel's feedback that moved it (see `Why`).

Each value has its own field; render/slack/replies.py words a rule from its kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FilterKind = Literal["repo", "window", "author", "labels_include", "labels_exclude", "paths"]
# What moved a card's verdict when it was made without a model (core/heuristic/signals.py): its size, what
# its description holds, and the marks of a mechanical change.
SignalKind = Literal[
    "size",
    "unread",
    "large",
    "cross_cutting",
    "tagged",
    "kernel",
    "api",
    "default",
    "root_cause",
    "benchmark",
    "figure",
    "design",
    "reviews",
    "fixes",
    "cause",
    "explains",
    "bot",
    "dependencies",
    "bump",
    "ci_only",
    "docs_only",
    "wording",
    "typo",
    "revert",
    "no_source",
]
# "feedback": the channel's Useful / Not for us clicks moved the card within its verdict group.
RuleKind = FilterKind | SignalKind | Literal["feedback"]


@dataclass(frozen=True)
class Rule:
    """One rule's verdict on one PR: which rule, whether it let the PR through, and the detail.

    A channel's filter rules say whether a PR is in its digest; a signal rule says what raised
    (`kept` True) or lowered (False) a heuristic card's verdict. `detail` quotes what a filter or
    signal matched (a repository, a label, a heading); a "feedback" rule has none, and says
    instead in how many of the channel's PRs of which area the marks moved the card (`kept`: up).
    """

    kind: RuleKind
    kept: bool
    detail: str = ""
    prs: int = 0  # "feedback": the channel's PRs in `area` marked useful (kept) or not for us
    area: str = ""  # "feedback": the area whose marks moved the card most (a label or a path/)
