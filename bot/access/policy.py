"""AccessPolicy: which repositories a Slack channel may be told about.

- A channel in the config or followed from Slack: its own repositories; a private one only
  while the config file allows it there (listed for the channel, or in
  `[slack] followable_private_repos`) and the channel is not shared with another organisation
  (Slack's is_ext_shared).
- Any other channel (an @mention, /pr, `digest --post`): the public repositories this
  workspace follows; never a private one.
- Another workspace than the home one (OAuth mode): the config file's channels are the home
  workspace's, so none of them counts as configured there: public repositories only.
Channel sharing is read from conversations.info and remembered for an hour; when Slack cannot
say, the channel counts as shared (fail closed).
What a reply may name in a shared channel is access/disclosure.py's rule, asked through here.

Every request starts here: `audience` gives the one value (models/audience.py) its paths take,
with the repositories the asker may see in the channel, already case-folded.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from bot.access.disclosure import Disclosure
from bot.access.visibility import Visibility
from bot.channels import ChannelDirectory, ChannelPlan
from bot.errors import SlackError
from bot.models import Audience, Note
from bot.ports.slack import SlackPort
from bot.store.repos.facts import FactStore

log = logging.getLogger(__name__)


class AccessPolicy:
    def __init__(
        self,
        directory: ChannelDirectory,
        visibility: Visibility,
        slack: SlackPort,
        facts: FactStore,
        *,
        home: bool = True,
    ) -> None:
        self._directory = directory
        self._home = home
        self._visibility = visibility
        self._slack = slack
        self._facts = facts
        self._disclosure = Disclosure(visibility.is_private, self.externally_shared)

    def _plan(self, channel: str) -> ChannelPlan | None:
        # A channel shared with another workspace (Slack Connect) has one id in both: the file's
        # plan for it is the home workspace's alone.
        return self._directory.plan(channel) if self._home else None

    def allowed(self, channel: str) -> frozenset[str]:
        plan = self._plan(channel)
        if plan is None:
            repos = [repo for repo in self._directory.all_repos if not self._visibility.is_private(repo)]
        else:
            repos = [repo for repo in plan.repos if self.may_post(channel, repo)]
        return frozenset(repo.lower() for repo in repos)

    def audience(
        self,
        channel: str,
        *,
        user: str | None = None,
        thread_ts: str | None = None,
        said: str = "",
        team: str | None = None,
    ) -> Audience:
        """Who a reply in `channel` is for: what they may see there, in the channel's language,
        with `said` (what they typed) for the names a reply may carry. Whether the channel is
        shared is asked of Slack only when a reply would name a private repository."""
        return Audience(
            channel,
            self.allowed(channel),
            self._directory.language(channel),
            user,
            thread_ts,
            team,
            default_repo=self._directory.default_repo(channel),
            said=said,
            sharing=lambda: self.externally_shared(channel),
            naming=self._disclosure.name_for,
        )

    def may_post(self, channel: str, repo: str) -> bool:
        """Whether a channel may show this repository's PRs."""
        return self.refusal(channel, repo) is None

    def refusal(self, channel: str, repo: str) -> Note | None:
        """Why `channel` may not show `repo`'s PRs (for operators), or None when it may.

        A private repository only in a channel configured for it, and never in one shared with
        another organisation.
        """
        if not self._visibility.is_private(repo):
            return None
        plan = self._plan(channel)
        if plan is None or repo.lower() not in {name.lower() for name in plan.repos}:
            return Note("refusal.not_configured", {"repo": repo, "channel": channel})
        if not self._directory.private_allowed(channel, repo):
            return Note("refusal.not_followable", {"repo": repo, "channel": channel})
        if self.externally_shared(channel):
            return Note("refusal.shared", {"repo": repo, "channel": channel})
        return None

    def named(self, audience: Audience, repo: str) -> str | None:
        """`repo` as a reply to `audience` may name it, or None (say "a private repository"):
        access/disclosure.py's rule, over what the audience typed and its channel's sharing."""
        return audience.named(repo)

    def hidden(self, channel: str, repos: Iterable[str], said: str = "") -> frozenset[str]:
        """Those of `repos` (lower case) a reply in `channel` may not name unasked."""
        return self._disclosure.hidden(channel, repos, said)

    def concealed(self, note: Note, channel: str, said: str = "") -> Note:
        """`note` as a reply in `channel` may tell it, hidden repositories left unnamed."""
        return self._disclosure.conceal(note, channel, said)

    def externally_shared(self, channel: str) -> bool:
        cached = self._facts.externally_shared(channel)
        if cached is not None:
            return cached
        try:
            info = self._slack.channel_info(channel)
        except SlackError as exc:
            if exc.code == SlackError.TRANSPORT:
                raise  # no answer at all: the caller fails, rather than refuse for a wrong reason
            log.warning("cannot tell whether %s is shared (%s); treating it as shared", channel, exc.code)
            return True
        external = bool(info.get("is_ext_shared"))
        self._facts.remember_sharing(channel, external)
        return external
