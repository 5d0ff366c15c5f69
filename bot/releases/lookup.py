"""ReleaseLookup: `/pr release [OWNER/REPO] [TAG]` for one person, and its Share button.

The front door the Slack surface calls: it builds the request's Audience once (access/policy.py)
and answers with the release (its lead and "before you upgrade"), or why there is none; the
surface words it (render/slack/release_blocks.py `release_reply`). A Share posts the release in
the channel once (releases/posting.py), for the person it was shown to alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.access import AccessPolicy
from bot.channels import ChannelDirectory
from bot.digests import PublishResult
from bot.errors import SourceError, UsageError
from bot.models import Language, NotAllowed, NotYours, ReleaseDigest, ReleaseRefused, ReleaseShared
from bot.releases.digests import ReleaseDigests
from bot.releases.posting import ReleaseAsked, ReleasePosting
from bot.spending import Payer

ReleaseLookedUp = ReleaseDigest | NotAllowed | ReleaseRefused
ReleaseShareOutcome = ReleaseShared | NotYours | NotAllowed


@dataclass(frozen=True)
class ReleaseLookup:
    releases: ReleaseDigests | None
    posting: ReleasePosting | None
    directory: ChannelDirectory
    access: AccessPolicy
    scope: str | None  # the workspace asking (None: the single or home one): it pays for the cards

    def language(self, channel: str) -> Language:
        """The language `channel` is answered in."""
        return self.directory.language(channel)

    def default_repo(self, channel: str) -> str | None:
        """The repository `/pr release` means in `channel` when it names none."""
        return self.directory.default_repo(channel)

    def release(self, repo: str, tag: str | None, channel: str, user: str | None, said: str) -> ReleaseLookedUp:
        """`repo`'s release `tag` (None: its latest) for `user`, who asked in `channel` by typing
        `said`. A repository the channel may not show is refused as a PR of it would be."""
        audience = self.access.audience(channel, user=user, said=said)
        if not audience.may_see(repo):
            return NotAllowed(None, audience.named(repo))
        releases = self.releases
        if releases is None:
            raise RuntimeError("no release digests were given to this workspace")
        try:
            payer = Payer(channel, self.scope)
            return releases.build(repo, tag or releases.latest_tag(repo), language=audience.language, payer=payer)
        except UsageError as exc:
            return ReleaseRefused(repo, exc.note)
        except SourceError:
            return ReleaseRefused(repo)

    def post(self, asked: ReleaseAsked) -> PublishResult | None:
        """Post the release as `releases = "post"` posts it, once per channel (None: another
        process is posting it). UsageError when nothing may post here."""
        if self.posting is None:
            raise UsageError("error.internal")
        return self.posting.run(asked)

    def share(self, asked: ReleaseAsked, requester: str, clicked_by: str) -> ReleaseShareOutcome:
        """Post the release `requester` was shown, on a click of `clicked_by`: only they may.
        StoreError, PublishError, SourceError or UsageError when it cannot be posted."""
        if self.posting is None:
            return ReleaseShared(False)
        if clicked_by != requester:
            return NotYours()
        audience = self.access.audience(asked.channel, user=requester)
        if not audience.may_see(asked.repo):
            return NotAllowed(None, audience.named(asked.repo))
        self.posting.run(asked)
        return ReleaseShared(True)
