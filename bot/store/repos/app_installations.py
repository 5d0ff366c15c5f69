"""AppInstallationStore: which installation of the GitHub App holds each repository.

- app_installation:{owner}/{repo}   1 day: the installation's id (decimal), or 0 when GitHub
  answered that the App is not installed there (kept 10 minutes).

Names are lower case (GitHub ignores case in them). Every replica asks GitHub once a day per
repository instead of once per process; GitHub's `installation` and `installation_repositories`
webhook deliveries forget an account's repositories at once (`forget_owner`). A cache: it stays
open without Redis (a miss, and GitHub is asked again); a value another version wrote is a miss.
"""

from __future__ import annotations

from bot.store.kv import DAY, KV

# An installation keeps its id for as long as it exists; a removed one is found out sooner
# (its token request answers 404, and the webhook says so).
INSTALLED_TTL = DAY
# Installing the App takes a minute in GitHub's settings: a repository found without it is asked
# about again soon, even where no webhook delivery says it was installed.
NOT_INSTALLED_TTL = 10 * 60
NOT_INSTALLED = 0  # GitHub's installation ids start at 1


class AppInstallationStore:
    def __init__(self, kv: KV) -> None:
        self._kv = kv

    def recall(self, repo: str) -> int | None:
        """The installation id kept for `repo`, NOT_INSTALLED, or None when nothing is kept."""
        raw = self._kv.get(_key(repo))
        if raw is None or not raw.isdigit():
            return None  # nothing kept, or written by another version: ask GitHub
        return int(raw)

    def remember(self, repo: str, installation: int) -> None:
        """Keep `repo`'s installation id, or NOT_INSTALLED (for a shorter time)."""
        ttl = NOT_INSTALLED_TTL if installation == NOT_INSTALLED else INSTALLED_TTL
        self._kv.set(_key(repo), str(installation).encode(), ttl)

    def forget(self, repo: str) -> None:
        self._kv.delete(_key(repo))

    def forget_owner(self, owner: str) -> int:
        """Forget every repository of `owner` (an installation of theirs changed); how many."""
        return self._kv.delete_prefix(_key(f"{owner}/"))


def _key(repo: str) -> str:
    return f"app_installation:{repo.lower()}"
