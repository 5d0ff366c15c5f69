"""DigestMessages: what the posting rules say in Slack, asked for by what it is about.

Owns the shape of the words a digest's run posts: its lead (or a quiet day's note), its thread
of cards, and the reply in an earlier day's thread. The posting services (digests/publisher.py,
digests/crosslinks.py) decide what is posted when and hand these on without looking inside; how
they read is render/'s (render/slack/digest_messages.py implements this), so no service imports render.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from bot.core.followups import Answered
from bot.core.links import CrossLink
from bot.models import Digest, Language, ReleaseDigest
from bot.ports.slack import Message


class DigestMessages(Protocol):
    """The messages of one digest's run, the same for the same digest (a rerun posts the same parts)."""

    def lead(self, digest: Digest, links: Sequence[CrossLink]) -> Message:
        """The lead message: the day's counts, and the PRs that revert one of an earlier digest."""
        ...

    def quiet(self, digest: Digest) -> Message:
        """The one message of a day with nothing to show."""
        ...

    def thread(self, digest: Digest, links: Sequence[CrossLink], answered: Sequence[Answered]) -> list[Message]:
        """Every card in digest order, several to a message, with its links and answered follow-ups."""
        ...

    def reply(self, item: CrossLink, url: str, headline: str, language: Language) -> str:
        """The reply in the earlier digest's thread: which later PR (at `url`) refers to its PR."""
        ...

    def weekly(self, digest: Digest, areas: Sequence[tuple[str, int]], answered: Sequence[Answered]) -> Message:
        """The week's roll-up in one message: counts, must-reads, PRs per area, reverts, follow-ups answered."""
        ...


class ReleaseMessages(Protocol):
    """The messages of one release's post (render/slack/release_blocks.py implements it)."""

    def lead(self, release: ReleaseDigest) -> Message:
        """The channel message: the release's counts, must-reads and what to know before upgrading."""
        ...

    def thread(self, release: ReleaseDigest) -> list[Message]:
        """The release's cards by area, the same list for the same release."""
        ...
