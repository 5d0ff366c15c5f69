"""Questions: replies in a digest's thread and @mentions anywhere, answered in a thread.

Bolt acknowledges events before these run (on the listener executor), so the slow part —
GitHub, the model — never delays the HTTP answer to Slack. Each reads the event into a
ThreadQuestion and hands it to the workspace's door (questions/thread.py) on the work pool.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from slack_bolt import App, BoltContext

from bot.core.stops import StopPress
from bot.errors import SlackError
from bot.ports.slack import SlackPort
from bot.questions import ThreadQuestion
from bot.slack.deps import SlackDeps, deps_of
from bot.slack.web import web_of

log = logging.getLogger(__name__)

# Message subtypes that are people writing; edits, joins and bot posts are not questions.
_ANSWERED_SUBTYPES = {None, "thread_broadcast", "file_share"}


def register(app: App, _: SlackDeps) -> None:
    @app.event("agent_session_stopped")
    def on_stop(event: dict[str, Any], context: BoltContext) -> None:
        # The person pressed Stop in a thread: Slack has ended the streams it lists.
        press = _press(event)
        if press is not None:
            deps_of(context).tenant.questions.stop(press)

    @app.event("message", matchers=[_outside_dms])
    def on_message(body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
        deps = deps_of(context)
        thread_ts = event.get("thread_ts")
        if not _answerable(event) or event.get("subtype") not in _ANSWERED_SUBTYPES or not thread_ts:
            return
        if thread_ts == event["ts"] or not deps.tenant.questions.in_a_digest_thread(event["channel"], thread_ts):
            return  # not a reply in one of our digests' threads
        if deps.tenant.deliveries.first_message(body.get("event_id"), event["channel"], event["ts"]):
            asked = _asked(event, thread_ts, context, mention=False)
            deps.work.submit(_answer_safely, deps, web_of(context), asked)

    @app.event("app_mention")
    def on_mention(body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
        deps = deps_of(context)
        if not _answerable(event):
            return
        if deps.tenant.deliveries.first_message(body.get("event_id"), event["channel"], event["ts"]):
            asked = _asked(event, event.get("thread_ts") or event["ts"], context, mention=True)
            deps.work.submit(_answer_safely, deps, web_of(context), asked)


def _outside_dms(event: dict[str, Any]) -> bool:
    """A message in a channel (a DM's questions are the Messages tab's: listeners/direct.py)."""
    return event.get("channel_type") != "im"


def _asked(event: dict[str, Any], thread_ts: str, context: BoltContext, *, mention: bool) -> ThreadQuestion:
    text, user = event.get("text"), event.get("user")
    return ThreadQuestion(
        channel=event["channel"],
        user=user if isinstance(user, str) else "",
        text=text if isinstance(text, str) else "",
        thread_ts=thread_ts,
        # The asker's own workspace (a Slack Connect channel holds several), else the request's
        # (the recipient_team_id a stream names; Bolt's say_stream takes the same).
        team=event.get("user_team") or event.get("team") or context.team_id or context.enterprise_id,
        asked_at=event.get("ts"),
        mention=mention,
    )


def _press(event: dict[str, Any]) -> StopPress | None:
    """The Stop an agent_session_stopped tells of; None without the channel and thread it was in."""
    channel, thread_ts, user = event.get("channel"), event.get("thread_ts"), event.get("user")
    if not (isinstance(channel, str) and isinstance(thread_ts, str) and channel and thread_ts):
        return None
    streams = event.get("streaming_message_ts")
    listed = tuple(ts for ts in streams if isinstance(ts, str) and ts) if isinstance(streams, list) else ()
    return StopPress(channel, thread_ts, user if isinstance(user, str) and user else None, _pressed_at(event), listed)


def _pressed_at(event: dict[str, Any]) -> float:
    """When Stop was pressed, on Slack's clock (event_ts), as the questions' ts are; now if unsaid."""
    try:
        return float(event["event_ts"])
    except (KeyError, TypeError, ValueError):
        return time.time()


def _answerable(event: dict[str, Any]) -> bool:
    """A person's message we could reply to: not a bot's, and with the channel and ts to reply in."""
    return not event.get("bot_id") and isinstance(event.get("channel"), str) and isinstance(event.get("ts"), str)


def _answer_safely(deps: SlackDeps, slack: SlackPort, asked: ThreadQuestion) -> None:
    try:
        if deps.tenant.questions.answer(slack, asked) == "answered":
            log.debug("answered a question (%s)", "mention" if asked.mention else "thread")
    except Exception as exc:
        if isinstance(exc, SlackError) and exc.code != SlackError.TRANSPORT:
            log.warning("could not reply in %s: %s", asked.channel, exc.code)  # Slack refused: its reason
        else:
            log.exception("answering in %s failed", asked.channel)
