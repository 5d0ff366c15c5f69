"""Feedback that tunes tomorrow (pure): a PR's areas, a channel's votes tallied per area, and
the digest's order within each verdict group moved by them, with the reason kept on the card.

A vote is one person's verdict on one PR ("up": Useful, "down": Not for us); a second click by
the same person replaces the first (the store keys votes by person and PR). The tally counts
PRs, never people: a PR counts as marked useful when more of the channel's votes on it say so,
and only those counts are ever shown. Knows no vendor; the values (`Vote`, `Boost`) are
bot/models/feedback.py's, and store/feedback.py keeps the votes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from bot.core.strings.patterns import lazy
from bot.models import VERDICT_ORDER, Boost, Digest, DigestItem, Vote

# "first three segments of its changed paths" (issue 13): vllm/v1/attention/backends/x.py → vllm/v1/attention/.
AREA_DEPTH = 3
# A PR of thousands of files would otherwise spread its vote over every corner of the repository.
MAX_AREAS = 12
# vLLM-style title tags ("[CI]", "[Bugfix]"): the repository's own labels when it has few real ones.
_TITLE_TAG = lazy(r"\[([A-Za-z][A-Za-z0-9 /_.-]{0,30})\]")


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

    def add(self, up: bool) -> AreaCount:
        return replace(self, useful=self.useful + 1) if up else replace(self, not_for_us=self.not_for_us + 1)


@dataclass(frozen=True)
class Tally:
    """The channel's marks per area (`direct`), and per directory prefix over every PR with an
    area under it (`under`): `.buildkite/` counts a PR of `.buildkite/intel_jobs/` too."""

    direct: Mapping[str, AreaCount]
    under: Mapping[str, AreaCount]


def _prefixes(area: str) -> list[str]:
    """A path area's directories from the nearest up (`a/b/c/` → `a/b/c/`, `a/b/`, `a/`); none for a label."""
    if not area.endswith("/"):
        return []
    parts = area.rstrip("/").split("/")
    return ["/".join(parts[:depth]) + "/" for depth in range(len(parts), 0, -1)]


def tally(votes: Iterable[Vote]) -> Tally:
    """Per area, how many PRs the channel marked useful and not for us (by the PR's net votes)."""
    net: dict[str, int] = {}
    pr_areas: dict[str, tuple[str, ...]] = {}
    for vote in votes:
        net[vote.pr] = net.get(vote.pr, 0) + (1 if vote.up else -1)
        pr_areas[vote.pr] = vote.areas
    raw: dict[str, AreaCount] = {}
    for pr, score in net.items():
        for area in pr_areas[pr] if score else ():
            raw[area] = raw.get(area, AreaCount()).add(score > 0)
    direct: dict[str, AreaCount] = {}
    under: dict[str, AreaCount] = {}
    for pr, score in net.items():
        if score == 0:
            continue  # as many people found it useful as not: it says nothing about its areas
        # The vote is credited to the PR's area the channel marked most often in its direction, so
        # a tag that merely rides along ([ROCm] on a [CI] fix) learns nothing from it.
        sign = 1 if score > 0 else -1
        best = max(raw[area].score * sign for area in pr_areas[pr]) if pr_areas[pr] else 0
        for area in pr_areas[pr]:
            if raw[area].score * sign == best:
                direct[area] = direct.get(area, AreaCount()).add(score > 0)
        for prefix in {prefix for area in pr_areas[pr] for prefix in _prefixes(area)}:
            under[prefix] = under.get(prefix, AreaCount()).add(score > 0)
    return Tally(direct, under)


def _evidence(area: str, counts: Tally) -> tuple[float, str, AreaCount] | None:
    """What the channel said about `area`: its own marks at full weight, or those of a parent
    directory (every marked PR under it) at half weight, a hint rather than a verdict; the stronger."""
    found: list[tuple[float, str, AreaCount]] = []
    own = counts.direct.get(area)
    if own is not None and own.score:
        found.append((float(own.score), area, own))
    for prefix in _prefixes(area):
        parent = counts.under.get(prefix)
        if parent is not None and parent.score:
            found.append((parent.score / 2, prefix, parent))
    return max(found, key=lambda evidence: abs(evidence[0])) if found else None


def boost(item: DigestItem, counts: Tally) -> tuple[float, Boost | None]:
    """The item's feedback score and its reason: the one area the channel spoke of most clearly.
    One area, not a sum: a PR is not pushed down because it shares a tag with yesterday's CI fix."""
    found = [evidence for area in item_areas(item) if (evidence := _evidence(area, counts)) is not None]
    if not found:
        return 0.0, None
    score, area, count = max(found, key=lambda evidence: abs(evidence[0]))  # first on a tie: labels first
    up = score > 0
    return score, Boost(area, count.useful if up else count.not_for_us, up)


def rank(digest: Digest, counts: Tally) -> Digest:
    """The digest with each verdict group reordered by feedback score (higher first); cards the
    feedback does not touch keep their order among themselves. Verdict groups never mix."""
    if not counts.direct:
        return digest
    scored: list[tuple[int, float, int, DigestItem]] = []
    for index, item in enumerate(digest.items):
        score, why = boost(item, counts)
        scored.append((VERDICT_ORDER[item.card.verdict], -score, index, replace(item, boost=why)))
    scored.sort(key=lambda entry: entry[:3])
    return replace(digest, items=tuple(entry[3] for entry in scored))
