"""App Home: the channels the person is in that get a digest (from the config file or followed
from Slack), their schedule, their last digest run and last change, and a Settings button where
the person may edit.

A person sees only the channels they are a member of, and of each only the repositories that
channel may show (access/policy.py): a guest from another organisation learns nothing about
channels they are not in, nor the name of a private repository. A problem of the last run that
names a repository not shown is left out; its count stays. The tab is the person's own, so it is
worded in their Slack language (channels/people.py), not a channel's.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App, BoltContext

from bot.core.usage import Report
from bot.errors import StoreError
from bot.models import AuditEntry, DigestRun, Language, Note
from bot.ports.slack import SlackPort
from bot.render.slack.home import HomeRow, home_view
from bot.render.slack.subscriptions import change_text
from bot.settings import duration_text
from bot.slack.deps import SlackDeps, deps_of
from bot.slack.web import web_of

log = logging.getLogger(__name__)


def home_rows(deps: SlackDeps, slack: SlackPort, user: str, language: Language = "en") -> list[HomeRow]:
    tenant = deps.tenant
    tenant.directory.refresh()  # channels followed from Slack on any replica
    rows = []
    changes = _last_changes(deps)
    report = _report(deps)
    for plan in tenant.directory.plans:
        if not tenant.members.is_member(slack, plan.id, user):
            continue
        shown = tuple(repo for repo in plan.repos if tenant.access.may_post(plan.id, repo))
        hidden = [repo.lower() for repo in plan.repos if repo not in shown]
        run = tenant.digests.last_run(plan.id)
        rows.append(
            HomeRow(
                plan.id,
                shown,
                f"{plan.post_at:%H:%M}",
                plan.timezone.key,
                duration_text(plan.window),
                plan.language,
                run,
                _told(run, hidden),
                # A member (they see the channel), so only the file and the editors list decide.
                editable=tenant.subscriptions.refusal(plan.id, user, lambda: True) is None,
                change=change_text(changes[plan.id], language) if plan.id in changes else None,
                # Only this channel's and its shown repositories': a member sees what it spent.
                tokens=report.payer(plan.id) if report is not None else None,
                repo_tokens=tuple((repo, report.repo(repo)) for repo in shown) if report is not None else (),
            )
        )
    return rows


def _report(deps: SlackDeps) -> Report | None:
    """The last week's tokens, read once for the whole tab (None: not counted, or Redis away)."""
    tenant = deps.tenant
    if tenant.spending is None:
        return None
    try:
        return tenant.spending.report(workspace=tenant.workspace)
    except StoreError:
        return None


def _last_changes(deps: SlackDeps) -> dict[str, AuditEntry]:
    """Each channel's last change from Slack (the audit trail; none when Redis cannot say)."""
    try:
        return {entry.channel: entry for entry in deps.tenant.subscriptions.audit()}
    except StoreError:
        return {}


def _told(run: DigestRun | None, hidden: list[str]) -> Note | None:
    """The first problem of the run that names no repository hidden from this person."""
    if run is None:
        return None
    return next(
        (
            note
            for note in run.failures
            if not any(repo in value.lower() for value in note.strings() for repo in hidden)
        ),
        None,
    )


def register(app: App, deps: SlackDeps) -> None:
    @app.event("app_home_opened")
    def on_home(event: dict[str, Any], context: BoltContext) -> None:
        user = event.get("user")
        if event.get("tab", "home") != "home" or not isinstance(user, str):
            return
        deps.work.submit(_publish, deps_of(context), web_of(context), user)


def _publish(deps: SlackDeps, slack: SlackPort, user: str) -> None:
    tenant = deps.tenant
    try:
        language = tenant.people.language(slack, user)
        view = home_view(home_rows(deps, slack, user, language), language, configured=bool(tenant.directory.plans))
        slack.publish_home(user, view)
    except Exception:
        log.exception("publishing the App Home failed")
