"""Feedback that tunes tomorrow (pure): a PR's areas, a channel's votes tallied per area, and
the digest's order within each verdict group moved by them, with the reason kept on the card.

A vote is one person's verdict on one PR ("up": Useful, "down": Not for us); a second click by
the same person replaces the first (the store keys votes by person and PR). The tally counts
PRs, never people: a PR counts as marked useful when more of the channel's votes on it say so,
and only those counts are ever shown. Knows no vendor; store/feedback.py keeps the votes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from bot.models import VERDICT_ORDER, Boost, Digest, DigestItem

# "first three segments of its changed paths" (issue 13): vllm/v1/attention/backends/x.py → vllm/v1/attention/.
AREA_DEPTH = 3
# A PR of thousands of files would otherwise spread its vote over every corner of the repository.
MAX_AREAS = 12
# vLLM-style title tags ("[CI]", "[Bugfix]"): the repository's own labels when it has few real ones.
_TITLE_TAG = re.compile(r"\[([A-Za-z][A-Za-z0-9 /_.-]{0,30})\]")


@dataclass(frozen=True)
class Vote:
    """One person's feedback on one PR, with the PR's areas as they were when clicked."""

    pr: str  # owner/repo#N
    up: bool
    areas: tuple[str, ...]


def path_area(path: str) -> str | None:
    """The directory of `path` cut to its first AREA_DEPTH segments, ending in "/"; None at the root."""
    segments = [part for part in path.split("/") if part][:-1][:AREA_DEPTH]
    return "/".join(segments) + "/" if segments else None


def areas(labels: Iterable[str], paths: Iterable[str], title: str = "") -> tuple[str, ...]:
    """A PR's areas: its labels, its title's tags (`[CI]`), then its paths' directories, in that order."""
    found: dict[str, None] = {}
    for label in labels:
        if label.strip():
            found[label.strip()] = None
    for tag in _TITLE_TAG.findall(title):
        found[f"[{tag}]"] = None
    for path in paths:
        area = path_area(path)
        if area is not None:
            found[area] = None
    return tuple(found)[:MAX_AREAS]


def item_areas(item: DigestItem) -> tuple[str, ...]:
    return areas(item.listing.labels, item.paths, item.listing.title)


@dataclass(frozen=True)
class AreaCount:
    useful: int = 0  # PRs of the area the channel marked useful
    not_for_us: int = 0

    @property
    def score(self) -> int:
        return self.useful - self.not_for_us


def tally(votes: Iterable[Vote]) -> dict[str, AreaCount]:
    """Per area, how many PRs the channel marked useful and not for us (by the PR's net votes)."""
    net: dict[str, int] = {}
    pr_areas: dict[str, tuple[str, ...]] = {}
    for vote in votes:
        net[vote.pr] = net.get(vote.pr, 0) + (1 if vote.up else -1)
        pr_areas[vote.pr] = vote.areas
    counts: dict[str, AreaCount] = {}
    for pr, score in net.items():
        if score == 0:
            continue  # as many people found it useful as not: it says nothing about its areas
        for area in pr_areas[pr]:
            count = counts.get(area, AreaCount())
            counts[area] = (
                replace(count, useful=count.useful + 1)
                if score > 0
                else replace(count, not_for_us=count.not_for_us + 1)
            )
    return counts


def boost(item: DigestItem, counts: Mapping[str, AreaCount]) -> tuple[int, Boost | None]:
    """The item's feedback score (sum over its areas) and the area that explains it best."""
    marked = [(area, counts[area]) for area in item_areas(item) if area in counts and counts[area].score]
    score = sum(count.score for _, count in marked)
    if score == 0:
        return 0, None
    up = score > 0
    # The area pulling hardest in the direction the card moved (first one on a tie: labels first).
    area, count = max(marked, key=lambda pair: pair[1].score if up else -pair[1].score)
    return score, Boost(area, count.useful if up else count.not_for_us, up)


def rank(digest: Digest, counts: Mapping[str, AreaCount]) -> Digest:
    """The digest with each verdict group reordered by feedback score (higher first); cards the
    feedback does not touch keep their order among themselves. Verdict groups never mix."""
    if not counts:
        return digest
    scored: list[tuple[int, int, int, DigestItem]] = []
    for index, item in enumerate(digest.items):
        score, why = boost(item, counts)
        scored.append((VERDICT_ORDER[item.card.verdict], -score, index, replace(item, boost=why)))
    scored.sort(key=lambda entry: entry[:3])
    return replace(digest, items=tuple(entry[3] for entry in scored))
