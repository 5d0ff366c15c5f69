"""The source port: what services need of the code host (sources/github.py GitHubSource).

Protocols only: no vendor, no service, no store here, so adapters and services may both import it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from bot.models import PRListing, PRRef, PRSnapshot, Window


class Source(Protocol):
    def list_merged(self, repo: str, window: Window) -> list[PRListing]: ...

    def get_listing(self, ref: PRRef) -> PRListing: ...

    def expect(self, window: Window, listings: Iterable[PRListing]) -> None:
        """These PRs of `window` are about to be fetched, together (a digest): the source may read
        what they share in a few requests rather than one per PR. Costs no request."""
        ...

    def fetch(self, listing: PRListing) -> PRSnapshot: ...

    def is_private(self, repo: str) -> bool: ...

    def user_name(self, login: str) -> str | None:
        """The display name on the account's profile; None when it has none or there is no such account."""
        ...
