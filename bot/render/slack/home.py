"""The App Home tab as Block Kit, in the language of the person who opened it (pure).

One section per configured channel the person may see: its repositories, schedule, language and
last run. Which channels and repositories those are is decided in slack/listeners/home.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import (
    Block,
    ButtonElement,
    ContextBlock,
    HeaderBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)
from slack_sdk.models.views import View

from bot.core.strings.parsing import duration_text
from bot.core.strings.patterns import lazy
from bot.core.usage import Period, Report
from bot.models import ChannelStatus, DigestRun, Language, Note
from bot.render.mrkdwn import ELLIPSIS, clip, escape
from bot.render.slack.blocks import MAX_TEXT_CHARS
from bot.render.slack.subscriptions import SETTINGS_ACTION, change_text, run_text
from bot.render.tokens import home_repo_tokens, home_tokens
from bot.words import said, text

# A Home tab holds 100 blocks (home-tab-views reference; slack_sdk View.blocks_max_length).
MAX_HOME_BLOCKS = 100
_CHANNEL_ID = lazy(r"[CG][A-Z0-9]{2,}")


@dataclass(frozen=True)
class HomeRow:
    """One channel on the App Home: its id comes from our config, never from a user."""

    channel_id: str
    repos: tuple[str, ...]
    post_at: str  # "09:30", local to `timezone`
    timezone: str  # "Asia/Shanghai"
    window: str  # "24h"
    language: Language  # the channel's digest language
    last_run: DigestRun | None = None
    # The one problem of the last run this person may be told about (none names a repository
    # hidden from them); the others are only counted.
    told: Note | None = None
    # Whether this person may change the channel's subscriptions (a Settings button), and the
    # channel's last change from Slack, already worded (mrkdwn; the person is a mention).
    editable: bool = False
    change: str | None = None
    # The model's tokens spent for this channel, and on each of its shown repositories (by every
    # channel: a card is made once for all), today and over 7 days; None: not counted here.
    tokens: Period | None = None
    repo_tokens: tuple[tuple[str, Period], ...] = ()


def _mrkdwn(line: str) -> MarkdownTextObject:
    # verbatim: no auto-linking of channel names or mentions in text we did not write.
    return MarkdownTextObject(text=clip(line, MAX_TEXT_CHARS) or ELLIPSIS, verbatim=True)


def _last_run(row: HomeRow, language: Language) -> str:
    run = row.last_run
    line = run_text(run, language)
    if run is None:
        return line
    if row.told is not None:
        return text(language, "home.run_problem_told", run=line, n=len(run.failures), told=said(language, row.told))
    if run.failures:
        return text(language, "home.run_problems", run=line, n=len(run.failures))
    return line


def _home_row(row: HomeRow, language: Language) -> SectionBlock:
    channel = f"<#{row.channel_id}>" if _CHANNEL_ID.fullmatch(row.channel_id) else escape(row.channel_id)
    schedule = text(
        language,
        "home.schedule",
        time=row.post_at,
        zone=row.timezone,
        window=row.window,
        language=text(language, f"language.{row.language}"),
        last=_last_run(row, language),
    )
    # No repositories: every one of them is hidden from this person (a private one in a shared channel).
    head = f"*{channel}* · {escape(', '.join(row.repos))}\n" if row.repos else f"*{channel}*\n"
    change = "\n" + text(language, "home.changed", change=row.change) if row.change else ""
    if row.tokens is not None:
        lines = [home_tokens(row.tokens, language)]
        lines += [home_repo_tokens(repo, period, language) for repo, period in row.repo_tokens]
        change += "\n" + escape("\n".join(lines))
    button = None
    if row.editable and _CHANNEL_ID.fullmatch(row.channel_id):
        label = PlainTextObject(text=text(language, "home.settings"))
        button = ButtonElement(text=label, action_id=SETTINGS_ACTION, value=row.channel_id)
    return SectionBlock(text=_mrkdwn(head + escape(schedule) + change), accessory=button)


def home_rows(statuses: Sequence[ChannelStatus], tokens: Report | None, language: Language) -> list[HomeRow]:
    """The tab's rows of the channels the person may see (workspaces/home.py), in their language,
    each with its own tokens and its shown repositories' (`tokens`: the week's report, if counted)."""
    return [
        HomeRow(
            status.channel,
            status.repos,
            f"{status.post_at:%H:%M}",
            status.timezone,
            duration_text(status.window),
            status.language,
            status.last_run,
            status.told,
            editable=status.editable,
            change=change_text(status.change, language) if status.change is not None else None,
            tokens=tokens.payer(status.channel) if tokens is not None else None,
            repo_tokens=tuple((repo, tokens.repo(repo)) for repo in status.repos) if tokens is not None else (),
        )
        for status in statuses
    ]


def home_view(rows: Sequence[HomeRow], language: Language = "en", *, configured: bool = True) -> dict[str, Any]:
    """The App Home tab, in `language` (the person's): one section per channel they may see.

    `configured` says whether any channel at all gets a digest (the person may simply be in
    none of them).
    """
    blocks: list[Block] = [HeaderBlock(text=PlainTextObject(text="prdigest"))]
    room = MAX_HOME_BLOCKS - 2  # the header, and the line saying how many did not fit
    blocks.extend(_home_row(row, language) for row in rows[:room])
    if not rows and configured:
        blocks.append(SectionBlock(text=_mrkdwn(escape(text(language, "home.none_yours")))))
    elif not rows:
        blocks.append(SectionBlock(text=_mrkdwn(escape(text(language, "home.none_configured")))))
    elif len(rows) > room:
        blocks.append(ContextBlock(elements=[_mrkdwn(escape(text(language, "home.more", n=len(rows) - room)))]))
    view: dict[str, Any] = View(type="home", blocks=blocks).to_dict()
    return view
