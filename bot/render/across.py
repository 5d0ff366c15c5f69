"""Replies to questions across days (questions/across/days.py): the matching PRs as links with their
card's headline and verdict, in the channel's language (pure).

Headlines are cards' (sanitized when they were served); titles are sanitized and escaped here,
as everywhere (render/slack/blocks.py `title_text`); links are built only from GitHub's own URLs.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from bot.core.strings.text import clean_line, clean_text
from bot.models import AcrossItem, AcrossMatches, AcrossRefused, InRelease, Language, PRListing, Span
from bot.ports.slack import Message
from bot.render.dates import days_text
from bot.render.labels import verdict_label
from bot.render.mrkdwn import answer_text, clip, escape, link
from bot.render.slack.across_people import people_lines
from bot.render.slack.blocks import sections_message, text_message, title_text
from bot.words import said, text

# A headline is at most 120 characters (DESIGN.md §1); a title may be longer: one line each.
MAX_LINE_CHARS = 160


# Spans whose words name no date: said with the days they covered ("this week (Aug 10–14)").
_UNDATED = frozenset({"today", "yesterday", "week", "last_week", "month", "last_month", "days"})


def span_text(span: Span, language: Language) -> str:
    """ "this week (Aug 10–14)", "since 2026-11-30", "最近 3 天（11月29日–12月1日）": the span as
    the reply's sentences name it, with its days where its words do not say them."""
    said = _span_words(span, language)
    if span.kind in _UNDATED:
        return text(language, "reply.across_span_dated", span=said, dates=days_text(span.start, span.last, language))
    return said


def _span_words(span: Span, language: Language) -> str:
    match span.kind:
        case "days":
            return text(language, "reply.across_span_days", n=span.days)
        case "since":
            return text(language, "reply.across_span_since", day=span.start.isoformat())
        case "day":
            return text(language, "reply.across_span_day", day=span.start.isoformat())
        case "digest":
            return text(language, "reply.across_span_digest", day=span.start.isoformat())
        case "digests":
            return text(language, "reply.across_span_digests", dates=days_text(span.start, span.last, language))
        case "range":
            last = span.end - timedelta(days=1) if span.end is not None else span.start
            return text(language, "reply.across_span_range", first=span.start.isoformat(), last=last.isoformat())
        case "release":
            since, _, tag = span.release.partition("...")
            if tag:
                return text(language, "reply.across_span_releases", first=escape(since), last=escape(tag))
            return text(language, "reply.across_span_release", release=escape(since))
        case _:
            return text(language, f"reply.across_span_{span.kind}")


def _item_line(item: AcrossItem, language: Language) -> str:
    pr = link(item.listing.url, f"#{item.listing.number}")
    if item.card is None:
        no_card = escape(text(language, "reply.across_no_card"))
        return f"• {pr} {clip(title_text(item.listing), MAX_LINE_CHARS)} _({no_card})_"
    headline = clip(escape(item.card.headline), MAX_LINE_CHARS)
    return f"• {pr} {headline} — {escape(verdict_label(item.card))}"


def _target_link(target: PRListing | None) -> str:
    return link(target.url, f"#{target.number}") if target is not None else ""


def _header(reply: AcrossMatches, language: Language, *, repo: str, topic: str, target: str) -> str:
    span = span_text(reply.span, language)
    count = len(reply.items) + reply.more
    if reply.intent != "list" or reply.author is not None or reply.verdict is not None:
        return _asked_header(reply, language, repo=repo, topic=topic, span=span)
    if reply.relation is not None:
        found = "revert" if reply.relation == "revert" else "follow_up"
        if reply.target is None:  # "which PRs were reverted this week?": the span's pairs
            return text(language, f"reply.across_{found}s_{'found' if count else 'none'}", repo=repo, span=span)
        name = f"reply.across_{found}_{'found' if count else 'none'}"
        return text(language, name, repo=repo, span=span, link=target)
    if not reply.merged:
        return text(language, "reply.across_none_merged", repo=repo, span=span)
    if not count:
        return text(language, "reply.across_none", merged=reply.merged, repo=repo, span=span, topic=topic)
    if reply.topic:
        return text(language, "reply.across_found", count=count, merged=reply.merged, repo=repo, span=span, topic=topic)
    return text(language, "reply.across_all", count=count, repo=repo, span=span)


def _asked_header(reply: AcrossMatches, language: Language, *, repo: str, topic: str, span: str) -> str:
    """The first line for a count, the biggest PR, a person's PRs or one verdict's: what was
    asked, said back, with the count computed here, never by a model."""
    about = text(language, "reply.across_about", topic=topic) if reply.topic else ""
    by = text(language, "reply.across_by", author=escape(reply.author)) if reply.author else ""
    values: dict[str, str | int] = {
        "repo": repo,
        "span": span,
        "about": about,
        "by": by,
        "merged": reply.merged,
        "count": reply.found,
    }
    if reply.intent == "count":
        return text(language, "reply.across_count", **values)
    if not reply.merged:  # "of 0 merged" would say less than this
        return text(language, "reply.across_none_merged", repo=repo, span=span)
    if not reply.found:
        return text(language, "reply.across_asked_none", **values)
    if reply.intent == "biggest":
        return text(
            language, "reply.across_biggest" if len(reply.items) == 1 else "reply.across_biggest_some", **values
        )
    if reply.verdict is not None:
        return text(language, f"reply.across_verdict_{reply.verdict}", **values)
    return text(language, "reply.across_by_found", **values)


def _footer(reply: AcrossMatches, language: Language, shown: Callable[[str], str] = escape) -> list[str]:
    """What the list leaves out: how many more, and why some were matched less well; the
    people a name was (their names are GitHub's, made `shown` for the surface)."""
    lines = people_lines(reply, language, shown)
    if reply.more:
        lines.append(text(language, "reply.across_more", n=reply.more))
    if reply.title_only:
        lines.append(text(language, "reply.across_title_only", n=reply.title_only))
    if reply.queued:
        lines.append(text(language, "reply.across_queued", n=reply.queued))
    return lines


def _topic(reply: AcrossMatches) -> str:
    return ", ".join(f"“{term}”" for term in reply.topic)


def across_message(reply: AcrossMatches, language: Language) -> Message:
    """The PRs found, as code found them: the first line (what was asked, the count, the span),
    each PR with its headline and verdict, what was left out. With the model's answer (written
    from their cards, sanitized, citing none but these: questions/across/summaries.py), it stands above
    the list as a summary; the list is the same with it or without."""
    target = _target_link(reply.target)
    header = _header(reply, language, repo=escape(reply.repo), topic=escape(_topic(reply)), target=target)
    lines = [header, *(_item_line(item, language) for item in reply.items), *_footer(reply, language)]
    summary = answer_text(reply.answer, None, ()) if reply.answer else ""
    return sections_message([summary, "\n".join(lines)])


def across_terminal(reply: AcrossMatches, language: Language) -> str:
    """The same reply for a terminal (`prdigest ask OWNER/REPO`): plain text, URLs in full; the
    model's summary, when there is one, above the list."""
    # The target in full too: on an Enterprise server it is that host's page, not github.com's.
    target = f"#{reply.target.number} ({clean_line(reply.target.url)})" if reply.target is not None else ""
    # The summary is sanitized already; no control sequence of it reaches the terminal either.
    summary = [clean_text(reply.answer).strip(), ""] if reply.answer else []
    lines = [*summary, _header(reply, language, repo=reply.repo, topic=_topic(reply), target=target)]
    for item in reply.items:
        about = verdict_label(item.card) if item.card else text(language, "reply.across_no_card")
        # A title is the PR author's: one line, no control sequence reaches the terminal.
        what = clean_line(item.card.headline if item.card else item.listing.title)
        lines.append(f"  #{item.listing.number}  {what} — {about}\n      {clean_line(item.listing.url)}")
    return "\n".join([*lines, *_footer(reply, language, clean_line)])


def in_release_terminal(reply: InRelease, language: Language) -> str:
    """`prdigest ask OWNER/REPO "is #N in a release?"`: one line, the PR's URL in full."""
    pr = f"#{reply.pr.number} ({clean_line(reply.pr.url)})"
    if reply.tag is not None:
        day = reply.published.isoformat() if reply.published else ""
        return text(language, "reply.in_release", pr=pr, tag=clean_line(reply.tag), day=day)
    if reply.latest is None:
        return text(language, "reply.no_releases", pr=pr, repo=clean_line(reply.pr.repo))
    return text(language, "reply.not_released", pr=pr, latest=clean_line(reply.latest))


def in_release_data(reply: InRelease) -> dict[str, object]:
    return {
        "repo": reply.pr.repo,
        "number": reply.pr.number,
        "url": reply.pr.url,
        "release": reply.tag,
        "published": reply.published.isoformat() if reply.published else None,
        "latest": reply.latest,
    }


def across_data(reply: AcrossMatches) -> dict[str, object]:
    """`prdigest ask OWNER/REPO --format json`: the matches, each as `digest --format json` names its fields."""
    return {
        "repo": reply.repo,
        "span": {
            "kind": reply.span.kind,
            "start": reply.span.start.isoformat(),
            "end": reply.span.end.isoformat() if reply.span.end else None,
            "release": reply.span.release or None,
        },
        "topic": list(reply.topic),
        "merged": reply.merged,
        "relation": reply.relation,
        "target": reply.target.number if reply.target is not None else None,
        "target_url": reply.target.url if reply.target is not None else None,
        "items": [
            {
                "repo": item.listing.repo,
                "number": item.listing.number,
                "url": item.listing.url,
                "title": item.listing.title,
                "headline": item.card.headline if item.card else None,
                "verdict": item.card.verdict if item.card else None,
                "minutes": item.card.minutes if item.card else None,
            }
            for item in reply.items
        ],
        "more": reply.more,
        "title_only": reply.title_only,
        # The model's summary above the list (sanitized, citing only `items`); null without one.
        "answer": reply.answer or None,
    }


def across_refused_message(reply: AcrossRefused, language: Language) -> Message:
    repo = escape(reply.repo)
    match reply.reason:
        case "too_long":
            return text_message(text(language, "reply.across_too_long", max=reply.days))
        case "future":
            return text_message(text(language, "reply.across_future"))
        case "not_a_date":
            return text_message(text(language, "reply.across_not_a_date", said=escape(reply.said)))
        case "ambiguous":
            first, second = (*reply.readings, "", "")[:2]
            return text_message(
                text(language, "reply.across_ambiguous", said=escape(reply.said), first=first, second=second)
            )
        case "reversed":
            return text_message(text(language, "reply.across_reversed", said=escape(reply.said)))
        case "unavailable" if reply.why is not None:  # GitHub's rate limit, and when it resets
            return text_message(escape(said(language, reply.why)))
        case "unavailable":
            return text_message(text(language, "reply.across_unavailable", repo=repo))
        case "not_found":
            return text_message(text(language, "reply.across_not_found", repo=repo))
        case "no_repo":
            return text_message(text(language, "reply.across_no_repo"))
        case "not_allowed":
            return text_message(text(language, "reply.not_allowed", repo=repo))
        case "release_unknown":
            return text_message(text(language, "reply.across_release_unknown", repo=repo, said=escape(reply.said)))


def in_release_message(reply: InRelease, language: Language) -> Message:
    """ "#50912 is in v0.12.0 (released 2026-11-22)", or not in a release yet."""
    pr = link(reply.pr.url, f"#{reply.pr.number}")
    if reply.tag is not None:
        day = reply.published.isoformat() if reply.published else ""
        return text_message(text(language, "reply.in_release", pr=pr, tag=escape(reply.tag), day=day))
    if reply.latest is None:
        return text_message(text(language, "reply.no_releases", pr=pr, repo=escape(reply.pr.repo)))
    return text_message(text(language, "reply.not_released", pr=pr, latest=escape(reply.latest)))
