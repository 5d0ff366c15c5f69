"""HomeTab: the App Home of one person, as one workspace's door gives it.

The channels the person is in that get a digest (from the config file or followed from Slack),
their schedule, their last digest run and last change, what they spent, and whether the person
may edit them. A person sees only the channels they are a member of, and of each only the
repositories that channel may show (access/policy.py): a guest from another organisation learns
nothing about channels they are not in, nor the name of a private repository. A problem of the
last run that names a repository not shown is left out; its count stays. The tab is the
person's own, so it is worded in their Slack language (channels/people.py), not a channel's.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.access import AccessPolicy
from bot.channels import ChannelDirectory, ChannelMembers, PeopleLanguages, Subscriptions
from bot.core.usage import Report
from bot.digests import DigestPosting
from bot.errors import StoreError
from bot.models import AuditEntry, ChannelStatus, DigestRun, Language, Note
from bot.ports.slack import SlackPort
from bot.spending import Spending


@dataclass(frozen=True)
class HomeTab:
    directory: ChannelDirectory
    members: ChannelMembers
    access: AccessPolicy
    subscriptions: Subscriptions
    people: PeopleLanguages
    digests: DigestPosting
    spending: Spending | None
    workspace: str | None  # whose tokens the tab shows (None: the single or home workspace)

    def language(self, slack: SlackPort, user: str) -> Language:
        """The person's own language (their Slack locale), which the tab is worded in."""
        return self.people.language(slack, user)

    def configured(self) -> bool:
        """Whether any channel gets a digest at all (else the tab says how to set one up)."""
        return bool(self.directory.plans)

    def channels(self, slack: SlackPort, user: str) -> list[ChannelStatus]:
        """The channels `user` is in that get a digest, as they may see each."""
        self.directory.refresh()  # channels followed from Slack on any replica
        changes = self._last_changes()
        found = []
        for plan in self.directory.plans:
            if not self.members.is_member(slack, plan.id, user):
                continue
            shown = tuple(repo for repo in plan.repos if self.access.may_post(plan.id, repo))
            hidden = [repo.lower() for repo in plan.repos if repo not in shown]
            run = self.digests.last_run(plan.id)
            found.append(
                ChannelStatus(
                    plan.id,
                    shown,
                    plan.post_at,
                    plan.timezone.key,
                    plan.window,
                    plan.language,
                    run,
                    _told(run, hidden),
                    # A member (they see the channel), so only the file and the editors list decide.
                    editable=self.subscriptions.refusal(plan.id, user, lambda: True) is None,
                    change=changes.get(plan.id),
                )
            )
        return found

    def tokens(self) -> Report | None:
        """The last week's tokens, read once for the whole tab (None: not counted, or Redis away).
        Of each channel, only its own and its shown repositories' are shown: a member sees what
        it spent."""
        if self.spending is None:
            return None
        try:
            return self.spending.report(workspace=self.workspace)
        except StoreError:
            return None

    def _last_changes(self) -> dict[str, AuditEntry]:
        """Each channel's last change from Slack (the audit trail; none when Redis cannot say)."""
        try:
            return {entry.channel: entry for entry in self.subscriptions.audit()}
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
