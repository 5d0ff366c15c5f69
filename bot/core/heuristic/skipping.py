"""Classes of PRs whose metadata alone settles the card (`[defaults] skip_model_for`), pure.

An operator lists the classes whose PRs get a heuristic card without a model call:
- "bot-bumps": a bot's PR (GitHub marks the author a bot, or the login ends in "[bot]") whose
  title is a version bump ("Bump requests from 2.31.0 to 2.32.0", core/shape.is_bump). A
  person's bump is not one: people explain why they bump.
- "lockfile-only": every changed file is a lockfile by its exact name (core/files.LOCK_FILES:
  uv.lock, poetry.lock, package-lock.json, yarn.lock, pnpm-lock.yaml, Cargo.lock, go.sum,
  Pipfile.lock, composer.lock, Gemfile.lock). requirements*.txt is not: people edit it, and a
  pin there may be the point of the PR.
- "ci-one-line": every changed file is under .github/workflows/ or .buildkite/, and the whole
  PR adds at most one line and deletes at most one (a version, a runner label, a flag).
A PR whose files are unknown (GitHub's rate limit) is only ever "bot-bumps".
"""

from __future__ import annotations

from typing import get_args

from bot.core.heuristic.files import LOCK_FILES
from bot.core.heuristic.shape import is_bump
from bot.models import PRListing, PRSnapshot, SkipClass

SKIP_CLASSES: tuple[SkipClass, ...] = get_args(SkipClass)
CI_PREFIXES = (".github/workflows/", ".buildkite/")
# "One line": a changed value, one added and one deleted line at most.
CI_MAX_ADDED = 1
CI_MAX_DELETED = 1


def is_bot_author(listing: PRListing) -> bool:
    return listing.author_is_bot or listing.author.lower().endswith("[bot]")


def matches(snapshot: PRSnapshot, kind: SkipClass) -> bool:
    listing, files = snapshot.listing, snapshot.files
    if kind == "bot-bumps":
        return is_bot_author(listing) and is_bump(listing.title)
    if not snapshot.complete or not files or snapshot.files_total > len(files):
        return False
    if kind == "lockfile-only":
        return all(change.path.rsplit("/", 1)[-1] in LOCK_FILES for change in files)
    return (
        all(change.path.startswith(CI_PREFIXES) for change in files)
        and snapshot.additions <= CI_MAX_ADDED
        and snapshot.deletions <= CI_MAX_DELETED
    )


def skip_class(snapshot: PRSnapshot, classes: tuple[SkipClass, ...]) -> SkipClass | None:
    """The first of `classes` the PR belongs to: its card is made without a model; else None."""
    return next((kind for kind in classes if matches(snapshot, kind)), None)
