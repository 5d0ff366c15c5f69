"""`prdigest following`: every channel's subscriptions, where each value comes from, and the
audit trail of changes made in Slack, for operators (text or JSON).

Values are shown as the config file spells them ("09:30", "Asia/Shanghai", "24h"), the defaults
filled in; `source` is "file", "slack" or "default".
"""

from __future__ import annotations

import json
from typing import Any

from bot.channels import ChannelView
from bot.models import AuditEntry, Language
from bot.render.slack.subscriptions import SHOWN_FIELDS, effective, shown_value, spelled
from bot.settings import Defaults
from bot.wiring.process import Process
from bot.words import text
from bot.workspaces import Tenant

# The slash command of the app's manifests (config/manifest*.yml): the CLI has no Slack payload
# to read the command from.
SLASH_COMMAND = "/pr"


def _raw(name: str, view: ChannelView, defaults: Defaults) -> str | list[str]:
    return spelled(name, effective(name, view.config, defaults))


def _entry(entry: AuditEntry) -> dict[str, Any]:
    return entry.model_dump(mode="json")


def following_data(built: Process, workspace: Tenant, views: list[ChannelView]) -> dict[str, Any]:
    defaults = built.settings.defaults
    audit = workspace.subscriptions.audit()
    channels = []
    for view in views:
        run = workspace.digests.last_run(view.channel)
        channels.append(
            {
                "id": view.channel,
                "in_config_file": view.in_file,
                "values": {
                    name: {"value": _raw(name, view, defaults), "source": view.sources[name]} for name in SHOWN_FIELDS
                },
                "last_run": None
                if run is None
                else {
                    "day": run.day,
                    "finished_at": run.finished_at.isoformat(),
                    "prs": run.prs,
                    "posted_messages": run.posted_messages,
                    "problems": len(run.failures),
                },
                "audit": [_entry(entry) for entry in audit if entry.channel == view.channel],
            }
        )
    return {"channels": channels, "audit": [_entry(entry) for entry in audit]}


def following_text(built: Process, workspace: Tenant, views: list[ChannelView], language: Language) -> str:
    data = following_data(built, workspace, views)
    defaults = built.settings.defaults
    lines: list[str] = []
    for view, channel in zip(views, data["channels"], strict=True):
        lines.append(view.channel)
        for name in SHOWN_FIELDS:
            field = text(language, f"subs.field_{name}")
            source = text(language, f"subs.source_{view.sources[name]}")
            lines.append(f"  {field}: {shown_value(name, view.config, defaults, language)} ({source})")
        for entry in channel["audit"]:
            detail = ", ".join(entry["detail"])
            lines.append(f"  {entry['at']} {entry['user']} {entry['action']} {detail}".rstrip())
    if not lines:
        return text(language, "following.none", cmd=SLASH_COMMAND) + "\n"
    return "\n".join(lines) + "\n"


def run_following(built: Process, workspace: Tenant, output: str, language: Language) -> str:
    """The channels of one workspace (OAuth mode: `--team`; else the one there is)."""
    views = workspace.subscriptions.channels()
    if output == "json":
        return json.dumps(following_data(built, workspace, views), ensure_ascii=False, indent=2) + "\n"
    return following_text(built, workspace, views, language)
