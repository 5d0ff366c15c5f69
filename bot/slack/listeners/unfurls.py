"""link_shared: a pasted github.com link, unfurled with its PR's card (slack/unfurls.py) on the
work pool. Registered only with `[slack] unfurl = true` (slack/app.py); without it the event
gets the 200 every unhandled event gets, and nothing else."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App, BoltContext

from bot.errors import SlackError, StoreError
from bot.ports.slack import SlackPort
from bot.slack.deps import SlackDeps
from bot.slack.unfurls import unfurl
from bot.slack.web import web_of
from bot.slack.workspaces import team_of

log = logging.getLogger(__name__)


def register(app: App, all_deps: SlackDeps) -> None:
    @app.event("link_shared")
    def on_link_shared(body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
        deps = all_deps.of_team(team_of(context))
        if _first_delivery(deps, body):
            deps.work.submit(_unfurl_safely, deps, web_of(context), event)


def _first_delivery(deps: SlackDeps, body: dict[str, Any]) -> bool:
    """A retried delivery is not unfurled again (its card would be asked for twice). Without
    Redis nothing is unfurled: an unfurl is a courtesy, not an answer someone waits for."""
    event_id = body.get("event_id")
    try:
        return isinstance(event_id, str) and deps.threads.first_delivery(f"event:{event_id}")
    except StoreError:
        return False


def _unfurl_safely(deps: SlackDeps, slack: SlackPort, event: dict[str, Any]) -> None:
    try:
        unfurl(deps, slack, event)
    except SlackError as exc:
        log.warning("could not unfurl in %s: %s", event.get("channel"), exc.code)
    except Exception:
        log.exception("unfurling in %s failed", event.get("channel"))
