"""The Useful / Not for us buttons under each card of a digest thread: one vote per person per PR.

ack() first; the vote is kept from the work pool, by digests/votes.py. A click is handled once
(slack/guards.py's ReplayGuard, before any listener).
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App, BoltContext, Respond

from bot.render.slack.blocks import FEEDBACK_ACTION, read_feedback_value
from bot.slack.deps import SlackDeps, deps_of, id_of
from bot.words import text

log = logging.getLogger(__name__)


def register(app: App, _: SlackDeps) -> None:
    @app.action(FEEDBACK_ACTION)
    def on_feedback(
        ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond, context: BoltContext
    ) -> None:
        ack()
        deps = deps_of(context)
        deps.work.submit(_keep, deps, body, action, respond)


def _thread_ts(body: dict[str, Any]) -> str:
    for holder in (body.get("container"), body.get("message")):
        if isinstance(holder, dict) and isinstance(holder.get("thread_ts"), str):
            return str(holder["thread_ts"])
    return ""


def _keep(deps: SlackDeps, body: dict[str, Any], action: dict[str, Any], respond: Respond) -> None:
    try:
        _vote(deps, body, action, respond)
    except Exception:
        log.exception("keeping a feedback click failed")


def _vote(deps: SlackDeps, body: dict[str, Any], action: dict[str, Any], respond: Respond) -> None:
    channel, user = id_of(body.get("channel")), id_of(body.get("user"))
    parsed = read_feedback_value(str(action.get("value", "")))
    if parsed is None or not channel or not user:
        return  # not a value we wrote
    ref, up = parsed
    if deps.tenant.votes.vote(channel, user, ref, up, _thread_ts(body)) == "not_kept":
        language = deps.tenant.directory.language(channel)
        respond(text=text(language, "feedback.not_kept"), replace_original=False, response_type="ephemeral")
