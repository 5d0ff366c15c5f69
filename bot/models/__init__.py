"""Values that flow between the layers: what a PR is, what a card says, what a digest holds.

Plain frozen dataclasses; no I/O, no vendor types and no service. Adapters build them, services
and renderers read them, the store serialises them (see store/codec.py). One module per kind of
value; every name is re-exported here, so `from bot.models import X` is how the code imports them.
"""

from __future__ import annotations

from bot.models.across import AcrossItem, AcrossMatches, AcrossRefused, DayProblem, InRelease, Span, SpanKind
from bot.models.asked import Asked, NoAnswer
from bot.models.audience import Audience
from bot.models.card import VERDICT_ORDER, Card, CardKey, CardSource, Coverage, NoModel, SkipClass, SkippedFile, Verdict
from bot.models.channels import AuditEntry, ChannelStatus, Vote
from bot.models.chat import OUTPUT_MODES, Message, OutputMode, Question, Turn
from bot.models.digest import (
    Boost,
    Cadence,
    Digest,
    DigestItem,
    DigestNow,
    DigestOptions,
    DigestRun,
    DigestThread,
    Filters,
    QuietDays,
    ReleasesMode,
)
from bot.models.note import Language, Note
from bot.models.pr import GITHUB_FILE_LIST_CAP, Comment, FileChange, PatchCut, PRListing, PRRef, PRSnapshot, Window
from bot.models.reading import Reading
from bot.models.release import (
    Commit,
    Release,
    ReleaseDigest,
    ReleaseGroup,
    ReleasePR,
    Upgrade,
    UpgradeKind,
    UpgradeNote,
)
from bot.models.replies import (
    CardReply,
    Choose,
    DigestAnswer,
    DigestMatches,
    Help,
    NotAllowed,
    NotYours,
    PRAnswer,
    PRNotFound,
    ReleaseRefused,
    ReleaseShared,
    Reply,
    Unavailable,
    Why,
)
from bot.models.rules import FilterKind, Rule, RuleKind, SignalKind

__all__ = [
    "GITHUB_FILE_LIST_CAP",
    "OUTPUT_MODES",
    "VERDICT_ORDER",
    "AcrossItem",
    "AcrossMatches",
    "AcrossRefused",
    "Asked",
    "Audience",
    "AuditEntry",
    "Boost",
    "Cadence",
    "Card",
    "CardKey",
    "CardReply",
    "CardSource",
    "ChannelStatus",
    "Choose",
    "Comment",
    "Commit",
    "Coverage",
    "DayProblem",
    "Digest",
    "DigestAnswer",
    "DigestItem",
    "DigestMatches",
    "DigestNow",
    "DigestOptions",
    "DigestRun",
    "DigestThread",
    "FileChange",
    "FilterKind",
    "Filters",
    "Help",
    "InRelease",
    "Language",
    "Message",
    "NoAnswer",
    "NoModel",
    "NotAllowed",
    "NotYours",
    "Note",
    "OutputMode",
    "PRAnswer",
    "PRListing",
    "PRNotFound",
    "PRRef",
    "PRSnapshot",
    "PatchCut",
    "Question",
    "QuietDays",
    "Reading",
    "Release",
    "ReleaseDigest",
    "ReleaseGroup",
    "ReleasePR",
    "ReleaseRefused",
    "ReleaseShared",
    "ReleasesMode",
    "Reply",
    "Rule",
    "RuleKind",
    "SignalKind",
    "SkipClass",
    "SkippedFile",
    "Span",
    "SpanKind",
    "Turn",
    "Unavailable",
    "Upgrade",
    "UpgradeKind",
    "UpgradeNote",
    "Verdict",
    "Vote",
    "Why",
    "Window",
]
