"""Digests, cards and answers as JSON-ready dicts: the `--format json` contract of DESIGN.md §4 (pure).

Keys named there may not change; extra keys are allowed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bot.models import Asked, Card, Digest, DigestItem, PRListing
from bot.render.mrkdwn import cited_paths, diff_url
from bot.words import said


def _iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def card_data(card: Card) -> dict[str, Any]:
    coverage = card.coverage
    return {
        "headline": card.headline,
        "verdict": card.verdict,
        "minutes": card.minutes,
        "why": list(card.why),
        "caveats": list(card.caveats),
        "watch": list(card.watch),
        "source": card.source,
        "language": card.language,
        "coverage": {
            "files_total": coverage.files_total,
            "files_read": coverage.files_read,
            "skipped": [{"path": skipped.path, "reason": skipped.reason} for skipped in coverage.skipped],
            "partial": list(coverage.partial),
            "files_known": coverage.files_known,
            "files_unlisted": coverage.files_unlisted,
        },
        "faithfulness": {"checked": card.checked, "dropped": card.dropped, "regenerated": card.regenerated},
    }


def item_data(listing: PRListing, card: Card) -> dict[str, Any]:
    return {
        "repo": listing.repo,
        "number": listing.number,
        "url": listing.url,
        "title": listing.title,
        "author": listing.author,
        "merged_at": _iso(listing.merged_at),
        "labels": list(listing.labels),
        "card": card_data(card),
    }


def digest_data(digest: Digest) -> dict[str, Any]:
    def item(entry: DigestItem) -> dict[str, Any]:
        return item_data(entry.listing, entry.card)

    return {
        "repos": list(digest.repos),
        "window": {"start": _iso(digest.window.start), "end": _iso(digest.window.end)},
        "total_merged": digest.total_merged,
        "shown": digest.shown,
        "counts": {verdict: digest.count(verdict) for verdict in ("read", "skim", "skip")},
        "language": digest.language,
        # Sentences in the digest's language, as the terminal shows them; their kinds for programs.
        "notes": [said(digest.language, note) for note in digest.notes],
        "note_kinds": [note.kind for note in digest.notes],
        "items": [item(entry) for entry in digest.items],
    }


def answer_data(asked: Asked, note: str | None) -> dict[str, Any]:
    """`prdigest ask --format json`. `source` is "llm" for the model's answer, "card" when the
    card stands in (then `answer` is null and `reason` says why, `note` says it in words)."""
    listing = asked.about
    cited = cited_paths(asked.answer, asked.paths)
    return {
        "repo": listing.repo,
        "number": listing.number,
        "url": listing.url,
        "title": listing.title,
        "question": asked.question,
        "language": asked.card.language,
        "source": asked.source,
        "answer": asked.answer or None,
        "cited_files": [{"path": path, "url": diff_url(listing.url, path)} for path in cited],
        "reason": asked.no_answer,
        "note": note,
        "card": card_data(asked.card),
    }
