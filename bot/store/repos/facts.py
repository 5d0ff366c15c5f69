"""FactStore: what GitHub and Slack said about a repository or a channel, remembered briefly.

- visibility:{owner/repo}   1 hour: whether GitHub says the repository is private.
- sharing:{channel}         1 hour: whether Slack says the channel is shared with another
  organisation (is_ext_shared).
- members:{channel}         5 minutes: the channel's member ids (conversations.members).
- language:{user}           10 minutes: the language of a person's Slack locale (users.info).
- zone:{user}               6 hours: a person's Slack time zone (users.info `tz`), for their daily DM.

Visibility is about a repository and shared by every workspace; the others are the
workspace's own (store/workspace.py `scoped`).

Caches: they stay open without Redis (a miss, and the question is asked again). The callers
decide what an unanswered question means (private, shared, not a member: fail closed).
"""

from __future__ import annotations

from pydantic import TypeAdapter, ValidationError

from bot.models import Language
from bot.store.codec import deferred
from bot.store.kv import KV
from bot.store.workspace import scoped

# A repository rarely changes visibility; an hour bounds how long a change goes unnoticed.
VISIBILITY_TTL = 3600
# Sharing a channel with another organisation is as rare; the same hour bounds it.
SHARING_TTL = 3600
# Someone who leaves a channel keeps seeing it on their Home for at most this long; the Home is
# opened far more often than membership changes (conversations.members is Tier 4, 100+/min).
MEMBERS_TTL = 300

# Someone who switches Slack's language sees the App Home in the old one for at most this long.
LANGUAGE_TTL = 600

# Someone who travels gets their watch DM at 09:00 of the old zone for at most this long; the
# scheduler asks about every watcher at every tick, so users.info is asked a few times a day.
ZONE_TTL = 6 * 3600

_MEMBERS: TypeAdapter[list[str]] = deferred(list[str])


class FactStore:
    def __init__(self, kv: KV, team: str | None = None) -> None:
        self._kv = kv
        self.team = team

    def _key(self, key: str) -> str:
        return scoped(self.team, key)

    def private(self, repo: str) -> bool | None:
        return _flag(self._kv.get(f"visibility:{repo.lower()}"), b"private", b"public")

    def remember_private(self, repo: str, private: bool) -> None:
        self._kv.set(f"visibility:{repo.lower()}", b"private" if private else b"public", VISIBILITY_TTL)

    def externally_shared(self, channel: str) -> bool | None:
        return _flag(self._kv.get(self._key(f"sharing:{channel}")), b"external", b"internal")

    def remember_sharing(self, channel: str, external: bool) -> None:
        self._kv.set(self._key(f"sharing:{channel}"), b"external" if external else b"internal", SHARING_TTL)

    def members(self, channel: str) -> frozenset[str] | None:
        raw = self._kv.get(self._key(f"members:{channel}"))
        if raw is None:
            return None
        try:
            return frozenset(_MEMBERS.validate_json(raw))
        except ValidationError:
            return None  # written by another version: read it again from Slack

    def remember_members(self, channel: str, members: list[str]) -> None:
        self._kv.set(self._key(f"members:{channel}"), _MEMBERS.dump_json(members), MEMBERS_TTL)

    def language(self, user: str) -> Language | None:
        raw = self._kv.get(self._key(f"language:{user}"))
        return "zh-CN" if raw == b"zh-CN" else "en" if raw == b"en" else None

    def remember_language(self, user: str, language: Language) -> None:
        self._kv.set(self._key(f"language:{user}"), language.encode(), LANGUAGE_TTL)

    def zone(self, user: str) -> str | None:
        raw = self._kv.get(self._key(f"zone:{user}"))
        return raw.decode() if raw else None

    def remember_zone(self, user: str, zone: str, ttl: int = ZONE_TTL) -> None:
        self._kv.set(self._key(f"zone:{user}"), zone.encode(), ttl)


def _flag(raw: bytes | None, yes: bytes, no: bytes) -> bool | None:
    return True if raw == yes else False if raw == no else None
