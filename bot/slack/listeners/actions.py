"""The "Share in channel" button under a /pr card: the same card, posted for everyone."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App, Respond
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.errors import PrdigestError
from bot.render.blocks import SHARE_ACTION, card_message
from bot.render.replies import say
from bot.services.refs import parse_ref
from bot.slack.deps import SlackDeps

log = logging.getLogger(__name__)


def register(app: App, deps: SlackDeps) -> None:
    @app.action(SHARE_ACTION)
    def on_share(ack: Ack, body: dict[str, Any], action: dict[str, Any], client: WebClient, respond: Respond) -> None:
        ack()
        deps.work.submit(_share, deps, body, action, client, respond)


def _share(deps: SlackDeps, body: dict[str, Any], action: dict[str, Any], client: WebClient, respond: Respond) -> None:
    try:
        _post_shared(deps, body, action, client, respond)
    except Exception:
        log.exception("sharing a card failed")


def _post_shared(
    deps: SlackDeps, body: dict[str, Any], action: dict[str, Any], client: WebClient, respond: Respond
) -> None:
    channel = (body.get("channel") or {}).get("id", "")
    language = deps.directory.language(channel)
    try:
        ref = parse_ref(str(action.get("value", "")))
    except PrdigestError:
        return  # not a value we wrote: nothing to share
    if ref.repo.lower() not in deps.access.allowed(channel):
        respond(text=say(language, "not_allowed", repo=ref.repo), replace_original=False)
        return
    try:
        snapshot = deps.cards.snapshot_by_ref(ref)
        message = card_message(snapshot.listing, deps.cards.card(snapshot, language).card)
        client.chat_postMessage(
            channel=channel, text=message.text, blocks=list(message.blocks), unfurl_links=False, unfurl_media=False
        )
    except SlackApiError as exc:
        log.warning("sharing %s in %s failed: %s", ref, channel, exc.response.get("error"))
        respond(text=say(language, "failed"), replace_original=False)
        return
    except PrdigestError:
        respond(text=say(language, "unavailable", ref=str(ref)), replace_original=False)
        return
    respond(delete_original=True)
