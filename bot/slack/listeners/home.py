"""App Home: the channels this workspace follows, their schedule and their last digest run."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient

from bot.render.blocks import HomeRow, home_view
from bot.slack.deps import SlackDeps

log = logging.getLogger(__name__)


def home_rows(deps: SlackDeps) -> list[HomeRow]:
    rows = []
    for plan in deps.directory.plans:
        run = deps.ledger.last_run(plan.id)
        last = None
        if run is not None:
            failed = f", {len(run.failures)} problem(s): {run.failures[0]}" if run.failures else ""
            last = f"{run.day}: {run.prs} PRs, {run.posted_messages} messages, at {run.finished_at:%H:%M} UTC{failed}"
        schedule = f"{plan.post_at:%H:%M} {plan.timezone.key}, window {plan.window}"
        rows.append(HomeRow(plan.id, plan.repos, schedule, plan.language, last))
    return rows


def register(app: App, deps: SlackDeps) -> None:
    @app.event("app_home_opened")
    def on_home(event: dict[str, Any], client: WebClient) -> None:
        user = event.get("user")
        if event.get("tab", "home") != "home" or not isinstance(user, str):
            return
        deps.work.submit(_publish, deps, client, user)


def _publish(deps: SlackDeps, client: WebClient, user: str) -> None:
    try:
        client.views_publish(user_id=user, view=home_view(home_rows(deps)))
    except Exception:
        log.exception("publishing the App Home failed")
