"""The Useful / Not for us buttons under each card of a digest thread: one vote per person per PR.

ack() first; the vote is kept from the work pool. A click is handled once (slack/guards.py). The
PR's areas come from the digest the thread belongs to (its cards and their paths, kept 30 days),
else from the PR's cached snapshot. Votes are kept per channel and never shown per person.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App, BoltContext, Respond

from bot.digests.feedback import areas, item_areas
from bot.errors import PrdigestError, StoreError
from bot.models import PRRef, Vote
from bot.render.slack.blocks import FEEDBACK_ACTION, read_feedback_value
from bot.slack.deps import SlackDeps
from bot.slack.guards import first_time
from bot.slack.teams import id_of, team_of
from bot.words import text

log = logging.getLogger(__name__)


def register(app: App, deps: SlackDeps) -> None:
    @app.action(FEEDBACK_ACTION)
    def on_feedback(
        ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond, context: BoltContext
    ) -> None:
        ack()
        deps.work.submit(_keep, deps.of_team(team_of(context)), body, action, respond)


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


def _areas(deps: SlackDeps, channel: str, thread_ts: str, ref: PRRef) -> tuple[str, ...] | None:
    tenant = deps.tenant
    thread = tenant.threads.digest(channel, thread_ts) if thread_ts else None
    item = next((item for item in thread.items if item.listing.ref == ref), None) if thread else None
    if item is not None:
        return item_areas(item)
    try:
        snapshot = tenant.cards.snapshot_by_ref(ref)
    except PrdigestError:
        return None
    listing = snapshot.listing
    return areas(listing.labels, (change.path for change in snapshot.files), listing.title)


def _vote(deps: SlackDeps, body: dict[str, Any], action: dict[str, Any], respond: Respond) -> None:
    tenant = deps.tenant
    channel, user = id_of(body.get("channel")), id_of(body.get("user"))
    language = tenant.directory.language(channel)
    parsed = read_feedback_value(str(action.get("value", "")))
    if parsed is None or not channel or not user:
        return  # not a value we wrote
    ref, up = parsed
    if not tenant.access.audience(channel, user=user).may_see(ref.repo):
        return  # a card this channel may no longer see counts for nothing
    try:
        if not first_time(tenant.threads, body):
            log.warning("a feedback click seen before in %s; not counted again", channel)
            return
        found = _areas(deps, channel, _thread_ts(body), ref)
        if found is None:
            return
        tenant.feedback.vote(channel, user, Vote(f"{ref.repo}#{ref.number}", up, found))
    except StoreError:
        respond(text=text(language, "feedback.not_kept"), replace_original=False, response_type="ephemeral")
