"""Questions in a person's DM with the app (the Messages tab): answered in a thread on the
question, as Slack's agent messaging expects ("streamed messages should always be replies to a
user request"), through the same QAService as @mentions.

What may be discussed is the person's (slack/reach.py), not a channel's: a question naming a
repository outside it is refused in words that name nothing, not even what was typed. The
answer is worded in the person's Slack language. `answer_in_dm` is the one entry point: how
the answer reaches Slack (today a placeholder, then its update) is decided there alone.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk import WebClient

from bot import telemetry
from bot.models import Language, NotAllowed
from bot.render.blocks import Message, text_message
from bot.render.replies import failure_message, reply_message, say, thinking_message
from bot.services.questions import find_refs, strip_mentions
from bot.services.refs import MAX_MESSAGE_CHARS
from bot.slack.deps import SlackDeps
from bot.slack.reach import allowed_for

log = logging.getLogger(__name__)


def answer_in_dm(deps: SlackDeps, client: WebClient, event: dict[str, Any], thread_ts: str) -> None:
    """Answer the person's DM `event` in the thread `thread_ts` of their DM with the app."""
    dm, user = event["channel"], event["user"]
    language = deps.people.language(client, user)
    text = event.get("text")
    question = strip_mentions(text if isinstance(text, str) else "")
    allowed = allowed_for(deps, client, user, dm)
    if any(ref.repo.lower() not in allowed for ref in find_refs(question, None)):
        _post(client, dm, thread_ts, refusal(language))
        return
    placeholder = _post(client, dm, thread_ts, thinking_message(language))
    try:
        reply = deps.qa.on_mention(question, dm, thread_ts, allowed, None, language)
        # Named earlier in the thread and no longer allowed: refused as above, naming nothing.
        message = refusal(language) if isinstance(reply, NotAllowed) else reply_message(reply, language, deps.command)
        answered = True
    except Exception:
        log.exception("answering a question in a DM failed")
        message = failure_message(language)
        answered = False
    client.chat_update(channel=dm, ts=placeholder, **_payload(message))
    if answered:
        telemetry.count("questions_answered_total", surface="dm")


def refusal(language: Language) -> Message:
    return text_message(say(language, "dm_not_allowed"))


def too_long(deps: SlackDeps, client: WebClient, event: dict[str, Any], thread_ts: str) -> None:
    """Longer than Slack lets anyone write: not read, and said so (only the person sees their DM)."""
    words = say(deps.people.language(client, event["user"]), "too_long", limit=f"{MAX_MESSAGE_CHARS:,}")
    _post(client, event["channel"], thread_ts, text_message(words))


def _post(client: WebClient, dm: str, thread_ts: str, message: Message) -> str:
    return str(client.chat_postMessage(channel=dm, thread_ts=thread_ts, **_payload(message))["ts"])


def _payload(message: Message) -> dict[str, Any]:
    return {"text": message.text, "blocks": list(message.blocks), "unfurl_links": False, "unfurl_media": False}
