"""The channel settings modal: opened from the App Home's buttons, saved on submission.

A submission is checked with the config file's rules before ack() (parsing only, no Redis): each
bad value is refused on its own field (`response_action: errors`), in the channel's language.
Who may edit, the private-repository rule and the save run on the work pool after the modal
closes; their outcome is told to the person in the channel, visible to them alone.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App, BoltContext
from slack_sdk.models.blocks import PlainTextObject, SectionBlock
from slack_sdk.models.views import View

from bot.channels import FieldErrors, merged
from bot.errors import PrdigestError
from bot.models import Language
from bot.ports.slack import SlackPort
from bot.render.mrkdwn import escape
from bot.render.slack.subscriptions import (
    SETTINGS_ACTION,
    SETTINGS_CALLBACK,
    modal_channel,
    modal_values,
    saved_text,
    settings_modal,
)
from bot.slack.deps import SlackDeps, deps_of, id_of
from bot.slack.listeners.subscribe import change_refused
from bot.slack.web import web_of
from bot.words import said, text

log = logging.getLogger(__name__)

LANGUAGES: dict[str, Language] = {"en": "en", "zh-CN": "zh-CN"}


def register(app: App, all_deps: SlackDeps) -> None:
    @app.view(SETTINGS_CALLBACK)
    def on_submit(ack: Ack, body: dict[str, Any], view: dict[str, Any], context: BoltContext) -> None:
        deps = deps_of(context)
        channel = modal_channel(view) or ""
        values = modal_values(view)
        chosen = values.get("language")
        # The language chosen in the modal, if it is one; else the channel's as it is now.
        language = LANGUAGES.get(chosen) if isinstance(chosen, str) else None
        language = language or deps.tenant.directory.language(channel)
        try:
            merged(channel, deps.tenant.subscriptions.file_config(channel), values)
        except FieldErrors as exc:
            # A field the modal does not have (the channel id) is told on the repositories' field.
            errors = {name if name in values else "repos": said(language, note) for name, note in exc.errors.items()}
            ack(response_action="errors", errors=errors)
            return
        ack()
        deps.work.submit(_save, deps, body, channel, values, web_of(context), language)

    @app.action(SETTINGS_ACTION)
    def on_open(ack: Ack, body: dict[str, Any], action: dict[str, Any], context: BoltContext) -> None:
        ack()
        deps = deps_of(context)
        deps.work.submit(_open, deps, body, str(action.get("value", "")), web_of(context))


def _tell(slack: SlackPort, channel: str, user: str, message: str) -> None:
    """To `user` alone, in `channel` (the modal is closed by now: there is no response_url)."""
    try:
        slack.post_ephemeral(channel, user, message)
    except PrdigestError as exc:
        log.warning("could not tell %s in %s how their settings went (%s)", user, channel, exc)


def _save(
    deps: SlackDeps, body: dict[str, Any], channel: str, values: dict[str, Any], slack: SlackPort, language: Language
) -> None:
    tenant = deps.tenant
    user = id_of(body.get("user"))
    try:
        tenant.subscriptions.require_editor(channel, user, lambda: tenant.members.is_member(slack, channel, user))
        config = tenant.subscriptions.save_settings(channel, user, values)
        tenant.directory.refresh()
        message = escape(saved_text(config, tenant.defaults, language))
    except Exception as exc:
        refused = change_refused(exc, language)
        if refused is None:
            log.exception("saving the settings of %s failed", channel)
        message = refused or escape(text(language, "reply.failed"))
    _tell(slack, channel, user, message)


def _open(deps: SlackDeps, body: dict[str, Any], channel: str, slack: SlackPort) -> None:
    """The App Home's Settings button: the modal, or why this person may not edit."""
    tenant = deps.tenant
    user, trigger_id = id_of(body.get("user")), str(body.get("trigger_id", ""))
    try:
        language = tenant.people.language(slack, user)
        refusal = tenant.subscriptions.refusal(channel, user, lambda: tenant.members.is_member(slack, channel, user))
        view = tenant.subscriptions.view(channel)
        if refusal is not None:
            modal = _notice(said(language, refusal), language)
        elif view is not None and tenant.access.hidden(channel, view.config.repos):
            modal = _notice(text(language, "subs.settings_shared", cmd=tenant.command), language)
        else:
            modal = settings_modal(channel, view.config if view else None, tenant.directory.language(channel))
        slack.open_view(trigger_id, modal)
    except Exception:
        log.exception("opening the settings of %s failed", channel)


def _notice(sentence: str, language: Language) -> dict[str, Any]:
    """A modal that only says something (the Home has no response_url to answer through)."""
    view = View(
        type="modal",
        title=PlainTextObject(text=text(language, "subs.modal_title")),
        close=PlainTextObject(text=text(language, "subs.modal_cancel")),
        blocks=[SectionBlock(text=PlainTextObject(text=sentence))],
    )
    shown: dict[str, Any] = view.to_dict()
    return shown
