"""A release digest as text for a terminal and as JSON (pure): the lead with its counts, "before
you upgrade", then each area's cards, read-worthy ones in full and skips one line each.

A 500-PR release stays readable: skip cards are one line, and the JSON keeps every field.
"""

from __future__ import annotations

from typing import Any

from bot.models import DigestItem, Language, ReleaseDigest, Upgrade
from bot.render.data import digest_data
from bot.render.labels import counts_line
from bot.render.terminal import metadata_line, render_item
from bot.words import said, text

_BOLD = "\033[1m"
_DIM = "\033[2m"
_RESET = "\033[0m"


def release_title(release: ReleaseDigest) -> str:
    return text(release.digest.language, "release.title", repo=release.repo, tag=release.tag, base=release.base)


def upgrade_line(upgrade: Upgrade, language: Language) -> str:
    """One "before you upgrade" point: its kind, the words that say it, and its PR."""
    item = upgrade.item
    kind = text(language, f"release.kind.{upgrade.note.kind}")
    return f"{kind}: {upgrade.note.said} (#{item.listing.number})"


def skip_line(item: DigestItem) -> str:
    return f"#{item.listing.number} {item.card.headline}"


def render_release(release: ReleaseDigest, *, colour: bool = False) -> str:
    def bold(line: str) -> str:
        return f"{_BOLD}{line}{_RESET}" if colour else line

    def dim(line: str) -> str:
        return f"{_DIM}{line}{_RESET}" if colour else line

    digest = release.digest
    language = digest.language
    lines = [bold(release_title(release))]
    lines.append(counts_line(digest) if digest.items else text(language, "release.empty"))
    metadata = metadata_line(digest.items, language)
    if metadata:
        lines.append(dim(metadata))  # said once here, not under every card
    if release.unnamed:
        unnamed = "release.unnamed_one" if release.unnamed == 1 else "release.unnamed"
        lines.append(dim(text(language, unnamed, n=release.unnamed)))
    lines.extend(f"! {said(language, note)}" for note in digest.notes)
    if release.upgrade:
        lines += ["", bold(text(language, "release.upgrade"))]
        lines.extend(f"  - {upgrade_line(upgrade, language)}" for upgrade in release.upgrade)
    for group in release.groups:
        lines += ["", bold(text(language, "release.area", area=group.area, n=len(group.items)))]
        skips = [item for item in group.items if item.card.verdict == "skip"]
        for item in group.items:
            if item.card.verdict != "skip":
                lines += [render_item(item, colour=colour, source_note=False), ""]
        if skips:
            lines.append(dim(text(language, "release.skips", n=len(skips))))
            lines.extend(f"  {skip_line(item)}" for item in skips)
    return "\n".join(lines).rstrip() + "\n"


def release_data(release: ReleaseDigest) -> dict[str, Any]:
    """`prdigest release --format json`: the digest's own shape, and the release's parts."""
    language = release.digest.language
    return {
        "repo": release.repo,
        "tag": release.tag,
        "since": release.base,
        **digest_data(release.digest),
        "unnamed_commits": release.unnamed,
        "areas": [
            {"area": group.area, "numbers": [item.listing.number for item in group.items]} for group in release.groups
        ],
        "before_you_upgrade": [
            {
                "number": upgrade.item.listing.number,
                "url": upgrade.item.listing.url,
                "kind": upgrade.note.kind,
                "said": upgrade.note.said,
                "line": upgrade_line(upgrade, language),
            }
            for upgrade in release.upgrade
        ],
    }
