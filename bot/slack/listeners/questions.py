"""Questions: replies in a digest's thread and @mentions anywhere, answered in a thread.

Bolt acknowledges events before these run (on the listener executor), so the slow part —
GitHub, the model — never delays the HTTP answer to Slack. The asker sees a status within a
second, then the model's answer streamed (questions/answering.py; a placeholder replaced by the
answer where Slack refuses streaming).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from slack_bolt import App, BoltContext

from bot.core.refs import MAX_MESSAGE_CHARS
from bot.core.stops import StopPress
from bot.errors import SlackError, StoreError
from bot.ops import telemetry
from bot.ports.slack import SlackPort
from bot.questions.answering import answer_in_thread, status_words
from bot.questions.qa import nothing_visible, visible_part
from bot.questions.stream import Stopping
from bot.questions.which_pr import find_refs, strip_mentions
from bot.render.slack.answers import AnswerWording
from bot.render.slack.blocks import text_message
from bot.render.slack.replies import not_allowed_text, reply_message, say
from bot.slack.deps import SlackDeps
from bot.slack.teams import team_of
from bot.slack.web import web_of

log = logging.getLogger(__name__)

# Message subtypes that are people writing; edits, joins and bot posts are not questions.
_ANSWERED_SUBTYPES = {None, "thread_broadcast", "file_share"}


def first_delivery(deps: SlackDeps, body: dict[str, Any], event: dict[str, Any]) -> bool:
    """Slack retries deliveries and sends a mention twice (app_mention and message): answer once.

    Without Redis nobody can tell a retry from a first delivery: nothing is answered rather than
    some questions twice (the outage is logged once, by the store).
    """
    tenant = deps.tenant
    event_id = body.get("event_id")
    try:
        if event_id and not tenant.threads.first_delivery(f"event:{event_id}"):
            return False
        return tenant.threads.first_delivery(f"message:{event.get('channel')}:{event.get('ts')}")
    except StoreError:
        return False


def _answer(
    deps: SlackDeps, slack: SlackPort, event: dict[str, Any], thread_ts: str, *, mention: bool, team: str | None
) -> None:
    tenant = deps.tenant
    channel = event["channel"]
    text = event.get("text")
    question = strip_mentions(text if isinstance(text, str) else "")
    audience = tenant.access.audience(
        channel,
        user=event.get("user"),
        thread_ts=thread_ts,
        said=question,
        # The asker's own workspace (a Slack Connect channel holds several), else the request's.
        team=event.get("user_team") or event.get("team") or team,
    )
    language = audience.language
    refused_ref = audience.refused(find_refs(question, audience.default_repo))
    # "what merged in acme/secret this week?" is refused the same way as acme/secret#7.
    refused = refused_ref.repo if refused_ref else tenant.qa.named_not_allowed(question, audience)
    digest = tenant.threads.digest(channel, thread_ts)
    # A digest none of whose repositories this channel may see now (e.g. a private one in a
    # channel since shared with another organisation) is refused the same way.
    hidden_digest = digest is not None and nothing_visible(visible_part(digest, audience))
    if refused is not None or hidden_digest:
        # Told to the asker alone, naming only what they typed (in a shared channel, a private
        # repository they did not name is unnamed): nothing of the PR leaks.
        words = not_allowed_text(language, audience.named(refused)) if refused else say(language, "digest_not_allowed")
        refusal = text_message(words)
        slack.post_ephemeral(channel, event.get("user", ""), refusal.text, blocks=refusal.blocks, thread_ts=thread_ts)
        return

    outcome = answer_in_thread(
        slack,
        audience,
        status=status_words(language, find_refs(question, audience.default_repo), digest),
        ask=lambda sink: tenant.qa.answer(question, audience, digest, sink),
        words=AnswerWording(language, tenant.command, reply_message),
        stop=Stopping(tenant.threads, event.get("ts")),
    )
    surface = "mention" if mention else "thread"
    if outcome == "answered":
        telemetry.count("questions_answered_total", surface=surface)
        log.debug("answered a question (%s)", surface)
    elif outcome == "stopped":
        telemetry.count("answers_stopped_total", surface=surface)


def register(app: App, all_deps: SlackDeps) -> None:
    @app.event("agent_session_stopped")
    def on_stop(event: dict[str, Any], context: BoltContext) -> None:
        # The person pressed Stop in a thread: Slack has ended the streams it lists; the answers
        # the Stop is for (core/stops.py), on whichever replica, see the marks within STOP_POLL_SECONDS.
        press = _press(event)
        if press is not None:
            all_deps.of_team(team_of(context)).tenant.threads.stop(press)

    @app.event("message")
    def on_message(body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
        deps = all_deps.of_team(team_of(context))
        thread_ts = event.get("thread_ts")
        if not _answerable(event) or event.get("subtype") not in _ANSWERED_SUBTYPES or not thread_ts:
            return
        if thread_ts == event["ts"] or deps.tenant.threads.digest(event["channel"], thread_ts) is None:
            return  # not a reply in one of our digests' threads
        if first_delivery(deps, body, event):
            deps.work.submit(_reply_safely, deps, web_of(context), event, thread_ts, mention=False, team=_team(context))

    @app.event("app_mention")
    def on_mention(body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
        deps = all_deps.of_team(team_of(context))
        if not _answerable(event) or not first_delivery(deps, body, event):
            return
        thread_ts = event.get("thread_ts") or event["ts"]
        deps.work.submit(_reply_safely, deps, web_of(context), event, thread_ts, mention=True, team=_team(context))


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


def _team(context: BoltContext) -> str | None:
    """The workspace to name as a stream's recipient_team_id (Bolt's say_stream takes the same)."""
    return context.team_id or context.enterprise_id


def _reply_safely(
    deps: SlackDeps, slack: SlackPort, event: dict[str, Any], thread_ts: str, *, mention: bool, team: str | None
) -> None:
    try:
        if _too_long(event):
            _refuse_too_long(deps, slack, event, thread_ts)
        else:
            _answer(deps, slack, event, thread_ts, mention=mention, team=team)
    except Exception as exc:
        if isinstance(exc, SlackError) and exc.code != SlackError.TRANSPORT:
            log.warning("could not reply in %s: %s", event.get("channel"), exc.code)  # Slack refused: its reason
        else:
            log.exception("answering in %s failed", event.get("channel"))


def _too_long(event: dict[str, Any]) -> bool:
    """Longer than Slack lets anyone write (MAX_MESSAGE_CHARS): not from a person, and never parsed."""
    text = event.get("text")
    return isinstance(text, str) and len(text) > MAX_MESSAGE_CHARS


def _refuse_too_long(deps: SlackDeps, slack: SlackPort, event: dict[str, Any], thread_ts: str) -> None:
    # Ephemeral, to the asker alone: nobody else needs to see it, and a public reply to every
    # over-long message would let anyone make the bot post in a channel.
    refusal = text_message(
        say(deps.tenant.directory.language(event["channel"]), "too_long", limit=f"{MAX_MESSAGE_CHARS:,}")
    )
    slack.post_ephemeral(
        event["channel"], event.get("user", ""), refusal.text, blocks=refusal.blocks, thread_ts=thread_ts
    )
