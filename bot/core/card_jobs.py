"""A card job as it travels through the queue: plain JSON, never pickle (pure).

A job names a PR and the language its card is wanted in; the worker reads everything else (the
snapshot, the card's key) from the store or GitHub, so a job written by one version of prdigest
is understood by the next.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, get_args

from bot.core.strings.patterns import lazy
from bot.models import Language, PRRef

_REPO = lazy(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_SHA = lazy(r"[0-9a-f]{7,40}")
_LANGUAGES: tuple[str, ...] = get_args(Language)
# Who asked for the card (a channel id, or a surface such as "worker"): its tokens are theirs.
_PAYER = lazy(r"[A-Za-z0-9_-]{1,40}")
# GitHub's GraphQL schema types a pull request's `number` as Int (a signed 32-bit integer), so no
# real PR is numbered above this; a larger number is someone else's input, not GitHub's.
MAX_PR_NUMBER = 2**31 - 1


def pr_number(value: object) -> int | None:
    """`value` when it is a number GitHub could give a pull request (1 to MAX_PR_NUMBER), else None."""
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_PR_NUMBER:
        return None
    return value


# The workspace that asked (OAuth mode), a Slack team id: its budget pays (store/workspace.py's rule).
_TEAM = lazy(r"[TE][A-Z0-9]{2,31}")


@dataclass(frozen=True)
class CardJob:
    repo: str
    number: int
    language: Language
    merge_sha: str | None = None  # the card's revision when the asker knew it
    payer: str | None = None  # who asked first (spending/budgets.py); None: the poller or the webhook
    workspace: str | None = None  # the payer's workspace; None: the single or home one
    # Queued because a merge was announced (the webhook, whose payload only claims it): dropped
    # when GitHub says the PR is not merged. A person's /pr may ask for an open PR's card.
    for_merge: bool = False
    # Queued by a digest that reads the PR from GitHub itself, with the day's other PRs: the
    # worker waits for that snapshot in the store rather than ask GitHub again.
    read_by_asker: bool = False

    @property
    def ref(self) -> PRRef:
        return PRRef(self.repo, self.number)

    @property
    def key(self) -> str:
        """One job per (PR, language) in the queue at a time, however the repository is spelled."""
        return f"{self.repo.lower()}#{self.number}:{self.language}"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "repo": self.repo,
            "number": self.number,
            "language": self.language,
            "merge_sha": self.merge_sha,
        }
        if self.payer is not None:
            data["payer"] = self.payer  # absent otherwise: a job an older worker reads as it always did
        if self.for_merge:
            data["for_merge"] = True  # likewise
        if self.workspace is not None:
            data["workspace"] = self.workspace
        if self.read_by_asker:
            data["read_by_asker"] = True  # likewise
        return data

    @classmethod
    def from_json(cls, data: object) -> CardJob:
        """The job in `data`; ValueError for anything a CardJob did not write."""
        if not isinstance(data, dict):
            raise ValueError("a card job is a JSON object")  # noqa: TRY004 - one error for any bad job
        repo, number, language, sha = (data.get(name) for name in ("repo", "number", "language", "merge_sha"))
        if not isinstance(repo, str) or not _REPO.fullmatch(repo):
            raise ValueError("a card job names its repository as owner/name")
        checked = pr_number(number)
        if checked is None:
            raise ValueError("a card job names its PR by a number GitHub could give it")
        if language not in _LANGUAGES:
            raise ValueError("a card job's language is one prdigest writes")
        if sha is not None and (not isinstance(sha, str) or not _SHA.fullmatch(sha)):
            raise ValueError("a card job's merge_sha is a commit SHA")
        payer = data.get("payer")
        if payer is not None and (not isinstance(payer, str) or not _PAYER.fullmatch(payer)):
            raise ValueError("a card job's payer is a channel id or a surface's name")
        for_merge = data.get("for_merge", False)
        if not isinstance(for_merge, bool):
            raise ValueError("a card job's for_merge is true or false")  # noqa: TRY004 - one error for any bad job
        workspace = data.get("workspace")
        if workspace is not None and (not isinstance(workspace, str) or not _TEAM.fullmatch(workspace)):
            raise ValueError("a card job's workspace is a Slack team id")
        read_by_asker = data.get("read_by_asker", False)
        if not isinstance(read_by_asker, bool):
            raise ValueError("a card job's read_by_asker is true or false")  # noqa: TRY004 - one error for any bad job
        return cls(
            repo, checked, language, sha, payer, for_merge=for_merge, workspace=workspace, read_by_asker=read_by_asker
        )
