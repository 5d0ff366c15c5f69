"""App Home: the channels the person is in that get a digest, as workspaces/home.py's door gives
them, published on the work pool in the person's own language."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App, BoltContext

from bot.ports.slack import SlackPort
from bot.render.slack.home import home_rows, home_view
from bot.slack.deps import SlackDeps, deps_of
from bot.slack.web import web_of

log = logging.getLogger(__name__)


def register(app: App, _: SlackDeps) -> None:
    @app.event("app_home_opened")
    def on_home(event: dict[str, Any], context: BoltContext) -> None:
        user = event.get("user")
        if event.get("tab", "home") != "home" or not isinstance(user, str):
            return
        deps = deps_of(context)
        deps.work.submit(_publish, deps, web_of(context), user)


def _publish(deps: SlackDeps, slack: SlackPort, user: str) -> None:
    home = deps.tenant.home
    try:
        language = home.language(slack, user)
        rows = home_rows(home.channels(slack, user), home.tokens(), language)
        view = home_view(rows, language, configured=home.configured())
        slack.publish_home(user, view)
    except Exception:
        log.exception("publishing the App Home failed")
