"""The slash command (`/pr` by default): a PR's card, to the asker only, with a Share button.

Only parsing happens before ack(); the card follows through the response_url from the work
pool, so Slack's 3 seconds are never spent on GitHub or the model. A command payload is
answered once (slack/guards.py's ReplayGuard, before any listener): a replay gets nothing more.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App, BoltContext, Respond

from bot.core.refs import MAX_MESSAGE_CHARS
from bot.errors import PrdigestError
from bot.models import CardReply, Language, PRRef
from bot.ops import telemetry
from bot.ports.slack import Message
from bot.render.slack.replies import failure_message, help_reply, looked_up_message, refused_text, say
from bot.slack.deps import SlackDeps, deps_of
from bot.slack.listeners import release, subscribe, watch
from bot.slack.web import web_of

log = logging.getLogger(__name__)


def _answer(deps: SlackDeps, command: dict[str, Any], ref: PRRef, language: Language, respond: Respond) -> None:
    channel, user = str(command.get("channel_id", "")), str(command.get("user_id", ""))
    try:
        reply = deps.tenant.lookup.card_for(ref, channel, user or None, str(command.get("text") or ""))
        # The card is shown to `user` alone, and its Share button works for them alone.
        message, answered = looked_up_message(reply, language, share_for=user or None), isinstance(reply, CardReply)
    except Exception:
        log.exception("/pr %s failed", ref)
        message, answered = failure_message(language), False
    if _respond(respond, message, ref) and answered:
        telemetry.count("questions_answered_total", surface="command")


def _respond(respond: Respond, message: Message, ref: PRRef) -> bool:
    """Whether the response_url took the message."""
    try:
        respond(text=message.text, blocks=list(message.blocks), replace_original=True, response_type="ephemeral")
    except Exception:
        log.exception("/pr %s: the response_url refused the card", ref)
        return False
    return True


def register(app: App, all_deps: SlackDeps) -> None:
    @app.command(all_deps.tenant.command)
    def on_command(ack: Ack, command: dict[str, Any], respond: Respond, context: BoltContext) -> None:
        deps = deps_of(context)
        lookup = deps.tenant.lookup
        text = (command.get("text") or "").strip()
        channel = command.get("channel_id", "")
        language = lookup.language(channel)
        if len(text) > MAX_MESSAGE_CHARS:  # never parsed: the ack tells the asker alone
            ack(text=say(language, "too_long", limit=f"{MAX_MESSAGE_CHARS:,}"))
            return
        if not text or text.lower() in ("help", "?"):
            help_ = help_reply(deps.tenant.command, language)
            ack(text=help_.text, blocks=list(help_.blocks))
            return
        if text.split()[0].lower() in subscribe.SUBCOMMANDS:
            subscribe.handle(deps, ack, command, respond, web_of(context), language)
            return
        if text.split()[0].lower() in watch.SUBCOMMANDS:
            watch.handle(deps, ack, command, respond, language)
            return
        if text.split()[0].lower() in release.SUBCOMMANDS:
            release.handle(deps, ack, command, respond, language)
            return
        try:
            ref = lookup.asked(text, channel)
        except PrdigestError as exc:
            ack(text=refused_text(exc, language))
            return
        ack(text=say(language, "thinking"))
        deps.work.submit(_answer, deps, command, ref, language, respond)
