"""FeedbackStore: the Useful / Not for us clicks on a channel's digest cards.

- feedback:{channel}   a hash of `{user} {owner/repo#N}` → the vote (Vote JSON: up, the PR's areas).
  One field per person per PR, so a second click replaces the first. 90 days, renewed by every
  click: old feedback fades with the repository's layout. `/pr feedback reset` deletes it.
The key goes through `scoped(team, …)` (None: the single-workspace install). Writes fail closed
(`strict()`): a click that cannot be kept says so rather than vanish; reads stay open, so a
digest is still posted, in its usual order, when Redis is away.
"""

from __future__ import annotations

import json

from bot.models import Vote
from bot.store.kv import DAY, KV
from bot.store.workspace import scoped

FEEDBACK_TTL = 90 * DAY


class FeedbackStore:
    def __init__(self, kv: KV, team: str | None = None) -> None:
        self._kv = kv
        self._strict = kv.strict()
        self._team = team

    def _key(self, channel: str) -> str:
        return scoped(self._team, f"feedback:{channel}")

    def vote(self, channel: str, user: str, vote: Vote) -> None:
        """Keep `user`'s vote on the PR, replacing any earlier one of theirs. Raises StoreError."""
        value = json.dumps({"pr": vote.pr, "up": vote.up, "areas": list(vote.areas)}, separators=(",", ":"))
        self._strict.hset(self._key(channel), f"{user} {vote.pr}", value.encode(), FEEDBACK_TTL)

    def votes(self, channel: str) -> list[Vote]:
        """Every kept vote of the channel (whose they are stays here)."""
        found: list[Vote] = []
        for raw in self._kv.hgetall(self._key(channel)).values():
            try:
                data = json.loads(raw)
                found.append(Vote(str(data["pr"]), bool(data["up"]), tuple(str(area) for area in data["areas"])))
            except (ValueError, KeyError, TypeError):
                continue  # a value we did not write: it counts for nothing
        return found

    def reset(self, channel: str) -> None:
        """Forget the channel's feedback. Raises StoreError."""
        self._strict.delete(self._key(channel))
