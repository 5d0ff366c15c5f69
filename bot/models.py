"""Values that flow between the layers: what a PR is, what a card says, what a digest holds.

Plain frozen dataclasses; no I/O and no vendor types. Adapters build them, services and
renderers read them, the store serialises them (see store/codec.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import ClassVar, Literal

Verdict = Literal["skip", "skim", "read"]
Language = Literal["en", "zh-CN"]
# What a channel is sent on a day without merged PRs: a short note, or nothing.
QuietDays = Literal["note", "silent"]
CardSource = Literal["llm", "heuristic"]
# PRs whose metadata alone settles the card, when the config lists them (core/skipping.py).
SkipClass = Literal["bot-bumps", "lockfile-only", "ci-one-line"]
# Why a heuristic card was made although a model is configured, when it was no failure: the
# daily token budget was spent, or the PR is of a class the config gives no model call.
NoModel = Literal["budget", "bot-bumps", "lockfile-only", "ci-one-line"]
# How a structured answer is asked of the model, strongest first: a strict JSON schema, a function
# call whose parameters are the schema, JSON mode, plain text. Servers differ in what they take
# (services/writer.py tries them in this order; llm/openai_model.py speaks each).
OutputMode = Literal["json_schema", "tools", "json_object", "text"]
OUTPUT_MODES: tuple[OutputMode, ...] = ("json_schema", "tools", "json_object", "text")

VERDICT_ORDER: dict[Verdict, int] = {"read": 0, "skim": 1, "skip": 2}

# "Responses include a maximum of 3000 files" (GitHub REST docs, pulls/list-files).
GITHUB_FILE_LIST_CAP = 3000


@dataclass(frozen=True)
class Note:
    """Something a person must be told, as data: `kind` is the key of its sentence in every
    language's catalogue (bot/words), `values` fill that sentence's placeholders.

    Services and errors make notes; surfaces word them in the reader's language. A value is a
    number, an identifier or quoted input (never a sentence of ours), or notes worded in turn.
    """

    kind: str
    values: Mapping[str, str | int | Note | tuple[Note, ...]] = field(default_factory=dict)

    def strings(self) -> Iterator[str]:
        """Every text value, nested notes' too: what the note would name (a repository, a channel)."""
        for value in self.values.values():
            if isinstance(value, str):
                yield value
            elif isinstance(value, Note):
                yield from value.strings()
            elif isinstance(value, tuple):
                for note in value:
                    yield from note.strings()


@dataclass(frozen=True)
class Window:
    """Half-open interval [start, end) of merge times, both timezone-aware."""

    start: datetime
    end: datetime

    def contains(self, moment: datetime) -> bool:
        return self.start <= moment < self.end


@dataclass(frozen=True, eq=False)
class PRRef:
    """A pull request by repository and number. GitHub ignores case in owner and repository
    names, so refs equal (and hash) alike however the name is spelled; `repo` keeps the spelling."""

    repo: str  # "owner/name"
    number: int

    def __str__(self) -> str:
        return f"{self.repo}#{self.number}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PRRef):
            return NotImplemented
        return self.number == other.number and self.repo.lower() == other.repo.lower()

    def __hash__(self) -> int:
        return hash((self.repo.lower(), self.number))


@dataclass(frozen=True)
class FileChange:
    path: str
    status: str  # added | removed | modified | renamed | copied | changed | unchanged
    additions: int
    deletions: int
    patch: str | None  # None: binary, or over GitHub's per-file diff limit
    previous_path: str | None = None

    @property
    def changes(self) -> int:
        return self.additions + self.deletions


@dataclass(frozen=True)
class Comment:
    """A review comment (on a line of the diff) or a review body."""

    author: str
    body: str
    path: str | None = None


@dataclass(frozen=True)
class PRListing:
    """What the pulls list (or search) gives for free, before any per-PR request."""

    repo: str
    number: int
    title: str
    body: str
    author: str
    url: str
    merged_at: datetime | None  # None: not merged (a card asked for by number)
    merge_sha: str | None
    labels: tuple[str, ...] = ()
    author_is_bot: bool = False
    head_sha: str | None = None

    @property
    def ref(self) -> PRRef:
        return PRRef(self.repo, self.number)

    @property
    def revision(self) -> str | None:
        """What a card of this PR depends on: the merge commit, or the head of an open PR."""
        return self.merge_sha or self.head_sha


@dataclass(frozen=True)
class PRSnapshot:
    """A merged PR as the model and the renderers see it.

    `complete` is False when only the list data could be read (GitHub's rate limit ran out
    before the PR's files were fetched): such snapshots are never cached.
    """

    listing: PRListing
    files: tuple[FileChange, ...] = ()
    comments: tuple[Comment, ...] = ()
    complete: bool = True
    # Set when GitHub reports more files than it lists (its cap is 3,000 per PR).
    files_reported: int | None = None

    @property
    def ref(self) -> PRRef:
        return self.listing.ref

    @property
    def additions(self) -> int:
        return sum(f.additions for f in self.files)

    @property
    def deletions(self) -> int:
        return sum(f.deletions for f in self.files)

    @property
    def files_total(self) -> int:
        return max(self.files_reported or 0, len(self.files))


@dataclass(frozen=True)
class SkippedFile:
    path: str
    reason: str


@dataclass(frozen=True)
class Coverage:
    """Computed by llm/context.py, never by the model.

    Every file is counted once: files_read + len(skipped) + files_unlisted == files_total.
    """

    files_total: int
    files_read: int
    skipped: tuple[SkippedFile, ...] = ()
    # Files counted in files_read of which only some hunks fitted the budget.
    partial: tuple[str, ...] = ()
    # Files GitHub counted but did not list (it lists at most 3,000 per PR): never seen, so
    # they have no path to name.
    files_unlisted: int = 0
    # False when the files themselves could not be listed (rate limit): the card rests on
    # the title and labels alone.
    files_known: bool = True


@dataclass(frozen=True)
class CardKey:
    """Everything a card depends on: a change to any part is a different card."""

    repo: str
    number: int
    revision: str  # merge commit SHA (or head SHA for an unmerged PR)
    prompt_version: str
    model: str  # "heuristic" for cards made without a model
    language: Language

    def __str__(self) -> str:
        return f"{self.repo}#{self.number}:{self.revision}:{self.prompt_version}:{self.model}:{self.language}"


@dataclass(frozen=True)
class Card:
    headline: str
    verdict: Verdict
    minutes: int
    why: tuple[str, ...]
    caveats: tuple[str, ...]
    watch: tuple[str, ...]
    source: CardSource
    coverage: Coverage
    language: Language = "en"
    # The faithfulness check (llm/faithfulness.py) on the text served: claims (figures and
    # identifiers) checked against the PR's own text, claims cut out or whose point was dropped
    # because the PR does not state them, and whether the text is the model's second answer,
    # written after it was told which claims the PR does not support. 0/0/False: not checked.
    checked: int = 0
    dropped: int = 0
    regenerated: bool = False
    # Set on a heuristic card made without asking the model on purpose (see NoModel).
    no_model: NoModel | None = None


@dataclass(frozen=True)
class Filters:
    """A channel's rules for which merged PRs it wants to hear about (see services/filters.py)."""

    exclude_authors: tuple[str, ...] = ()  # globs: "dependabot[bot]", "*[bot]"
    labels_include: tuple[str, ...] = ()  # empty: any label
    labels_exclude: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()  # globs over changed paths; empty: every path


@dataclass(frozen=True)
class Boost:
    """Why a card moved within its verdict group: the area whose channel feedback moved it most,
    and how many of the channel's PRs in that area were marked (never who marked them)."""

    area: str
    prs: int
    up: bool


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
    # Set when the channel's feedback moved this card within its verdict group (services/feedback.py).
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
class Turn:
    """One message of a conversation with the bot, kept so follow-ups have their context."""

    role: Literal["user", "bot"]
    text: str
    pr: str | None = None  # "owner/repo#N" the turn was about


@dataclass(frozen=True)
class Message:
    """One message of a request to the model, in the roles every chat model takes."""

    role: Literal["system", "user", "assistant"]
    content: str


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


# -- what a question gets back: one small value per kind (services decide, render words) ------

FilterKind = Literal["repo", "window", "author", "labels_include", "labels_exclude", "paths"]
# What moved a card's verdict when it was made without a model (core/signals.py): its size, what
# its description holds, and the marks of a mechanical change.
SignalKind = Literal[
    "size",
    "unread",
    "large",
    "cross_cutting",
    "tagged",
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
    (`kept` True) or lowered (False) a heuristic card's verdict.
    """

    kind: RuleKind
    kept: bool
    detail: str = ""


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
    """The model's answer about the whole digest."""

    answer: str
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
    kind: ClassVar[str] = "not_allowed"


@dataclass(frozen=True)
class PRNotFound:
    ref: PRRef
    kind: ClassVar[str] = "not_found"


@dataclass(frozen=True)
class Unavailable:
    """GitHub could not be read."""

    ref: PRRef
    kind: ClassVar[str] = "unavailable"


@dataclass(frozen=True)
class Help:
    """No PR in the question."""

    kind: ClassVar[str] = "help"


@dataclass(frozen=True)
class Why:
    """Which of the channel's rules brought a PR into the digest or left it out."""

    about: PRListing
    rules: tuple[Rule, ...]
    included: bool
    window: Window | None
    kind: ClassVar[str] = "why"


# -- questions across days (services/across.py) -------------------------------------------------

SpanKind = Literal["today", "yesterday", "week", "last_week", "days", "since"]


@dataclass(frozen=True)
class Span:
    """Calendar days a question asks about, in the asker's zone: from `start` to `end`
    (exclusive), or to now when `end` is None. `days`: the N of "the last N days"."""

    kind: SpanKind
    start: date
    end: date | None = None
    days: int = 0
    unreadable: str = ""  # "since 2026-13-45": what was typed, which is no date (refused)


@dataclass(frozen=True)
class AcrossItem:
    """A merged PR that matches a question across days, with its cached card (None: no card yet,
    matched on its title and labels only) and its changed lines (0 when unknown)."""

    listing: PRListing
    card: Card | None
    size: int = 0


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
    kind: ClassVar[str] = "across"


@dataclass(frozen=True)
class AcrossRefused:
    """A question across days that cannot be answered: a span too long or not begun yet,
    GitHub's list of merged PRs not readable, no repository to ask about, or one this channel
    may not be told about (`repo` is then only what the asker typed)."""

    reason: Literal["too_long", "future", "not_a_date", "unavailable", "not_found", "no_repo", "not_allowed"]
    repo: str = ""
    days: int = 0  # "too_long": the most days a question may span
    said: str = ""  # "not_a_date": what was typed (digits and dashes only)
    kind: ClassVar[str] = "across_refused"


Reply = (
    (PRAnswer | DigestAnswer | DigestMatches | Choose | CardReply | NotAllowed | PRNotFound | Unavailable | Help | Why)
    | AcrossMatches
    | AcrossRefused
)


# -- `prdigest ask`: one question about one PR, in the terminal (services/ask.py) ----------------

# Why the card stands in for an answer. A Slack thread only says "the model is not answering";
# a terminal is where someone sets the model up, so it is told which of these happened.
NoAnswer = Literal[
    "no_model",  # no OPENAI_API_KEY: questions need a model
    "model_timeout",  # no answer within model_timeout
    "model_unavailable",  # not reachable, or busy (429, 5xx)
    "model_refused",  # the endpoint refused the request (a bad key, an unknown model)
    "model_failed",  # an answer that was none: empty, cut off, declined
    "answer_unusable",  # nothing left once sanitised (all mentions, foreign links, prompt echo)
    "budget_spent",  # the daily token budget is spent: the model was not asked
]


@dataclass(frozen=True)
class Asked:
    """A question about one PR and what answers it: the model's answer (sanitised, as in a Slack
    thread), or, when `no_answer` says why there is none, the PR's card."""

    about: PRListing
    question: str
    card: Card
    paths: tuple[str, ...]  # the PR's changed files: those the answer names are its cited files
    answer: str = ""
    no_answer: NoAnswer | None = None

    @property
    def source(self) -> Literal["llm", "card"]:
        return "card" if self.no_answer is not None else "llm"
