"""A digest's PRs by area: the groups a release's digest shows (each PR under one area), and
how many PRs each area had (the weekly roll-up's line). Pure; the areas are digests/feedback.py's.
"""

from __future__ import annotations

from collections import defaultdict

from bot.digests.feedback import item_areas
from bot.models import DigestItem, ReleaseGroup

# The group of a PR that has no label, title tag or path to speak of.
OTHER_AREA = "other"


def group_area(item: DigestItem) -> str:
    """The one area a PR is grouped under: its title's first tag ("[Kernel]"), else the top
    directory it changes, else its first label. Labels come last here (though first in the
    feedback ranking) since many say where a PR is in review ("ready"), not what it is about."""
    found = item_areas(item)
    tag = next((area for area in found if area.startswith("[")), None)
    path = next((area for area in found if area.endswith("/")), None)
    return tag or path or (found[0] if found else OTHER_AREA)


def groups(items: tuple[DigestItem, ...]) -> tuple[ReleaseGroup, ...]:
    """The items by area, read-worthy groups first (the most must-reads, then the most to skim,
    then the largest), each group in the digest's order. Tags are grouped whatever their case
    ("[Bugfix]", "[BugFix]"), under the first spelling met."""
    by_area: dict[str, list[DigestItem]] = defaultdict(list)
    spelled: dict[str, str] = {}
    for item in items:
        area = group_area(item)
        by_area[spelled.setdefault(area.lower(), area)].append(item)

    def weight(area: str) -> tuple[int, int, int, str]:
        members = by_area[area]
        reads = sum(item.card.verdict == "read" for item in members)
        skims = sum(item.card.verdict == "skim" for item in members)
        return (-reads, -skims, -len(members), area)

    return tuple(ReleaseGroup(area, tuple(by_area[area])) for area in sorted(by_area, key=weight))


def area_counts(items: tuple[DigestItem, ...]) -> list[tuple[str, int]]:
    """How many PRs each area had, most first, areas grouped as `groups` groups them."""
    return [(group.area, len(group.items)) for group in sorted(groups(items), key=lambda g: -len(g.items))]
