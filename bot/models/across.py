"""Questions across days (questions/across/days.py): the span of calendar days asked about, the PRs
that match, and why such a question is refused. Two of these are `Reply` kinds (see replies.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import ClassVar, Literal

from bot.models.card import Card
from bot.models.note import Note
from bot.models.pr import PRListing

SpanKind = Literal[
    "today",
    "yesterday",
    "day",
    "range",
    "week",
    "last_week",
    "month",
    "last_month",
    "days",
    "since",
    "digest",
    "digests",  # the PRs of the asking channel's recent digests
    "release",
]


@dataclass(frozen=True)
class Span:
    """Calendar days a question asks about, in the asker's zone: from `start` to `end`
    (exclusive), or to now when `end` is None. `days`: the N of "the last N days"."""

    kind: SpanKind
    start: date
    end: date | None = None
    days: int = 0
    unreadable: str = ""  # "since 2026-13-45": what was typed, which is no date (refused)
    release: str = ""  # kind "release": the tag ("v0.12.0"), or the range ("v0.11.0...v0.12.0")
    through: date | None = None  # a span to now: the asker's day it was answered on (its last)

    @property
    def last(self) -> date:
        """The last day the span covers."""
        if self.end is not None:
            return max(self.end - timedelta(days=1), self.start)
        return self.through or self.start


DayProblemKind = Literal["not_a_date", "ambiguous", "future", "reversed", "too_long"]


@dataclass(frozen=True)
class DayProblem:
    """Days a question names that cannot be answered as they are: `said` is what was typed; for
    "ambiguous" (05/06), `readings` are the two dates it may be."""

    kind: DayProblemKind
    said: str
    readings: tuple[date, ...] = ()


@dataclass(frozen=True)
class AcrossItem:
    """A merged PR that matches a question across days, with its cached card (None: no card yet,
    matched on its title and labels only) and its changed lines (0 when unknown)."""

    listing: PRListing
    card: Card | None
    size: int = 0
    paths: tuple[str, ...] = ()  # the first files it changed, from its cached snapshot


@dataclass(frozen=True)
class AcrossMatches:
    """The merged PRs of `repo` in `span` that match `topic` (or that revert / follow up
    `target`), best first, at most a screenful: `more` were left out, `title_only` of those
    matched had no cached card."""

    repo: str
    span: Span
    topic: tuple[str, ...]
    items: tuple[AcrossItem, ...]
    more: int
    title_only: int
    merged: int  # PRs merged in the span, matching or not
    target: PRListing | None = None  # "did anything revert #N": #N
    relation: str | None = None  # "revert" | "follow_up"
    intent: str = "list"  # "list" | "count" | "biggest" | "one" (models/reading.py Intent)
    author: str | None = None  # the person asked about, as typed
    verdict: str | None = None  # only the PRs of this verdict were asked for ("read": read carefully)
    found: int = 0  # PRs that match, shown or not
    # Written by the model from the matching PRs' cards (never a PR fetched for it); "": none.
    answer: str = ""
    queued: int = 0  # cards of matching PRs asked of the workers now (they had none)
    # The person asked about by name is several people here: (login, display name) of each.
    people: tuple[tuple[str, str | None], ...] = ()
    unread: int = 0  # authors whose display name could not be read now, so were not matched
    unread_why: Note | None = None  # why, as GitHub said it (its rate limit and its reset)
    kind: ClassVar[str] = "across"


RefusedReason = Literal[
    "too_long",
    "future",
    "not_a_date",
    "ambiguous",
    "reversed",
    "unavailable",
    "not_found",
    "no_repo",
    "not_allowed",
    "release_unknown",
]


@dataclass(frozen=True)
class AcrossRefused:
    """A question across days that cannot be answered: a span too long or not begun yet,
    GitHub's list of merged PRs not readable, no repository to ask about, or one this channel
    may not be told about (`repo` is then only what the asker typed)."""

    reason: RefusedReason
    repo: str = ""
    days: int = 0  # "too_long": the most days a question may span
    said: str = ""  # "not_a_date", "future", "reversed", "ambiguous": the days as typed; a tag
    readings: tuple[str, ...] = ()  # "ambiguous": the dates it may be (YYYY-MM-DD)
    why: Note | None = None  # "unavailable": GitHub's own reason when it gave one (its rate limit)
    # "not_allowed": the repository as the refusal may name it (Audience.named); None: "a private
    # repository".
    shown: str | None = field(default=None, compare=False)  # how it is said, not what it is
    kind: ClassVar[str] = "across_refused"


@dataclass(frozen=True)
class InRelease:
    """Which release a PR is in: the first full release whose range holds it (`tag` None: none
    of the recent ones, `latest` the newest there is, None when the repository has none)."""

    pr: PRListing
    tag: str | None
    published: date | None = None
    latest: str | None = None
    kind: ClassVar[str] = "in_release"
