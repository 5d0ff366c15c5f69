"""Lines every renderer shares, in the card's or digest's language: verdict, counts, coverage,
the window a digest covers (pure).

The words come from bot/words; this module only puts them together.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, timedelta

from bot.models import Card, Coverage, Digest, Language, Window
from bot.words import text

# The skip reasons of core/heuristic/files.py and core/prompting/context.py are codes (cards keep them, the JSON
# output shows them, the model reads them); these are their sentences.
_REASONS = {
    "binary file": "reason.binary",
    "lock file": "reason.lock",
    "generated file": "reason.generated",
    "vendored": "reason.vendored",
    "no diff from GitHub (too large)": "reason.too_large",
    "did not fit the token budget": "reason.no_room",
}


def reason_text(reason: str, language: Language) -> str:
    """A skip reason in `language`; one this version does not know (an older card) as it was stored."""
    key = _REASONS.get(reason)
    return text(language, key) if key else reason


def verdict_label(card: Card) -> str:
    return text(card.language, f"verdict.{card.verdict}", n=card.minutes)


def counts_line(digest: Digest) -> str:
    return text(
        digest.language,
        "digest.counts",
        merged=digest.total_merged,
        read=digest.count("read"),
        skim=digest.count("skim"),
        skip=digest.count("skip"),
    )


def quiet_line(digest: Digest) -> str:
    """A digest with no card: nothing merged, or nothing that matched the filters."""
    if digest.total_merged == 0:
        return text(digest.language, "digest.nothing")
    return text(digest.language, "digest.filtered", n=digest.total_merged)


def coverage_line(coverage: Coverage, language: Language) -> str:
    if not coverage.files_known:
        return text(language, "coverage.unknown")
    if coverage.files_total == 1:  # "read 1 of 1 files" reads wrong in English
        parts = [text(language, "coverage.read_single" if coverage.files_read else "coverage.read_none_single")]
    else:
        parts = [text(language, "coverage.read", read=coverage.files_read, total=coverage.files_total)]
    if coverage.partial:
        parts.append(text(language, "coverage.partly", n=len(coverage.partial)))
    if coverage.skipped:
        reasons = Counter(skipped.reason for skipped in coverage.skipped)
        detail = text(language, "coverage.detail_sep").join(
            text(language, "coverage.reason_count", count=count, reason=reason_text(reason, language))
            for reason, count in reasons.most_common()
        )
        parts.append(text(language, "coverage.skipped", n=len(coverage.skipped), detail=detail))
    if coverage.files_unlisted:
        parts.append(text(language, "coverage.unlisted", n=coverage.files_unlisted))
    return text(language, "coverage.sep").join(parts)


def window_text(window: Window) -> str:
    start, end = window.start, window.end
    if end - start == timedelta(days=1) and start.timetz().replace(tzinfo=None).isoformat() == "00:00:00":
        zone = start.tzname() or "UTC"
        return f"{start.date().isoformat()} ({zone})"
    fmt = "%Y-%m-%d %H:%M"
    return f"{start.astimezone(UTC).strftime(fmt)} – {end.astimezone(UTC).strftime(fmt)} UTC"
