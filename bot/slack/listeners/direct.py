"""The app's Messages tab: its suggested prompts when a person opens it, and the questions they
write there (message.im). Only parses, deduplicates and hands over; the work is in
questions/suggestions.py and questions/dm.py, on the work pool.

Registered before the App Home's listener (slack/app.py): Bolt runs the first listener whose
matchers accept an event, and the App Home's accepts every app_home_opened. The questions'
message listener accepts no DM.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App, BoltContext

from bot.core.refs import MAX_MESSAGE_CHARS
from bot.errors import SlackError
from bot.ports.slack import SlackPort
from bot.questions import DMQuestion
from bot.slack.deps import SlackDeps, deps_of, team_of
from bot.slack.web import web_of

log = logging.getLogger(__name__)

# Subtypes that are a person writing; edits, deletions and bots' posts are not questions.
_ANSWERED_SUBTYPES = {None, "file_share"}


def _messages_tab(event: dict[str, Any]) -> bool:
    return event.get("tab") == "messages"


def _in_dm(event: dict[str, Any]) -> bool:
    return event.get("channel_type") == "im"


def register(app: App, all_deps: SlackDeps) -> None:
    @app.event("app_home_opened", matchers=[_messages_tab])
    def on_messages_tab(event: dict[str, Any], context: BoltContext) -> None:
        user, dm = event.get("user"), event.get("channel")
        if isinstance(user, str) and isinstance(dm, str) and user and dm:
            all_deps.work.submit(_set_prompts, deps_of(context), web_of(context), user, dm)

    @app.event("message", matchers=[_in_dm])
    def on_dm(body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
        if not _from_a_person(event):
            return
        team = team_of(context)
        deps = deps_of(context)
        if deps.tenant.deliveries.first_message(body.get("event_id"), event["channel"], event["ts"]):
            deps.work.submit(_answer_safely, deps, web_of(context), event, event.get("thread_ts") or event["ts"], team)


def _from_a_person(event: dict[str, Any]) -> bool:
    return (
        not event.get("bot_id")
        and event.get("subtype") in _ANSWERED_SUBTYPES
        and all(isinstance(event.get(key), str) and event[key] for key in ("channel", "ts", "user"))
    )


def _answer_safely(deps: SlackDeps, slack: SlackPort, event: dict[str, Any], thread_ts: str, team: str | None) -> None:
    questions = deps.tenant.dm
    try:
        text = event.get("text")
        if isinstance(text, str) and len(text) > MAX_MESSAGE_CHARS:
            questions.too_long(slack, event["channel"], event["user"], thread_ts)
        else:
            asked = DMQuestion(
                dm=event["channel"],
                user=event["user"],
                text=text if isinstance(text, str) else "",
                thread_ts=thread_ts,
                team=event.get("user_team") or event.get("team") or team,
                asked_at=event.get("ts"),
            )
            questions.answer(slack, asked)
    except Exception as exc:
        if isinstance(exc, SlackError) and exc.code != SlackError.TRANSPORT:
            log.warning("could not reply in a DM: %s", exc.code)  # Slack refused: its reason
        else:
            log.exception("answering in a DM failed")


def _set_prompts(deps: SlackDeps, slack: SlackPort, user: str, dm: str) -> None:
    """The workspace's prompt suggestions, set on the work pool."""
    deps.tenant.suggestions.set_prompts(slack, user, dm)
