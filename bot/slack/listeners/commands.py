"""The slash command (`/pr` by default): a PR's card, to the asker only, with a Share button.

Only parsing happens before ack(); the card follows through the response_url from the work
pool, so Slack's 3 seconds are never spent on GitHub or the model. A command payload is
answered once (slack/guards.py's ReplayGuard, before any listener): a replay gets nothing more.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App, BoltContext, Respond

from bot.core.refs import MAX_MESSAGE_CHARS, parse_ref
from bot.errors import PrdigestError
from bot.models import CardReply, Language, PRRef
from bot.ops import telemetry
from bot.ports.slack import Message
from bot.render.mrkdwn import escape
from bot.render.slack.blocks import help_message, text_message
from bot.render.slack.replies import looked_up_message, say
from bot.slack.deps import SlackDeps, deps_of
from bot.slack.listeners import release, subscribe, watch
from bot.slack.web import web_of

log = logging.getLogger(__name__)


def _card(deps: SlackDeps, ref: PRRef, channel: str, language: Language, user: str, said: str) -> tuple[Message, bool]:
    """The reply, and whether it is the PR's card (else it says why not). `said`: the command's text."""
    audience = deps.tenant.access.audience(channel, user=user or None, said=said)
    reply = deps.tenant.lookup.card(ref, audience)
    # The card is shown to `user` alone, and its Share button works for them alone.
    return looked_up_message(reply, language, share_for=user or None), isinstance(reply, CardReply)


def _answer(deps: SlackDeps, command: dict[str, Any], ref: PRRef, language: Language, respond: Respond) -> None:
    channel, user = str(command.get("channel_id", "")), str(command.get("user_id", ""))
    try:
        message, answered = _card(deps, ref, channel, language, user, str(command.get("text") or ""))
    except Exception:
        log.exception("/pr %s failed", ref)
        message, answered = text_message(say(language, "failed")), False
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
        text = (command.get("text") or "").strip()
        channel = command.get("channel_id", "")
        language = deps.tenant.directory.language(channel)
        if len(text) > MAX_MESSAGE_CHARS:  # never parsed: the ack tells the asker alone
            ack(text=say(language, "too_long", limit=f"{MAX_MESSAGE_CHARS:,}"))
            return
        if not text or text.lower() in ("help", "?"):
            help_ = help_message(deps.tenant.command, language)
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
            ref = parse_ref(text, deps.tenant.directory.default_repo(channel))
        except PrdigestError as exc:
            ack(text=escape(exc.in_language(language)))
            return
        ack(text=say(language, "thinking"))
        deps.work.submit(_answer, deps, command, ref, language, respond)
