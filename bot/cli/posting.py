"""What `--post` and `--team` need on the command line, for every command that posts to Slack
(`digest --post`, `release --post`) or acts in one workspace (`following --team`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from bot.errors import ConfigError, UsageError, quoted
from bot.settings import Settings

if TYPE_CHECKING:
    from bot.wiring.slack import SlackWiring


def checked_post(args: argparse.Namespace, settings: Settings) -> None:
    """What `--post` needs before anything is built or asked: a channel id, Slack's credentials
    and a ledger kept after the run (Redis, or the cache file on this host)."""
    from bot.core.config import is_channel_id

    if not is_channel_id(args.post):  # as the config refuses it: a name is not where Slack posts
        raise UsageError("error.post_not_a_channel", text=quoted(args.post))
    if not settings.slack_bot_token and not settings.oauth:
        raise ConfigError("--post needs SLACK_BOT_TOKEN (the bot token, xoxb-…), or SLACK_CLIENT_ID for OAuth mode")
    if not settings.redis_url and settings.cache is None:
        raise ConfigError(
            "--post needs a store kept after this run, for the ledger that keeps a digest from being "
            "posted twice: REDIS_URL, or the cache file (PRDIGEST_CACHE is off, or --no-cache was given)"
        )


def chosen_team(team: str | None, wired: SlackWiring) -> str | None:
    """The workspace a CLI command acts in: --team, else the home one; checked to be installed.

    None with SLACK_BOT_TOKEN (one workspace). In OAuth mode, a team id."""
    settings = wired.process.settings
    if not settings.oauth:
        if team is not None:
            raise UsageError("error.team_not_oauth")
        return None
    from bot.workspaces import is_team_id

    chosen = team or settings.home_team
    if chosen is None:
        raise UsageError("error.team_needed")
    if not is_team_id(chosen):
        raise UsageError("error.bad_team", team=quoted(chosen))
    assert wired.oauth is not None  # OAuth mode
    if wired.oauth.installations.find_workspace(chosen) is None:
        raise UsageError("error.not_installed", team=chosen)
    return chosen
