"""Questions across days, read from what people type (pure): which days ("this week", "since
Monday", "最近 3 天"), which repository, which topic ("about MoE", a path like vllm/v1/attention),
or which earlier PR a revert was of ("did anything revert #50879?").

A question is across days only when it names a span of days or asks about a revert; anything
else is left to the one-PR and digest rules (services/questions.py). Every pattern runs in time
linear in the text (no nested repetition), as in questions.py: anyone in Slack can send it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from bot.core.links import LinkKind
from bot.models import Span, Window
from bot.services.questions import words
from bot.services.refs import pr_number
from bot.services.windows import FIRST_DAY

# A span longer than this is refused: the stored snapshots and cards last 30 days
# (store/cards.py SNAPSHOT_TTL), and a month of a busy repository is already a few hundred PRs.
MAX_SPAN_DAYS = 31
# "Did anything revert #N?" without a span looks this far back: reverts come within days.
REVERT_DAYS = 14
# Topic words and paths kept of one question: a question names a few; a message of thousands of
# words is not a topic, and every term is shown back in the reply's first line.
MAX_TERMS = 8
# Windows are cut at this step, so that questions asked within a few minutes share one cached
# list of merged PRs (store/cards.py MERGED_TTL is ten minutes).
WINDOW_STEP = timedelta(minutes=10)

_WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS_ZH = "一二三四五六日"
_ZH_NUMBERS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}

_TODAY = re.compile(r"\btoday'?s?\b|今天|今日", re.IGNORECASE)
_YESTERDAY = re.compile(r"\byesterday'?s?\b|昨天|昨日", re.IGNORECASE)
_THIS_WEEK = re.compile(r"\bthis week'?s?\b|本周|这周|这一周|本星期|这个星期", re.IGNORECASE)
_LAST_WEEK = re.compile(r"\blast week'?s?\b|上周|上个星期|上星期", re.IGNORECASE)
_LAST_DAYS = re.compile(
    r"\b(?:last|past|previous)\s+(\d{1,4})\s+days?\b|(?:最近|过去|近)\s*(\d{1,4}|[一两二三四五六七八九十])\s*天",
    re.IGNORECASE,
)
_SINCE_DATE = re.compile(r"\bsince\s+(\d{4}-\d{2}-\d{2})\b|(?:自|从)\s*(\d{4}-\d{2}-\d{2})", re.IGNORECASE)
_SINCE_DAY_EN = re.compile(rf"\bsince\s+(?:last\s+)?({'|'.join(_WEEKDAYS_EN)})\b", re.IGNORECASE)
_SINCE_DAY_ZH = re.compile(rf"(?:自|从)?(?:周|星期|礼拜)([{_WEEKDAYS_ZH}天])(?:以来|起|开始)")

# "did anything revert #N", "was #N reverted", "有没有回滚 #N", "#N 被撤销了吗".
_REVERT = re.compile(r"\brevert(?:s|ed|ing)?\b|回滚|撤销|撤回|还原", re.IGNORECASE)
_FOLLOW_UP = re.compile(r"\bfollow[- ]?ups?\b|后续", re.IGNORECASE)
# The owner/repo is tried only where a run of name characters begins (tried at each of its
# letters, "x" * 40000 is 40,000 scans to the end with the GIL held: questions.py's rule).
_REF_N = r"(?P<r{i}>(?<![\w.-])[\w.-]++/[\w.-]++)?#(?P<n{i}>\d{{1,10}})"
_LINK_TO = re.compile(
    r"\b(?:revert(?:s|ed|ing)?|follow[- ]?ups?(?:\s+(?:on|to|of|for))?)\s+(?:of\s+)?(?:pr\s*)?"
    + _REF_N.format(i=1)
    + r"|(?:回滚|撤销|撤回|还原|跟进)了?\s*"
    + _REF_N.format(i=2)
    + r"|"
    + _REF_N.format(i=3)
    + r"\s*(?:(?:has\s+|have\s+)?(?:been|was|get|got|being)\s+)?(?:reverted|followed up)"
    + r"|"
    + _REF_N.format(i=4)
    + r"\s*(?:是否|有没有)?已?被(?:回滚|撤销|撤回|还原|跟进)",
    re.IGNORECASE,
)
# A question that asks for PRs, not about one: "what merged", "which PRs", "anything about".
_LISTING = re.compile(
    r"\b(?:merged?|landed|changed|changes|which|what|any|anything|prs|list)\b|合并|哪些|什么|有没有|改动|变化|列出",
    re.IGNORECASE,
)
_WHY = re.compile(r"\bwhy\b|为什么", re.IGNORECASE)
# Words of the question that say when or how, not what: never a topic.
_NOT_TOPIC = frozenset(
    [
        "merged",
        "merge",
        "merges",
        "today",
        "today's",
        "yesterday",
        "yesterday's",
        "week",
        "week's",
        "weeks",
        "last",
        "past",
        "previous",
        "days",
        "day",
        "since",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "touch",
        "touched",
        "touches",
        "touching",
        "mention",
        "mentions",
        "anything",
        "something",
        "everything",
        "revert",
        "reverts",
        "reverted",
        "reverting",
        "follow",
        "follow-up",
        "follow-ups",
        "up",
        "did",
        "has",
        "been",
        "get",
        "got",
        "land",
        "landed",
        "went",
        "go",
        "in",
        "of",
        "on",
        "to",
        "by",
        "at",
        "or",
        "if",
        "so",
        "we",
        "i",
        "my",
        "an",
        "a",
        "repo",
        "repository",
    ]
)
# Chinese phrases that only frame the question (the topic is what is left). Longest first.
_ZH_FRAME = re.compile(
    r"合并了?什么|合并了?哪些|有哪些|有什么|哪些|什么|合并|涉及|关于|有关|相关|以来|开始|有没有|是否|变化|改动|改了|了吗|吗|呢|的|了|和|与"
)
# A path-like term: two or more parts joined by "/", or one with a file extension.
_PATH = re.compile(r"(?<![\w./-])[\w.-]++(?:/[\w.-]++)++/?")


@dataclass(frozen=True)
class AcrossQuestion:
    """What a question across days asks: the span (None: the default of its kind), the
    repository it names (None: the channel's), topic words and paths, and for "did anything
    revert #N" the earlier PR and the kind of link asked about."""

    span: Span | None
    repo: str | None
    topic: tuple[str, ...]
    paths: tuple[str, ...]
    target: int | None = None
    relation: LinkKind | None = None

    @property
    def terms(self) -> tuple[str, ...]:
        return self.topic + self.paths


def parse_span(question: str, today: date) -> Span | None:
    """The span of days `question` names, relative to `today` in the asker's zone; None if none."""
    if match := _LAST_DAYS.search(question):
        raw = match.group(1) or match.group(2)
        days = max(_ZH_NUMBERS[raw] if raw in _ZH_NUMBERS else int(raw), 1)  # "the last 0 days": today
        return Span("days", today - timedelta(days=days - 1), days=days)
    if match := _SINCE_DATE.search(question):
        said = match.group(1) or match.group(2)
        try:
            return Span("since", date.fromisoformat(said))
        except ValueError:
            return Span("since", today, unreadable=said)  # refused: "2026-13-45" is no day
    if match := _SINCE_DAY_EN.search(question):
        return Span("since", _last_weekday(today, _WEEKDAYS_EN.index(match.group(1).lower())))
    if match := _SINCE_DAY_ZH.search(question):
        name = match.group(1)
        return Span("since", _last_weekday(today, 6 if name == "天" else _WEEKDAYS_ZH.index(name)))
    if _YESTERDAY.search(question):
        return Span("yesterday", today - timedelta(days=1), end=today)
    if _LAST_WEEK.search(question):
        monday = today - timedelta(days=today.weekday())
        return Span("last_week", monday - timedelta(days=7), end=monday)
    if _THIS_WEEK.search(question):
        return Span("week", today - timedelta(days=today.weekday()))
    if _TODAY.search(question):
        return Span("today", today)
    return None


def _last_weekday(today: date, weekday: int) -> date:
    """The latest `weekday` on or before `today` ("since Monday" on a Monday is today)."""
    return today - timedelta(days=(today.weekday() - weekday) % 7)


def parse_across(
    question: str,
    today: date,
    known_repos: frozenset[str],
    named: frozenset[str] | None = None,
    preferred: str | None = None,
) -> AcrossQuestion | None:
    """The question across days, or None when it is not one (no span, no revert asked about).

    `known_repos` are the repositories (lower case) a term "owner/name" may be: among them it is
    the repository asked about, else a path. A bare name ("vllm") is the repository of `named`
    (default: every known one) whose name it is, `preferred` (the channel's own) first.
    """
    span = parse_span(question, today)
    target, relation, repo = _asked_link(question)
    if target is None and (span is None or not _LISTING.search(question)):
        return None  # "does this fix yesterday's bug?" names a day but asks about one PR
    paths: list[str] = []
    for term in _PATH.findall(question):
        if term.lower() in known_repos and repo is None:
            repo = term
        elif term.lower() not in known_repos and term != repo and not term.startswith("http"):
            paths.append(term.rstrip("/"))
    named = known_repos if named is None else named
    by_name = {name.rpartition("/")[2]: name for name in sorted(named)}
    if preferred is not None and preferred.lower() in named:
        by_name[preferred.lower().rpartition("/")[2]] = preferred.lower()
    rest = _PATH.sub(" ", question)
    for said in _SAID_HOW:
        rest = said.sub(" ", rest)
    topic: list[str] = []
    for word in sorted(words(_ZH_FRAME.sub(" ", rest))):
        if word in _NOT_TOPIC or word.isdigit() or _is_span_word(word):
            continue
        if repo is None and word in by_name:
            repo = by_name[word]
            continue
        topic.append(word)
    return AcrossQuestion(
        span, repo, tuple(topic[:MAX_TERMS]), tuple(dict.fromkeys(paths))[:MAX_TERMS], target, relation
    )


def _asked_link(question: str) -> tuple[int | None, LinkKind | None, str | None]:
    """For "did anything revert #N?" / "was #N reverted?" / "#N 被回滚了吗": N, the link asked
    about and the repository named with it. Not "why was #N reverted?" (about #N itself) nor
    "what does #N revert?" (about what #N reverted)."""
    if _WHY.search(question):
        return None, None, None
    match = _LINK_TO.search(question)
    if match is None:
        return None, None, None
    i = next(i for i in "1234" if match.group(f"n{i}"))
    number = pr_number(match.group(f"n{i}"))
    if number is None:
        return None, None, None
    repo = match.group(f"r{i}")
    said = match.group(0).lower()
    relation: LinkKind = "follow_up" if "follow" in said or "跟进" in said or "后续" in said else "revert"
    return number, relation, repo


# What says when or how, taken out of the question before its topic is read.
_SAID_HOW = (
    _LAST_DAYS,
    _SINCE_DATE,
    _SINCE_DAY_EN,
    _SINCE_DAY_ZH,
    _YESTERDAY,
    _LAST_WEEK,
    _THIS_WEEK,
    _TODAY,
    _REVERT,
    _FOLLOW_UP,
)


def _is_span_word(word: str) -> bool:
    return bool(
        _TODAY.fullmatch(word)
        or _YESTERDAY.fullmatch(word)
        or _THIS_WEEK.search(word)
        or _LAST_WEEK.search(word)
        or _LAST_DAYS.search(word)
        or _SINCE_DAY_ZH.search(word)
        or word.startswith(("#", "最近", "过去"))
    )


def span_window(span: Span, zone: ZoneInfo, now: datetime) -> Window:
    """The merge times `span` covers, in `zone`: from its first day's midnight to the end of its
    last day, or to now (cut at WINDOW_STEP, so nearby questions share a cached list)."""
    start = datetime.combine(span.start, time(0, 0), tzinfo=zone)
    if span.end is not None:
        return Window(start, datetime.combine(span.end, time(0, 0), tzinfo=zone))
    return Window(start, _step_up(now))


def _step_up(moment: datetime) -> datetime:
    step = int(WINDOW_STEP.total_seconds())
    seconds = int(moment.timestamp())
    return datetime.fromtimestamp(-(-seconds // step) * step, tz=moment.tzinfo)


def span_problem(span: Span, today: date) -> Literal["not_a_date", "too_long", "future"] | None:
    """Why a span cannot be answered ("not_a_date", "too_long", "future"), or None."""
    if span.unreadable:
        return "not_a_date"
    if span.start > today:
        return "future"
    if span.start < FIRST_DAY or (today - span.start).days + 1 > MAX_SPAN_DAYS:
        return "too_long"
    return None


def revert_span(today: date) -> Span:
    return Span("days", today - timedelta(days=REVERT_DAYS - 1), days=REVERT_DAYS)
