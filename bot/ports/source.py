"""The source port: what services need of the code host (sources/github.py GitHubSource).

Protocols only: no vendor, no service, no store here, so adapters and services may both import it.
"""

from __future__ import annotations

from typing import Protocol

from bot.models import PRListing, PRRef, PRSnapshot, Window


class Source(Protocol):
    def list_merged(self, repo: str, window: Window) -> list[PRListing]: ...

    def get_listing(self, ref: PRRef) -> PRListing: ...

    def fetch(self, listing: PRListing) -> PRSnapshot: ...

    def is_private(self, repo: str) -> bool: ...

    def user_name(self, login: str) -> str | None:
        """The display name on the account's profile; None when it has none or there is no such account."""
        ...
