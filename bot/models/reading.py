"""Reading: what a question asks, read once for every surface (questions/reading.py).

The digest thread, an @mention, the DM and `prdigest ask` all turn a question into this one
value: the days, the repository, topic words and paths, a person, a verdict, a relation to an
earlier PR, what is wanted of the PRs (a list, a count, the biggest, the one PR meant), the PRs
named outright, and a release (a tag or a tag range, empty until releases are read). Who may
be told what is the Audience's business (models/audience.py), not the reading's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.models.across import DayProblem, Span
from bot.models.card import Verdict
from bot.models.pr import PRRef

# What is wanted of the PRs found: their list, how many there are, the biggest of them, or the
# one PR the words of a title point at ("the lamport PR").
Intent = Literal["list", "count", "biggest", "one"]
Relation = Literal["revert", "follow_up"]
# The parts a reading may have understood, as the help names them back.
Part = Literal["days", "repository", "topic", "person", "verdict", "relation", "count", "biggest", "one", "prs"]


@dataclass(frozen=True)
class Reading:
    span: Span | None = None
    problem: DayProblem | None = None  # days named that cannot be answered (questions/dates.py)
    repo: str | None = None  # the repository named, as typed (None: the channel's)
    topic: tuple[str, ...] = ()  # words, lower-cased
    paths: tuple[str, ...] = ()
    author: str | None = None  # a person named: a display name or a login, as typed
    verdict: Verdict | None = None  # "what should I read carefully": that verdict's PRs only
    target: int | None = None  # "did anything revert #N": N
    relation: Relation | None = None
    intent: Intent = "list"
    named: tuple[PRRef, ...] = ()  # PRs named outright (#N, owner/repo#N, links)
    release: str | None = None  # a tag or "TAG..TAG"; read by the release digests
    listing: bool = False  # worded as asking for PRs ("what merged", "any", "有没有")
    seeking: bool = False  # after one PR by what it does ("find the PR that bumps torch")
    plural: bool = False  # "the biggest PRs": several wanted, not one
    here: bool = False  # "in here", "these", "this one", "这里面": the PRs of the digest asked in

    @property
    def terms(self) -> tuple[str, ...]:
        return self.topic + self.paths

    @property
    def understood(self) -> tuple[Part, ...]:
        """The parts of the question this reading holds, in the order the help names them."""
        parts: list[Part] = []
        if self.span is not None or self.problem is not None:
            parts.append("days")
        if self.repo is not None:
            parts.append("repository")
        if self.terms:
            parts.append("topic")
        if self.author is not None:
            parts.append("person")
        if self.verdict is not None:
            parts.append("verdict")
        if self.target is not None:
            parts.append("relation")
        if self.intent != "list":
            parts.append(self.intent)
        if self.named:
            parts.append("prs")
        return tuple(parts)

    @property
    def across(self) -> bool:
        """Whether this asks about the PRs of days (or of a person, or by their title's words),
        rather than about one PR named outright or about a digest as a whole."""
        if self.target is not None or self.release is not None:
            return True  # a release is answered from its PRs, and "which release has #N" too
        if self.named:
            return False  # "what did #123 change this week?": the PR named is the question's
        if self.problem is not None:
            return True  # answered with what is wrong with the days
        if self.span is not None:
            return (
                self.listing
                or self.seeking
                or self.author is not None
                or self.intent != "list"
                or self.verdict is not None
            )
        # No days named: the recent ones (questions/across/days.py DEFAULT_DAYS); "any reverts?" too.
        wanted = bool(self.terms) or self.relation is not None
        return self.author is not None or self.intent != "list" or ((self.listing or self.seeking) and wanted)
