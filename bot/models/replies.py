"""What a question in Slack gets back: one small frozen value per kind, joined in the tagged union
`Reply`. Services decide which kind; render/slack/replies.py words each (mypy checks every branch).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from bot.models.across import AcrossMatches, AcrossRefused, InRelease, Span
from bot.models.card import Card
from bot.models.note import Note
from bot.models.pr import PRListing, PRRef, Window
from bot.models.rules import Rule


@dataclass(frozen=True)
class PRAnswer:
    """The model's answer about one PR."""

    about: PRListing
    answer: str
    card: Card
    paths: tuple[str, ...]
    kind: ClassVar[str] = "answer"


@dataclass(frozen=True)
class DigestAnswer:
    """The model's answer about the whole digest, above the digest's PRs whose title, headline
    or files match the question (`matches`, as DigestMatches lists them without a model)."""

    answer: str
    matches: tuple[PRListing, ...] = ()
    kind: ClassVar[str] = "digest_answer"


@dataclass(frozen=True)
class DigestMatches:
    """No model answer: the digest's PRs whose title, headline or files match the question."""

    choices: tuple[PRListing, ...]
    model_failed: bool
    kind: ClassVar[str] = "digest_matches"


@dataclass(frozen=True)
class Choose:
    """Several PRs fit: the asker picks one."""

    choices: tuple[PRListing, ...]
    kind: ClassVar[str] = "choose"


@dataclass(frozen=True)
class CardReply:
    """No model, or it failed: the PR's card stands in for an answer.

    `unusable`: the model did answer, but nothing usable was left once sanitized (chat-template
    tokens, thinking, mentions); `model_failed` is set then too, for whoever only asks that.
    """

    about: PRListing
    card: Card
    paths: tuple[str, ...]
    model_failed: bool = False
    unusable: bool = False
    budget_spent: bool = False  # the day's token budget is spent: the model was not asked
    kind: ClassVar[str] = "card"


@dataclass(frozen=True)
class NotAllowed:
    """The PR's repository (`ref`), or the whole digest (`ref` None), is not for this channel."""

    ref: PRRef | None
    # The repository as the refusal may name it where it is posted (Audience.named): None says
    # "a private repository".
    shown: str | None = field(default=None, compare=False)  # how it is said, not what it is
    kind: ClassVar[str] = "not_allowed"


@dataclass(frozen=True)
class NotYours:
    """A Share click by someone other than the person the card was shown to: only they decide
    to post it for everyone in the channel."""

    kind: ClassVar[str] = "not_yours"


@dataclass(frozen=True)
class ReleaseRefused:
    """No release to show (`/pr release`): a tag the repository lacks (`usage`: the sentence key
    and values of its error), or, with none, the repository's releases could not be read."""

    repo: str
    usage: Note | None = None
    kind: ClassVar[str] = "release_refused"


@dataclass(frozen=True)
class ReleaseShared:
    """What a release's Share click did: posted it (or found it posted), or nothing to post."""

    posted: bool
    kind: ClassVar[str] = "release_shared"


@dataclass(frozen=True)
class PRNotFound:
    ref: PRRef
    kind: ClassVar[str] = "not_found"


@dataclass(frozen=True)
class Unavailable:
    """GitHub could not be read; `why` is GitHub's own reason when it gave one (its rate limit,
    said with when it resets, as every surface says it)."""

    ref: PRRef
    why: Note | None = None
    kind: ClassVar[str] = "unavailable"


@dataclass(frozen=True)
class Help:
    """No PR in the question, nor days to look across. What was understood of it is said back
    with an example that would work: its topic words, and the days it named (if any)."""

    topic: tuple[str, ...] = ()
    span: Span | None = None
    kind: ClassVar[str] = "help"


@dataclass(frozen=True)
class Why:
    """Which of the channel's rules brought a PR into the digest or left it out."""

    about: PRListing
    rules: tuple[Rule, ...]
    included: bool
    window: Window | None
    kind: ClassVar[str] = "why"


Reply = (
    (PRAnswer | DigestAnswer | DigestMatches | Choose | CardReply | NotAllowed | PRNotFound | Unavailable | Help | Why)
    | AcrossMatches
    | AcrossRefused
    | InRelease
)
