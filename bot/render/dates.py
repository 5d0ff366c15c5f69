"""Days as readers write them, in each language: "Aug 12–14", "Jul 30–Aug 5", "8月12日–14日" (pure).

For the first line of a reply that must say which days it covered. The month names and the day's
form are the catalogue's (links.months, links.date), as a digest's day is written
(render/slack/links.py uses `day_text` too).
"""

from __future__ import annotations

from datetime import date

from bot.models import Language
from bot.words import text


def days_text(first: date, last: date, language: Language) -> str:
    """The days from `first` to `last`: one day alone, within a month, or across months (a span is
    at most a month, so the year goes without saying)."""
    if last <= first:
        return day_text(first, language)
    if (first.year, first.month) == (last.year, last.month):
        return text(language, "dates.same_month", month=_month(first, language), first=first.day, last=last.day)
    return text(language, "dates.range", first=day_text(first, language), last=day_text(last, language))


def _month(day: date, language: Language) -> str:
    return text(language, "links.months").split()[day.month - 1]


def day_text(day: date, language: Language) -> str:
    """One day as readers write it: "Aug 3", "8月3日"."""
    return text(language, "links.date", month=_month(day, language), day=day.day)
