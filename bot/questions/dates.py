"""The days a question names, read as people write them, in English and Chinese (pure).

"yesterday", "前天", "on Tuesday", "上周二", "2026-11-29", "Nov 29", "29 Nov", "November 29th",
"11月29日", "11/29" (month/day; "05/06", where both readings are dates, is asked back),
"between Nov 29 and Nov 30", "from … to …", "Aug 10-12", "8月10日到12日", "since …", "until …",
"从…到…", "this week", "last week", "the last 3 days", "最近 3 天", "this month".

Every pattern is a bounded alternation run once over the text (no nested repetition, gaps of at
most a few spaces), so reading is linear in the text: anyone in Slack can send it. A number is
read as a day only in a date's own shape: "v0.12.0", "#50912", "3.5x" and "1/2 of" are no days.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from datetime import date, timedelta

from bot.core.strings.patterns import lazy
from bot.models import DayProblem, Span

# Days that "until Nov 30" covers when nothing says where it starts.
UNTIL_DAYS = 7
# A date named without its year is this year's; one up to this many days ahead of today is
# taken as a mistyped future day (refused), anything later as last year's ("Dec 30" in January).
FUTURE_GRACE_DAYS = 7
# "8/11" asked on Aug 14 is Aug 11, not last November's 8th: of a numeric date's two readings,
# one within this many days back is the one meant; otherwise ("05/06" in December) it is asked.
RECENT_DAYS = 31
# "recently", "最近", "these days": the last week.
RECENT_SPAN_DAYS = 7

_MONTHS = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "may": 5,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_WEEKDAYS = {
    "monday": 0,
    "tuesday": 1,
    "tue": 1,
    "tues": 1,
    "wednesday": 2,
    "wed": 2,
    "thursday": 3,
    "thu": 3,
    "thur": 3,
    "thurs": 3,
    "friday": 4,
    "fri": 4,
    "saturday": 5,
    "sunday": 6,
}
_WEEKDAY = r"(?:monday|tuesday|tues?|wednesday|wed|thursday|thu(?:rs?)?|friday|fri|saturday|sunday)"
_ZH_WEEKDAYS = "一二三四五六日天"
_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "couple of": 2,
    "few": 3,
    "一": 1,
    "两": 2,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
}
_COUNT = r"\d{1,4}|one|two|three|four|five|six|seven|eight|nine|ten|couple\s{1,3}of|few"
_ZH_COUNT = r"\d{1,4}|[一两二三四五六七八九十]"
_ORD = r"(?:st|nd|rd|th)?"

# One expression of days, by kind (the group's name). Words around a number are ASCII ones: in
# "自2026-11-20以来" the date starts right after the Chinese. Tried at each position, each alternative
# bounded, so a run over the text is linear in it.
_DAY = lazy(
    "|".join(
        (
            r"(?<![A-Za-z0-9_.#/-])(?P<iso>(?P<iso_y>\d{4})[-/.](?P<iso_m>\d{1,2})[-/.](?P<iso_d>\d{1,2}))(?![A-Za-z0-9_.-]?\d)",
            rf"(?<![A-Za-z0-9_.])(?P<md>(?P<md_m>{_MONTH})\s{{0,2}}(?P<md_d>\d{{1,2}}){_ORD}"
            rf"(?:\s{{0,2}}(?:-|–|~|to|and|through|thru)\s{{0,2}}(?P<md_d2>\d{{1,2}}){_ORD}(?![\s.]*{_MONTH}))?"
            rf"(?:,?\s{{0,2}}(?P<md_y>\d{{4}}))?)(?![A-Za-z0-9_.]?\d)",
            rf"(?<![A-Za-z0-9_.#/-])(?P<dm>(?P<dm_d>\d{{1,2}}){_ORD}\s{{0,2}}(?:of\s{{1,2}})?(?P<dm_m>{_MONTH})"
            rf"(?:,?\s{{0,2}}(?P<dm_y>\d{{4}}))?)(?![a-z])",
            r"(?<!\d)(?P<zh>(?:(?P<zh_y>\d{4})\s?年\s?)?(?P<zh_m>\d{1,2})\s?月\s?(?P<zh_d>\d{1,2})\s?[日号]?"
            r"(?:\s?(?:-|–|~|～|到|至)\s?(?P<zh_d2>\d{1,2})\s?[日号](?!\s?月))?)",
            r"(?<![A-Za-z0-9_.#/-])(?P<num>(?P<num_a>\d{1,2})/(?P<num_b>\d{1,2})(?:/(?P<num_y>\d{4}|\d{2}))?)(?![A-Za-z0-9_/.-]?\d|\s{0,2}of\b)",
            r"(?P<before_yesterday>\bthe\s{1,3}day\s{1,3}before\s{1,3}yesterday\b|大?前天|前日)",
            r"(?P<yesterday>\byesterday\b|\byday\b|昨天|昨日|昨晚)",
            r"(?P<today>\btoday\b|\btonight\b|\bthis\s{1,3}morning\b|今天|今日|今早|今晚)",
            rf"(?P<weekday>\b(?:(?P<wd_last>last|past|previous)\s{{1,3}}|(?P<wd_this>this)\s{{1,3}})?(?P<wd>{_WEEKDAY})(?:'?s)?\b)",
            rf"(?P<zh_weekday>(?P<zh_wd_which>上|这|本)?\s?(?:个\s?)?(?:周|星期|礼拜)(?P<zh_wd>[{_ZH_WEEKDAYS}]))",
            rf"(?P<last_days>\b(?:(?:in\s{{1,3}})?the\s{{1,3}})?(?:last|past|previous)\s{{1,3}}(?P<ld_n>{_COUNT})\s{{1,3}}"
            r"(?P<ld_unit>days?|weeks?)\b"
            rf"|(?:最近|过去|近|这)\s?(?P<zh_ld_n>{_ZH_COUNT})\s?(?:个\s?)?(?P<zh_ld_unit>天|日|周|星期|礼拜))",
            r"(?P<recent>\b(?:recently|lately|these\s{1,3}days|of\s{1,3}late)\b|最近|近期|近来|这几天|这两天)",
            r"(?P<weekend>\b(?:over\s{1,3})?(?:the\s{1,3}|this\s{1,3}|last\s{1,3}|past\s{1,3})?weekend\b|上?个?周末)",
            r"(?P<this_week>\bthis\s{1,3}week\b|本周|这周|这一周|这个?星期|本星期)",
            r"(?P<last_week>\blast\s{1,3}week\b|\bprevious\s{1,3}week\b|上周|上一周|上个?星期|上礼拜)",
            r"(?P<past_week>\b(?:the\s{1,3})?past\s{1,3}week\b|一周内|最近一周)",
            r"(?P<this_month>\bthis\s{1,3}month\b|本月|这个月)",
            r"(?P<last_month>\blast\s{1,3}month\b|上个?月)",
        )
    ),
    re.IGNORECASE,
)
# What joins two days into a range: "Nov 29 to Nov 30", "8月10日到8月12日"; "between A and B".
_JOIN = lazy(r"\s{0,3}(?:to|until|till|through|thru|and|-|–|—|~|～|到|至|和|与|跟)\s{0,3}", re.IGNORECASE)
_BETWEEN = lazy(r"(?:\bbetween|\bfrom|从|自)\s{0,3}$", re.IGNORECASE)
# "from Aug 10" alone is that day ("the lamport PR from Aug 4"); "from Aug 10 on" runs to now.
_SINCE_BEFORE = lazy(
    r"(?:\bsince|\bafter|\bstarting(?:\s{1,3}(?:on|from))?|自从|自)\s{0,3}(?:the\s{1,3})?$", re.IGNORECASE
)
_SINCE_AFTER = lazy(r"^\s{0,3}(?:以来|起|开始|之后|以后|后|onwards?\b|on\s{0,2}(?:$|[,.?!;]))", re.IGNORECASE)
_UNTIL_BEFORE = lazy(
    r"(?:\buntil|\btill|\bup\s{1,3}to|\bthrough|\bbefore|直到|截至|截止到?)\s{0,3}(?:the\s{1,3})?$", re.I
)
_DIGEST_AFTER = lazy(r"\s{0,3}(?:digest|的日报|的摘要)", re.IGNORECASE)
_UNTIL_AFTER = lazy(r"^\s{0,3}(?:为止|之前|以前|前)")


@dataclass(frozen=True)
class _Found:
    start: int
    end: int
    said: str
    day: date | None = None  # one day named
    last: date | None = None  # a range within one expression ("Aug 10-12"): its last day
    span: Span | None = None  # days that are a span of their own ("this week")
    problem: DayProblem | None = None


def read_days(text: str, today: date) -> Span | DayProblem | None:
    """The days `text` names, relative to `today` (the asker's), or a problem, or None."""
    return days_and_rest(text, today)[0]


def days_and_rest(text: str, today: date) -> tuple[Span | DayProblem | None, str]:
    """The days `text` names, and `text` with every expression of days blanked out (what it is
    about is what is left), from one pass over it."""
    matches = list(_DAY.finditer(text))
    rest, at = [], 0
    for match in matches:
        rest += [text[at : match.start()], " "]
        at = match.end()
    rest.append(text[at:])
    return _days(text, matches, today), "".join(rest)


def _days(text: str, matches: list[re.Match[str]], today: date) -> Span | DayProblem | None:
    found = [item for match in matches if (item := _found(match, today)) is not None]
    if not found:
        return None
    problem = next((item.problem for item in found if item.problem is not None), None)
    if problem is not None:
        return problem
    for first, second in itertools.pairwise(found):
        if first.day is not None and second.day is not None and first.span is None and second.span is None:
            between = text[first.end : second.start]
            if _JOIN.fullmatch(between) and (
                "and" not in between.lower() or _BETWEEN.search(text[max(first.start - 12, 0) : first.start])
            ):
                return _range(first.day, second.last or second.day, f"{first.said}{between}{second.said}")
    first = found[0]
    if first.span is not None:
        return first.span
    assert first.day is not None
    before, after = text[max(first.start - 16, 0) : first.start], text[first.end : first.end + 12]
    if first.last is not None:
        return _range(first.day, first.last, first.said)
    # "from Sunday's digest" is that day's; "from Aug 10" runs to now.
    ones = first.said.lower().endswith("'s") or _DIGEST_AFTER.match(after) is not None
    if not ones and (_SINCE_BEFORE.search(before) or _SINCE_AFTER.search(after)):
        return Span("since", first.day)
    if _UNTIL_BEFORE.search(before) or _UNTIL_AFTER.search(after):
        exclusive = "before" in before.lower() or after.lstrip().startswith(("之前", "以前", "前"))
        last = first.day - timedelta(days=1) if exclusive else first.day
        return Span("range", last - timedelta(days=UNTIL_DAYS - 1), end=last + timedelta(days=1))
    return _one_day(first.day, today)


def _range(first: date, last: date, said: str) -> Span | DayProblem:
    if last < first:
        return DayProblem("reversed", said)
    return Span("range", first, end=last + timedelta(days=1))


def _one_day(day: date, today: date) -> Span:
    if day == today:
        return Span("today", today)
    if day == today - timedelta(days=1):
        return Span("yesterday", day, end=today)
    return Span("day", day, end=day + timedelta(days=1))


def _found(match: re.Match[str], today: date) -> _Found | None:
    kind = match.lastgroup
    said = match.group(0)
    at = (match.start(), match.end(), said)
    group = match.group
    match kind:
        case "iso":
            return _dated(at, int(group("iso_y")), int(group("iso_m")), int(group("iso_d")), today)
        case "md":
            if group("md_m") == "may":
                return None  # "it may 2x the speed": the month is written May
            month = _MONTHS[group("md_m")[:3].lower()]
            year = int(group("md_y")) if group("md_y") else None
            return _dated(at, year, month, int(group("md_d")), today, group("md_d2"))
        case "dm":
            month = _MONTHS[group("dm_m")[:3].lower()]
            year = int(group("dm_y")) if group("dm_y") else None
            return _dated(at, year, month, int(group("dm_d")), today)
        case "zh":
            year = int(group("zh_y")) if group("zh_y") else None
            return _dated(at, year, int(group("zh_m")), int(group("zh_d")), today, group("zh_d2"))
        case "num":
            return _numeric(at, group("num_a"), group("num_b"), group("num_y"), today)
        case "before_yesterday":
            back = 3 if said.startswith("大") else 2
            return _Found(*at, day=today - timedelta(days=back))
        case "yesterday":
            return _Found(*at, day=today - timedelta(days=1))
        case "today":
            return _Found(*at, day=today)
        case "weekday":
            weekday = _WEEKDAYS[group("wd").lower()]
            return _Found(*at, day=_last_weekday(today, weekday, strictly=group("wd_last") is not None))
        case "zh_weekday":
            name = group("zh_wd")
            weekday = 6 if name in "日天" else _ZH_WEEKDAYS.index(name)
            # 上周二, like "last Tuesday": the last Tuesday before today; 这周二 / 周二: on or before.
            return _Found(*at, day=_last_weekday(today, weekday, strictly=group("zh_wd_which") == "上"))
        case "last_days":
            raw = group("ld_n") or group("zh_ld_n")
            unit = (group("ld_unit") or group("zh_ld_unit")).lower()
            count = _NUMBER_WORDS.get(re.sub(r"\s+", " ", raw.lower())) or int(raw)
            days = max(count, 1) * (7 if unit[0] in "w周星礼" else 1)
            return _Found(*at, span=Span("days", today - timedelta(days=days - 1), days=days))
        case "recent":
            return _Found(*at, span=Span("days", today - timedelta(days=RECENT_SPAN_DAYS - 1), days=RECENT_SPAN_DAYS))
        case "this_week":
            return _Found(*at, span=Span("week", today - timedelta(days=today.weekday())))
        case "last_week":
            monday = today - timedelta(days=today.weekday())
            return _Found(*at, span=Span("last_week", monday - timedelta(days=7), end=monday))
        case "past_week":
            return _Found(*at, span=Span("days", today - timedelta(days=6), days=7))
        case "weekend":
            # The last Saturday and Sunday, on or before today (the one under way, on a weekend).
            saturday = today - timedelta(days=(today.weekday() - 5) % 7)
            return _Found(
                *at, span=Span("range", saturday, end=min(saturday + timedelta(days=2), today + timedelta(1)))
            )
        case "this_month":
            return _Found(*at, span=Span("month", today.replace(day=1)))
        case "last_month":
            first = (today.replace(day=1) - timedelta(days=1)).replace(day=1)
            return _Found(*at, span=Span("last_month", first, end=today.replace(day=1)))
    return None


def _dated(
    at: tuple[int, int, str], year: int | None, month: int, day: int, today: date, last_day: str | None = None
) -> _Found:
    """A date as written, its year filled in (this year's, or last year's when this year's is
    well ahead of today); an impossible one ("Feb 30", "2026-13-45") is a problem."""
    said = at[2]
    try:
        found = date(year or today.year, month, day)
        last = found.replace(day=int(last_day)) if last_day else None
    except ValueError:
        return _Found(*at, problem=DayProblem("not_a_date", said))
    if year is None and (found - today).days > FUTURE_GRACE_DAYS:
        found, last = found.replace(year=found.year - 1), last.replace(year=last.year - 1) if last else None
    if found > today:
        return _Found(*at, problem=DayProblem("future", said))
    return _Found(*at, day=found, last=last)


def _numeric(at: tuple[int, int, str], a: str, b: str, year: str | None, today: date) -> _Found | None:
    """ "11/29" is month/day; "29/11" can only be day/month; "05/06" could be either: asked back."""
    full = None if year is None else int(year) + (2000 if len(year) == 2 else 0)
    readings: list[_Found] = []
    for month, day in ((int(a), int(b)), (int(b), int(a))):
        found = _dated(at, full, month, day, today)
        if found.day is not None and found.day not in (reading.day for reading in readings):
            readings.append(found)
    if not readings:
        if 1 <= int(a) <= 12 or 1 <= int(b) <= 12:
            return _dated(at, full, int(a), int(b), today)  # says why: the future, or no such day
        return None  # "30/45": no date at all (a ratio, a score)
    if len(readings) == 2:
        recent = [found for found in readings if found.day is not None and (today - found.day).days < RECENT_DAYS]
        if len(recent) == 1:
            return recent[0]
        days = tuple(found.day for found in readings if found.day is not None)
        return _Found(*at, problem=DayProblem("ambiguous", at[2], days))
    return readings[0]


def _last_weekday(today: date, weekday: int, *, strictly: bool) -> date:
    """The latest `weekday` on or before `today` ("Tuesday" on a Tuesday is today); `strictly`:
    before today ("last Tuesday" on a Tuesday is a week ago)."""
    back = (today.weekday() - weekday) % 7
    return today - timedelta(days=back or (7 if strictly else 0))
