"""WatchDMs: each watcher's DM of the day, at 09:00 in their Slack time zone, by one replica.

The scheduler asks `due()` at every tick and hands each due person to `send()`. A DM covers the
24 hours before that 09:00 (from the previous day's 09:00, so windows meet across a DST change)
and holds the cards of the merged PRs the person's watches match; nothing matching, no DM. It is
posted the way a digest is: under the post lease of (`alert:{user}`, day), recorded in the post
ledger as pending, then posted, then done; a pending DM is looked for in the conversation by its
metadata before it is posted again, so no replica sends a second one.

Private repositories: a watch on one counts only while the person is a member of a channel
configured for it (access/policy.py's rules), checked when the DM is sent, not only when the
watch was made. The time zone is users.info's `tz`, remembered for hours; UTC when Slack cannot say.

A rule, not a surface: Slack is the SlackPort it is given and the DM's words the WatchDMWords
(bot/ports/wording.py, render/slack/watches.py's `watch_dm_message`); it imports no slack/ nor render/.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.access import AccessPolicy
from bot.channels import ChannelDirectory, ChannelMembers, PeopleLanguages
from bot.core.watches import Watch
from bot.digests import REAL_POST_TIMING, PostLease, PostTiming
from bot.errors import PublishError, SlackError
from bot.models import Language, Window
from bot.ports.slack import TRANSIENT, SlackPort
from bot.ports.wording import WatchDMWords
from bot.store.ledger import PostLedger
from bot.store.repos.facts import FactStore
from bot.store.watches import WatchStore, watch_dm_channel
from bot.watches.finder import WatchFinder

log = logging.getLogger(__name__)

# The rule: one DM a day at 09:00 in the person's own time zone.
ALERT_AT = time(9, 0)
METADATA_EVENT = "prdigest_alert"
PART = 1
# When Slack cannot say a person's zone, UTC stands in, remembered briefly so each tick does not ask again.
UNKNOWN_ZONE_TTL = 600
# A DM conversation holds our one message a day: the newest few cover a crash within the day.
HISTORY_LIMIT = 50


@dataclass(frozen=True)
class DueWatchDM:
    user: str
    day: str  # the person's local day, YYYY-MM-DD
    window: Window


def watch_dm_window(zone: ZoneInfo, now: datetime) -> tuple[Window, str] | None:
    """Today's window in `zone` once today's 09:00 there has passed; None before it."""
    local = now.astimezone(zone)
    if local.time() < ALERT_AT:
        return None
    end = datetime.combine(local.date(), ALERT_AT, tzinfo=zone)
    start = datetime.combine(local.date() - timedelta(days=1), ALERT_AT, tzinfo=zone)
    # In UTC: a difference of two times of one zone is taken on the wall clock, DST ignored.
    return Window(start.astimezone(UTC), end.astimezone(UTC)), local.date().isoformat()


@dataclass(frozen=True)
class WatchDMStores:
    """What the DMs keep: the workspace's watches (whose team is the workspace), the post ledger
    a DM is recorded in, and the facts remembered of people (time zone, language, channels)."""

    watches: WatchStore
    ledger: PostLedger
    facts: FactStore


@dataclass(frozen=True)
class WatchAccess:
    """Who may watch a private repository (see `WatchDMs.may_see`): whether it is private, the
    configured channels it belongs to, and whether it may be posted in each."""

    access: AccessPolicy
    directory: ChannelDirectory
    is_private: Callable[[str], bool]


@dataclass(frozen=True)
class WatchDMWording:
    """How a DM is worded: the words, in the language of each person's Slack locale, or in
    `language` (the configured default) when Slack cannot say."""

    words: WatchDMWords
    language: Language = "en"


class WatchDMs:
    def __init__(
        self,
        *,
        slack: SlackPort,
        stores: WatchDMStores,
        access: WatchAccess,
        finder: WatchFinder,
        wording: WatchDMWording,
        timing: PostTiming = REAL_POST_TIMING,
    ) -> None:
        # Whose budget pays for cards made for these DMs: the workspace whose watches these are
        # (None: the single or home workspace).
        self._workspace = stores.watches.team
        self._slack = slack
        self.watches = stores.watches
        self._ledger = stores.ledger
        self._facts = stores.facts
        self._access = access.access
        self._directory = access.directory
        self._finder = finder
        self._is_private = access.is_private
        self._words = wording.words
        self._members = ChannelMembers(stores.facts)
        self._people = PeopleLanguages(stores.facts, wording.language)
        self._now = timing.now
        self._lease_seconds = timing.lease_seconds
        # user → the last day whose DM this process knows is settled: a settled day is final, so
        # the ticks after it read no ledger for that person until their next 09:00.
        self._settled: dict[str, str] = {}

    @property
    def team(self) -> str | None:
        return self.watches.team

    # -- who may watch what ----------------------------------------------------------------

    def may_see(self, user: str, repo: str) -> bool:
        """A public repository: anyone. A private one: a member of a channel configured for it
        where it may be posted (the file's rules, not shared outside). Unknown counts as private."""
        if not self._is_private(repo):
            return True
        name = repo.lower()
        for plan in self._directory.plans:
            if name not in {listed.lower() for listed in plan.repos}:
                continue
            if self._access.may_post(plan.id, repo) and self._members.is_member(self._slack, plan.id, user):
                return True
        return False

    # -- when ------------------------------------------------------------------------------

    def zone(self, user: str) -> ZoneInfo:
        name = self._facts.zone(user)
        if name is None:
            name = self._ask_zone(user)
        try:
            return ZoneInfo(name)
        except (ValueError, KeyError):  # ZoneInfoNotFoundError is a KeyError
            return ZoneInfo("UTC")

    def _ask_zone(self, user: str) -> str:
        try:
            name = self._slack.user_info(user).get("tz")
            ZoneInfo(str(name))
        except SlackError as exc:
            log.warning("cannot read the time zone of %s (%s); using UTC for now", user, exc.code)
            self._facts.remember_zone(user, "UTC", UNKNOWN_ZONE_TTL)
            return "UTC"
        except (ValueError, KeyError):
            self._facts.remember_zone(user, "UTC")  # no zone, or one we do not know: UTC for hours
            return "UTC"
        self._facts.remember_zone(user, str(name))
        return str(name)

    def due(self) -> list[DueWatchDM]:
        """Everyone whose DM of today is due and not sent. StoreError when the ledger is away."""
        now = self._now()
        found: list[DueWatchDM] = []
        for user, watches in self.watches.everyone().items():
            if not watches:
                continue
            today = watch_dm_window(self.zone(user), now)
            if today is None:
                continue
            window, day = today
            if self._settled.get(user) == day:
                continue
            if "done" in self._ledger.entries(watch_dm_channel(user), day):
                self._settled[user] = day
            else:
                found.append(DueWatchDM(user, day, window))
        return found

    # -- sending ---------------------------------------------------------------------------

    def send(self, due: DueWatchDM, stopping: threading.Event | None = None) -> int | None:
        """Send `due`'s DM unless another process is sending it (None); how many messages this
        call posted (0: nothing matched, or an earlier run had sent it)."""
        channel = watch_dm_channel(due.user)
        with PostLease(self._ledger, channel, due.day, self._lease_seconds) as lease:
            if not lease.acquire():
                return None
            entries = self._ledger.entries(channel, due.day)
            if "done" in entries:
                return 0
            watches = [watch for watch in self.watches.everyone().get(due.user, []) if self._visible(due.user, watch)]
            language = self._people.language(self._slack, due.user)
            items = self._finder.find(watches, due.window, language, self._workspace) if watches else []
            if not items:
                self._ledger.record(channel, due.day, "done", "1")
                return 0
            message = self._words(items, due.day, language)
            dm = self._open(due.user)
            if f"pending:{PART}" in entries:
                found = self._posted(dm, due.day)
                if found is not None:
                    self._ledger.record(channel, due.day, f"part:{PART}", found)
                    self._ledger.record(channel, due.day, "done", "1")
                    return 0
            if stopping is not None and stopping.is_set():
                raise PublishError("error.shutting_down", channel=channel)
            lease.claim(f"pending:{PART}")
            ts = self._slack.post(
                dm,
                message.text,
                blocks=message.blocks,
                metadata={"event_type": METADATA_EVENT, "event_payload": {"day": due.day}},
            )
            self._ledger.record(channel, due.day, f"part:{PART}", ts)
            self._ledger.record(channel, due.day, "done", "1")
            return 1

    def _visible(self, user: str, watch: Watch) -> bool:
        if self.may_see(user, watch.repo):
            return True
        log.info("a watch of %s on %s is skipped: not in a channel configured for it", user, watch.repo)
        return False

    def _open(self, user: str) -> str:
        return self._slack.open_dm(user)

    def _posted(self, dm: str, day: str) -> str | None:
        """The ts of our DM for `day` if it reached Slack although the ledger did not hear of it."""
        try:
            messages = self._slack.recent_messages(dm, HISTORY_LIMIT)
        except SlackError as exc:
            if exc.code == SlackError.TRANSPORT or exc.code in TRANSIENT:
                raise  # nothing is sent on a guess: the run fails and is tried again
            log.warning("could not read back the DM of %s for %s: %s", dm, day, exc.code)
            return None
        for found in messages:
            metadata = found.get("metadata") or {}
            payload = metadata.get("event_payload") or {}
            if metadata.get("event_type") == METADATA_EVENT and payload.get("day") == day:
                return str(found["ts"])
        return None
