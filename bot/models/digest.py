"""What a digest holds: a channel's filters, the carded PRs in order, the digest itself, what was
posted in a channel for a day (its thread), and the outcome of one posting run.

Values only: digests/ builds them, render/ words them, store/ keeps threads and runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from bot.models.card import Card, Verdict
from bot.models.note import Language, Note
from bot.models.pr import PRListing, Window

# What a channel is sent on a day without merged PRs: a short note, or nothing.
QuietDays = Literal["note", "silent"]
# How often a channel hears of its repositories: a digest a day, a roll-up a week, or both.
Cadence = Literal["daily", "weekly", "both"]
# Whether a channel gets each new release of its repositories posted.
ReleasesMode = Literal["off", "post"]


@dataclass(frozen=True)
class Boost:
    """Why a card moved within its verdict group: the area whose channel feedback moved it most,
    and how many of the channel's PRs in that area were marked (never who marked them)."""

    area: str
    prs: int
    up: bool


@dataclass(frozen=True)
class Filters:
    """A channel's rules for which merged PRs it wants to hear about (see digests/filters.py)."""

    exclude_authors: tuple[str, ...] = ()  # globs: "dependabot[bot]", "*[bot]"
    labels_include: tuple[str, ...] = ()  # empty: any label
    labels_exclude: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()  # globs over changed paths; empty: every path


@dataclass(frozen=True)
class DigestOptions:
    """How one channel's digest is built and posted: its language, its filters, and what a day
    without merged PRs posts. A channel's plan gives them; `prdigest digest --post` its flags."""

    language: Language
    filters: Filters
    quiet_days: QuietDays


@dataclass(frozen=True)
class DigestItem:
    listing: PRListing
    card: Card
    size: int  # added + deleted lines, for ordering
    # The changed paths (the first few hundred), so questions in the digest's thread can be
    # matched to a PR without reading every snapshot again.
    paths: tuple[str, ...] = ()
    # Lines of the review comments that may name an earlier PR (core/links.py `mentions`).
    mentions: tuple[str, ...] = ()
    # Set when the channel's feedback moved this card within its verdict group (digests/feedback.py).
    boost: Boost | None = None


@dataclass(frozen=True)
class Digest:
    repos: tuple[str, ...]
    window: Window
    total_merged: int
    items: tuple[DigestItem, ...]
    language: Language = "en"
    # Things the reader must know about how this digest was made (rate limit, degraded model).
    notes: tuple[Note, ...] = field(default=())
    filters: Filters = Filters()
    # Cards from metadata although a model is configured (it failed): a terminal says it once.
    model_failures: int = 0

    @property
    def shown(self) -> int:
        return len(self.items)

    def count(self, verdict: Verdict) -> int:
        return sum(1 for item in self.items if item.card.verdict == verdict)


@dataclass(frozen=True)
class DigestThread:
    """What the bot posted in one channel for one day: questions in its thread refer to it."""

    channel: str
    thread_ts: str
    day: str
    repos: tuple[str, ...]
    language: Language
    items: tuple[DigestItem, ...]
    window: Window | None = None
    filters: Filters = Filters()


@dataclass(frozen=True)
class DigestRun:
    """The outcome of one scheduled or --post digest, for the App Home and for people on call."""

    channel: str
    day: str
    finished_at: datetime
    prs: int
    posted_messages: int
    failures: tuple[Note, ...] = ()


@dataclass(frozen=True)
class DigestNow:
    """What `/pr digest` did (digests/now.py): nothing to post (`none`: the channel gets no digest;
    `not_in_channel`: the app was not invited), the day's digest posted `already` (with its
    link, and when the next one comes), `failed` (why: a note whose private names are concealed
    for the channel, or a sentence), `busy` (another replica is posting it), or `posted`."""

    outcome: Literal["none", "not_in_channel", "already", "failed", "busy", "posted"]
    day: str = ""
    next_at: datetime | None = None  # the next scheduled post, in the channel's zone
    zone: str = ""
    permalink: str | None = None
    reason: Note | None = None
    reason_text: str = ""
