"""What a question sends the model (pure): the material (a PR's card and context, or a digest's
list of PRs), the thread's earlier turns, and the question, as messages.

How much material fits is the answerer's to decide (questions/answerer.py); this module only
words and trims.
"""

from __future__ import annotations

from bot.core.prompting.prompts import answer_prompt
from bot.core.strings.text import clean_line
from bot.models import Card, DigestItem, Message, Question

# Earlier turns sent with a question: enough for "and its tests?", not a whole transcript.
HISTORY_TURNS = 6
HISTORY_TURN_CHARS = 1200
# A digest's PRs by their main files, for "which PR touched the scheduler?"; long paths are cut.
DIGEST_PATHS_PER_PR = 8
DIGEST_FILES_CHARS = 2000


def card_text(card: Card) -> str:
    """The card as material: the model answers in line with what the reader was already told."""
    lines = [f"Card headline: {card.headline}", f"Card verdict: {card.verdict}"]
    lines += [f"Card point: {point}" for point in (*card.why, *card.caveats, *card.watch)]
    return "\n".join(lines)


def digest_text(items: tuple[DigestItem, ...], paths: dict[str, tuple[str, ...]]) -> str:
    """A digest as material: per PR its ref, verdict, title, headline and the files it touched."""
    blocks = []
    for item in items:
        listing = item.listing
        ref = f"{listing.repo}#{listing.number}"
        files = ", ".join(paths.get(ref, ())[:DIGEST_PATHS_PER_PR]) or "(files not read)"
        blocks.append(
            f"{ref} [{item.card.verdict}] {clean_line(listing.title)}\n"
            f"  headline: {clean_line(item.card.headline)}\n  files: {clean_line(files, DIGEST_FILES_CHARS)}"
        )
    return "\n".join(blocks)


def answer_messages(data: str, question: Question) -> list[Message]:
    """Instructions and material, the last HISTORY_TURNS turns, then the question, each turn trimmed."""
    messages = answer_prompt(data, question.language).messages()
    for turn in question.history[-HISTORY_TURNS:]:
        messages.append(Message("user" if turn.role == "user" else "assistant", turn.text[:HISTORY_TURN_CHARS]))
    messages.append(Message("user", question.text[:HISTORY_TURN_CHARS]))
    return messages
