"""ReleasePosting: a release posted in a channel once, whichever replica or click asks.

Like a day's digest (digests/posting.py): one process holds the channel's lease for the release
(`lock:post:{channel}:release:…`), the ledger under the same key says which parts are in Slack,
and a rerun posts only the rest. Asked for by a Share click on `/pr release`, and, for channels
with `releases = "post"`, by GitHub's `release` webhook or the poller. The thread is kept as a
digest's, so questions in it are answered about the release's PRs.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from bot.digests import POST_LEASE_SECONDS, PostLease, Publisher, PublishResult
from bot.errors import PublishError
from bot.models import DigestThread, Language, Note
from bot.ops.logs import request_id
from bot.ports.messages import ReleaseMessages
from bot.releases.digests import ReleaseDigests
from bot.spending import Payer
from bot.store.ledger import PostLedger
from bot.store.threads import ThreadStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReleaseAsked:
    """Which release to post where: the channel, the repository, its tag and where it starts
    (None: the release before it), in the channel's language."""

    channel: str
    repo: str
    tag: str
    since: str | None = None
    language: Language = "en"


def release_key(repo: str, base: str, tag: str) -> str:
    """The ledger's and the lease's name for one release in one channel."""
    return f"release:{repo.lower()}:{base}...{tag}"


class ReleasePosting:
    def __init__(
        self,
        releases: ReleaseDigests,
        publisher: Publisher,
        stores: tuple[PostLedger, ThreadStore],
        messages: ReleaseMessages,
        refusal: Callable[[str, str], Note | None],
        workspace: str | None = None,
    ) -> None:
        self._releases = releases
        self._publisher = publisher
        self._ledger, self._threads = stores
        self._messages = messages
        self._refusal = refusal
        self._workspace = workspace
        self.lease_seconds = POST_LEASE_SECONDS

    def run(self, asked: ReleaseAsked, stopping: threading.Event | None = None) -> PublishResult | None:
        """Post the release unless another process is posting it (None then). PublishError when
        the channel may not be shown the repository; UsageError for a tag the repository lacks."""
        refused = self._refusal(asked.channel, asked.repo)
        if refused is not None:
            raise PublishError("error.nothing_to_post", channel=asked.channel, reasons=(refused,))
        span = self._releases.range(asked.repo, asked.tag, asked.since)
        key = release_key(asked.repo, span.base, asked.tag)
        channel = asked.channel
        entries = self._ledger.entries(channel, key)
        if "done" in entries:  # every part in Slack: none posted now, all of them before
            return PublishResult(entries.get("part:0"), 0, sum(name.startswith("part:") for name in entries))
        with request_id(f"{channel}:{key}"), PostLease(self._ledger, channel, key, self.lease_seconds) as lease:
            if not lease.acquire():
                log.info("release %s in %s: another process holds the lease", key, channel)
                return None
            found = self._releases.of(span, language=asked.language, payer=Payer(channel, self._workspace))

            def claim(name: str) -> None:
                if stopping is not None and stopping.is_set():
                    raise PublishError("error.shutting_down", channel=channel)
                lease.claim(name)

            parts = [self._messages.lead(found), *self._messages.thread(found)]
            result = self._publisher.publish_parts(channel, key, parts, claim=claim)
            if result.thread_ts is not None:
                digest = found.digest
                self._threads.save_digest(
                    DigestThread(channel, result.thread_ts, key, digest.repos, digest.language, digest.items)
                )
            log.info("release %s in %s: %d messages posted", key, channel, result.posted)
            return result
