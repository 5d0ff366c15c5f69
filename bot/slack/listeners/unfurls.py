"""link_shared: a pasted github.com link, unfurled with its PR's card (unfurls/unfurling.py) on the
work pool. Registered only with `[slack] unfurl = true` (slack/app.py); without it the event
gets the 200 every unhandled event gets, and nothing else."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App, BoltContext

from bot.errors import SlackError
from bot.ports.slack import SlackPort
from bot.slack.deps import SlackDeps, deps_of
from bot.slack.web import web_of
from bot.unfurls import Target

log = logging.getLogger(__name__)


def register(app: App, all_deps: SlackDeps) -> None:
    @app.event("link_shared")
    def on_link_shared(body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
        deps = deps_of(context)
        # A retried delivery is not unfurled again (its card would be asked for twice). Without
        # Redis nothing is unfurled: an unfurl is a courtesy, not an answer someone waits for.
        if deps.tenant.deliveries.first_event(body.get("event_id")):
            deps.work.submit(_unfurl_safely, deps, web_of(context), event)


def target_of(event: dict[str, Any]) -> Target | None:
    """Where the unfurl goes: (unfurl_id, source) when the event has them, else (channel, ts)."""
    unfurl_id, source = event.get("unfurl_id"), event.get("source")
    if isinstance(unfurl_id, str) and unfurl_id and isinstance(source, str) and source:
        return Target(unfurl_id=unfurl_id, source=source)
    channel, ts = event.get("channel"), event.get("message_ts")
    if isinstance(channel, str) and channel and isinstance(ts, str) and ts:
        return Target(channel=channel, ts=ts)
    return None


def _unfurl(deps: SlackDeps, slack: SlackPort, event: dict[str, Any]) -> None:
    tenant = deps.tenant
    channel, target = event.get("channel"), target_of(event)
    if not isinstance(channel, str) or target is None:
        return  # any channel that follows nothing, or nowhere to unfurl: fail closed
    links = [link.get("url") for link in event.get("links") or [] if isinstance(link, dict)]
    urls = [url for url in links if isinstance(url, str)]
    tenant.unfurling.unfurl(slack, channel, urls, target)


def _unfurl_safely(deps: SlackDeps, slack: SlackPort, event: dict[str, Any]) -> None:
    try:
        _unfurl(deps, slack, event)
    except SlackError as exc:
        log.warning("could not unfurl in %s: %s", event.get("channel"), exc.code)
    except Exception:
        log.exception("unfurling in %s failed", event.get("channel"))
