"""A channel's filters (pure): which merged PRs it keeps, and why a PR was kept or left out.

Globs: `*` and `?` are wildcards and a `*` crosses `/`; brackets are literal, since GitHub
logins such as dependabot[bot] contain them. Matching ignores case and takes linear time
(bot/core/strings/globs.py), whatever a saved pattern holds.
"""

from __future__ import annotations

from datetime import UTC

from bot.core.strings.globs import glob_matches
from bot.models import Filters, PRListing, PRSnapshot, Rule, Window


def first_match(text: str, patterns: tuple[str, ...]) -> str | None:
    return next((pattern for pattern in patterns if glob_matches(pattern, text, "filter")), None)


def keeps_listing(filters: Filters, listing: PRListing) -> bool:
    return not [reason for reason in _listing_reasons(filters, listing) if not reason.kept]


def keeps_files(filters: Filters, snapshot: PRSnapshot) -> bool:
    if not filters.paths or not snapshot.complete:
        return True  # files unknown: keep the PR rather than lose it
    return any(first_match(change.path, filters.paths) for change in snapshot.files)


def _listing_reasons(filters: Filters, listing: PRListing) -> list[Rule]:
    rules: list[Rule] = []
    excluded_by = first_match(listing.author, filters.exclude_authors)
    if excluded_by:
        rules.append(Rule("author", False, excluded_by))
    elif filters.exclude_authors:
        rules.append(Rule("author", True, listing.author))
    labels = {label.lower(): label for label in listing.labels}
    if filters.labels_include:
        wanted = [label for label in filters.labels_include if label.lower() in labels]
        rules.append(Rule("labels_include", bool(wanted), ", ".join(wanted or filters.labels_include)))
    unwanted = [label for label in filters.labels_exclude if label.lower() in labels]
    if unwanted:
        rules.append(Rule("labels_exclude", False, ", ".join(unwanted)))
    return rules


def explain(
    listing: PRListing, snapshot: PRSnapshot | None, window: Window | None, filters: Filters, repos: tuple[str, ...]
) -> list[Rule]:
    """Every rule that decided whether this PR is in a channel's digest, in the order applied."""
    if listing.repo.lower() not in {repo.lower() for repo in repos}:
        return [Rule("repo", False, ", ".join(repos))]
    rules = [Rule("repo", True, listing.repo)]
    if window is not None:
        merged = listing.merged_at
        inside = merged is not None and window.contains(merged)
        when = "" if merged is None else merged.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
        rules.append(Rule("window", inside, when))
    rules.extend(_listing_reasons(filters, listing))
    if filters.paths and snapshot is not None and snapshot.complete:
        matched = next(
            (
                f"{change.path} ({pattern})"
                for change in snapshot.files
                if (pattern := first_match(change.path, filters.paths))
            ),
            None,
        )
        rules.append(Rule("paths", matched is not None, matched or ", ".join(filters.paths)))
    return rules
