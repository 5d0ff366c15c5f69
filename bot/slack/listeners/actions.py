"""The "Share in channel" button under a /pr card: the same card, posted for everyone.

Only the person who ran /pr may share: the button's value names them (render/slack/blocks.py
`share_value`) and Slack signs the clicker's id beside it. Each click is handled once
(slack/guards.py), so a replayed payload posts nothing more.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App, BoltContext, Respond

from bot.errors import SlackError
from bot.models import CardReply, NotYours
from bot.ports.slack import SlackPort
from bot.render.slack.blocks import SHARE_ACTION, read_share_value
from bot.render.slack.replies import looked_up_message, say, share_refusal_text
from bot.slack.deps import SlackDeps, deps_of, id_of
from bot.slack.web import web_of

log = logging.getLogger(__name__)


def register(app: App, deps: SlackDeps) -> None:
    @app.action(SHARE_ACTION)
    def on_share(
        ack: Ack,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: Respond,
        context: BoltContext,
    ) -> None:
        ack()
        deps.work.submit(_share, deps_of(context), body, action, web_of(context), respond)


def _share(deps: SlackDeps, body: dict[str, Any], action: dict[str, Any], slack: SlackPort, respond: Respond) -> None:
    try:
        _post_shared(deps, body, action, slack, respond)
    except Exception:
        log.exception("sharing a card failed")


def _post_shared(
    deps: SlackDeps, body: dict[str, Any], action: dict[str, Any], slack: SlackPort, respond: Respond
) -> None:
    tenant = deps.tenant
    channel = id_of(body.get("channel"))
    language = tenant.lookup.language(channel)
    request = read_share_value(str(action.get("value", "")))
    if request is None:
        return  # not a value we wrote: nothing to share
    # Someone else's click (the button reached them in a message they could see) posts nothing:
    # the door says so, as it says why a card cannot be shared.
    reply = tenant.lookup.shared_for(request.ref, channel, request.requester, clicked_by=id_of(body.get("user")))
    if isinstance(reply, NotYours):
        respond(text=share_refusal_text(reply, language), replace_original=False, response_type="ephemeral")
        return
    if not isinstance(reply, CardReply):
        respond(text=share_refusal_text(reply, language), replace_original=False)
        return
    message = looked_up_message(reply, language, share_for=None)  # posted for everyone: no Share button
    try:
        slack.post(channel, message.text, blocks=message.blocks)
    except SlackError as exc:
        if exc.code == SlackError.TRANSPORT:
            raise  # no answer from Slack: logged by _share, like any other failure to post
        log.warning("sharing %s in %s failed: %s", request.ref, channel, exc.code)
        respond(text=say(language, "failed"), replace_original=False)
        return
    respond(delete_original=True)
