"""Links across days as Slack mrkdwn: a card's line about the earlier digest it follows, the
lead's list of reverted PRs, the reply in the earlier thread (pure).

These depend on the channel and the day, so they are added to a card's blocks when a digest is
rendered, never kept in the shared cached card. Only text of ours and GitHub's URLs go in.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from bot import words
from bot.core.links import CrossLink, Shown
from bot.models import Language, PRListing
from bot.render import dates
from bot.render.mrkdwn import clip, escape, link

# A context block's text element holds 3,000 characters (Block Kit context block reference).
MAX_LINK_LINES_CHARS = 3000
_EMOJI = {"revert": ":rewind:", "follow_up": ":arrow_right_hook:", "fixes": ":wrench:"}


def day_text(day: str, language: Language) -> str:
    """A digest's day (YYYY-MM-DD) as readers write it: "Aug 3", "8月3日"."""
    return dates.day_text(date.fromisoformat(day), language)


def _pr(repo: str, number: int, url: str) -> str:
    return link(url, f"#{number}") if url else f"#{number}"


def _earlier_day(shown: Shown, language: Language) -> str:
    shown_day = day_text(shown.day, language)
    return link(shown.permalink, shown_day) if shown.permalink else shown_day


def card_link_lines(listing: PRListing, links: Sequence[CrossLink], language: Language) -> str | None:
    """What a card's PR does to PRs of this channel's earlier digests, one line each; None if nothing."""
    lines = [
        f"{_EMOJI[item.kind]} "
        + words.text(
            language,
            f"links.{item.kind}",
            pr=_pr(item.earlier.repo, item.earlier.number, item.earlier.url),
            day=_earlier_day(item.earlier, language),
        )
        for item in links
        if item.number == listing.number and item.repo.lower() == listing.repo.lower()
    ]
    return clip("\n".join(lines), MAX_LINK_LINES_CHARS) if lines else None


def lead_revert_lines(items: Sequence[PRListing], links: Sequence[CrossLink], language: Language) -> str | None:
    """The reverted PRs of this channel's earlier digests, for the lead message; None if none."""
    urls = {(listing.repo.lower(), listing.number): listing.url for listing in items}
    lines = [
        f"{_EMOJI['revert']} "
        + words.text(
            language,
            "links.lead_revert",
            earlier=_pr(item.earlier.repo, item.earlier.number, item.earlier.url),
            day=_earlier_day(item.earlier, language),
            pr=_pr(item.repo, item.number, urls.get((item.repo.lower(), item.number), "")),
        )
        for item in links
        if item.kind == "revert"
    ]
    return clip("\n".join(lines), MAX_LINK_LINES_CHARS) if lines else None


def reply_text(item: CrossLink, url: str, headline: str, language: Language) -> str:
    """The reply in the earlier thread: "Reverted by #N", "Follow-up merged: #N", with its headline."""
    said = words.text(language, f"links.reply_{item.kind}", pr=_pr(item.repo, item.number, url))
    return f"{_EMOJI[item.kind]} {said} · {clip(escape(headline), 300)}"
