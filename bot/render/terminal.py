"""Digests, cards and answers as text for a terminal: verdict, headline, link, points, coverage (pure).

Colour only when asked (the CLI asks when stdout is a terminal and NO_COLOR is unset).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.strings.text import clean_line
from bot.models import Asked, Card, Digest, DigestItem, Language, NoAnswer, PRListing
from bot.render.labels import counts_line, coverage_line, quiet_line, verdict_label, window_text
from bot.render.mrkdwn import cited_paths, diff_url
from bot.words import said, text

_COLOURS = {"read": "\033[1;32m", "skim": "\033[1;33m", "skip": "\033[2m", "dim": "\033[2m", "bold": "\033[1m"}
_RESET = "\033[0m"


class _Paint:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, style: str) -> str:
        return f"{_COLOURS[style]}{text}{_RESET}" if self.colour else text


def render_card(listing: PRListing, card: Card, *, colour: bool = False, source_note: bool = True) -> str:
    """The card in full; `source_note` False in a digest, whose lead says once how many cards
    come from metadata."""
    paint = _Paint(colour)
    language = card.language
    by = text(language, "card.by", author=listing.author)
    lines = [
        f"{paint(verdict_label(card), card.verdict)}  {paint(card.headline, 'bold')}",
        paint(f"  {listing.repo}#{listing.number} · {listing.url} · {by}", "dim"),
    ]
    if card.source == "llm":
        # A heuristic headline is the title itself; a model's is a rewrite, so show both.
        lines.append(f"  {listing.title}")
    for name, points in (("why", card.why), ("caveats", card.caveats), ("watch", card.watch)):
        if points:
            lines.append(f"  {text(language, f'card.{name}')}:")
            lines.extend(f"    - {point}" for point in points)
    coverage = coverage_line(card.coverage, language)
    source = "" if card.source == "llm" or not source_note else f" · {text(language, 'card.heuristic')}"
    lines.append(paint(f"  {text(language, 'card.coverage', coverage=coverage)}{source}", "dim"))
    return "\n".join(lines)


def render_item(item: DigestItem, *, colour: bool = False, source_note: bool = True) -> str:
    return render_card(item.listing, item.card, colour=colour, source_note=source_note)


def render_digest(digest: Digest, *, colour: bool = False) -> str:
    """The lead, every card worth reading or skimming in full, then the skips one line each under
    their own heading (`--format json` keeps every field of every card)."""
    paint = _Paint(colour)
    header = f"{', '.join(digest.repos)} · {window_text(digest.window)}"
    lines = [paint(header, "bold")]
    lines.append(counts_line(digest) if digest.items else quiet_line(digest))
    metadata = metadata_line(digest.items, digest.language)
    if metadata:
        lines.append(paint(metadata, "dim"))
    lines.extend(paint(f"! {said(digest.language, note)}", "skim") for note in digest.notes)
    skips = [item for item in digest.items if item.card.verdict == "skip"]
    for item in digest.items:
        if item.card.verdict != "skip":
            lines.append("")
            lines.append(render_item(item, colour=colour, source_note=False))
    if skips:
        lines.append("")
        lines.append(paint(text(digest.language, "digest.skip_heading", count=len(skips)), "bold"))
        lines.extend(skip_line(item, paint) for item in skips)
    return "\n".join(lines) + "\n"


def skip_line(item: DigestItem, paint: _Paint) -> str:
    listing = item.listing
    return f"  - {item.card.headline} {paint(f'· {listing.repo}#{listing.number}', 'dim')}"


def metadata_line(items: Sequence[DigestItem], language: Language) -> str:
    """How many cards come from metadata, said once for the digest: "" when none does."""
    count = sum(1 for item in items if item.card.source != "llm")
    if count == 0:
        return ""
    if count == len(items):
        return text(language, "digest.metadata_single" if count == 1 else "digest.metadata_all", count=count)
    return text(language, "digest.metadata_some", count=count, total=len(items))


# The reason inside the ask.no_answer line, by why the model gave none ("no_model": a line of its own).
_NO_ANSWER_REASONS: dict[NoAnswer, str] = {
    "model_timeout": "ask.model_timeout",
    "model_unavailable": "ask.model_unavailable",
    "model_refused": "ask.model_refused",
    "model_failed": "ask.model_failed",
    "answer_unusable": "ask.answer_unusable",
    "answer_not_prose": "ask.answer_not_prose",
}


def no_answer_line(reason: NoAnswer, language: Language, *, host: str, seconds: float) -> str:
    """Why `prdigest ask` shows the card instead of an answer, in one line."""
    if reason in ("no_model", "budget_spent"):
        return text(language, f"ask.{reason}")
    why = text(language, _NO_ANSWER_REASONS[reason], seconds=f"{seconds:g}")
    return text(language, "ask.no_answer", host=host, reason=why)


def render_answer(asked: Asked, *, colour: bool = False) -> str:
    """The answer under the PR it is about, then the PR's files it cites with their diffs' links;
    the card when there is no answer (the CLI says why on stderr)."""
    listing = asked.about
    if asked.no_answer is not None:
        return render_card(listing, asked.card, colour=colour)
    paint = _Paint(colour)
    title = clean_line(listing.title)
    lines = [
        paint(" · ".join(part for part in (f"{listing.repo}#{listing.number}", title) if part), "bold"),
        paint(listing.url, "dim"),
        "",
        asked.answer,
    ]
    cited = cited_paths(asked.answer, asked.paths)
    if cited:
        lines += ["", text(asked.card.language, "ask.files_cited")]
        lines += [f"  - {path}  {paint(diff_url(listing.url, path), 'dim')}" for path in cited]
    return "\n".join(lines)
