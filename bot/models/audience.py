"""Audience: who a reply is for, and what they may be told where they asked.

Built once per request by the access policy (access/policy.py `AccessPolicy.audience`), and
taken by every question, command and watch path, so that no path decides on its own which
repositories the asker may see here or which names a reply may carry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from zoneinfo import ZoneInfo

from bot.models.note import Language
from bot.models.pr import PRRef


def _not_shared() -> bool:
    return False


def _named_as_is(repo: str, said: str, shared: Callable[[], bool]) -> str | None:
    return repo  # where no access policy built the audience (the terminal), every name is said


@dataclass(frozen=True)
class Audience:
    channel: str  # where the reply is read: a channel, or the person's DM with the app
    # The repositories this person may be told about here, lower-cased: ask `may_see`.
    repos: frozenset[str]
    language: Language = "en"
    user: str | None = None
    thread_ts: str | None = None  # the thread the reply goes in (None: none, as on the CLI)
    # The asker's own workspace (a Slack Connect channel holds several); None: the request's.
    team: str | None = None
    # The asker's day, for "today" where no channel's days apply (their DM); None: the channel's.
    zone: ZoneInfo | None = None
    default_repo: str | None = None  # the repository "#123" stands for here
    said: str = ""  # what the asker typed: a repository they named may be named back to them
    # Whether the channel is shared with another organisation (Slack Connect), asked only when a
    # reply would name a private repository (it costs a conversations.info): see `shared`.
    sharing: Callable[[], bool] = field(default=_not_shared, repr=False, compare=False)
    # Whether a reply here may name a repository (access/disclosure.py `name_for`), given what
    # the asker typed and whether the channel is shared: see `named`. Set by the access policy,
    # so that every refusal says a name as the one rule decides, whoever words it.
    naming: Callable[[str, str, Callable[[], bool]], str | None] = field(
        default=_named_as_is, repr=False, compare=False
    )

    def may_see(self, repo: str) -> bool:
        return repo.lower() in self.repos

    def refused(self, refs: Iterable[PRRef]) -> PRRef | None:
        """The first of `refs` this person may not see here, or None."""
        return next((ref for ref in refs if not self.may_see(ref.repo)), None)

    def named(self, repo: str) -> str | None:
        """`repo` as a reply to this audience may name it, or None (say "a private repository")."""
        return self.naming(repo, self.said, lambda: self.shared)

    @cached_property
    def shared(self) -> bool:
        """Whether the channel is shared with another organisation (asked once per request)."""
        return self.sharing()
