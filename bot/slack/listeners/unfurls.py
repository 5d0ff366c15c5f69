"""link_shared: a pasted github.com link, unfurled with its PR's card (slack/unfurls.py) on the
work pool. Registered only with `[slack] unfurl = true` (slack/app.py); without it the event
gets the 200 every unhandled event gets, and nothing else."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App, BoltContext
from slack_sdk import WebClient

from bot.errors import SlackError
from bot.slack.deps import SlackDeps
from bot.slack.unfurls import unfurl
from bot.slack.workspaces import team_of

log = logging.getLogger(__name__)


def register(app: App, all_deps: SlackDeps) -> None:
    @app.event("link_shared")
    def on_link_shared(event: dict[str, Any], client: WebClient, context: BoltContext) -> None:
        all_deps.work.submit(_unfurl_safely, all_deps.of_team(team_of(context)), client, event)


def _unfurl_safely(deps: SlackDeps, client: WebClient, event: dict[str, Any]) -> None:
    try:
        unfurl(deps, client, event)
    except SlackError as exc:
        log.warning("could not unfurl in %s: %s", event.get("channel"), exc.code)
    except Exception:
        log.exception("unfurling in %s failed", event.get("channel"))
