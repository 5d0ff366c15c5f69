"""SentenceReleaser: a model's answer, arriving in pieces, let out one whole sentence at a time,
each checked before anyone sees it.

Owns where a sentence ends and the rule that nothing unchecked leaves: a piece is held until its
sentence is whole, then the sentence goes through `check` (sanitizing, grounding: the caller's)
and is released as `check` returns it, or not at all. What is still held when the answer ends is
checked the same way (`finish`). Pure: no I/O, no clock; the caller sends what is released.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bot.core.checks.faithfulness import SourceText, check_field
from bot.core.checks.sanitize import sanitize_sentence
from bot.core.strings.patterns import lazy

# A sentence ends at ".", "!", "?" (or the CJK ones, or "…") followed by white space, or at a line
# break. The white space must have arrived: "1." may go on as "1.5x", "e.g" as "e.g.", a link's
# path as "x.py". CJK full stops need none (Chinese puts no space after them).
_END = lazy(r"(?:[.!?…][\"')\]*_~`]*[ \t]+|[。！？][\"')\]」』]*|\n+)")

# How far a sentence may run without an end before it is checked anyway: a model that writes one
# endless line (a list without full stops) is still shown, piece by piece.
MAX_HELD_CHARS = 600
_SPACE = lazy(r"\s")
# Where a long run without white space may still be cut: after a clause mark (Chinese writes
# whole paragraphs with only "，" between sentences' parts) or any CJK character.
_CLAUSE = lazy(r"[，、；：,;:\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")

Check = Callable[[str], "str | None"]


@dataclass
class SentenceReleaser:
    """`check(sentence)` returns the sentence as it may be shown (cleaned) or None to withhold it.

    `limit` caps what is released in all, as the answer's own cap does (core/sanitize.ANSWER_MAX_CHARS).
    """

    check: Check
    limit: int
    # Whether everything released, with one more sentence, still reads as an answer (the caller's:
    # no recital of our prompts spread over sentences, core/checks/prompt_echoes.py). When it does not, that
    # sentence and all after it are withheld, and `poisoned` tells the caller.
    whole: Callable[[str], bool] = lambda text: True
    poisoned: bool = False
    _held: str = ""
    _dropping: bool = False  # the rest of an overlong token is dropped up to its white space
    _released: list[str] = field(default_factory=list)
    _size: int = 0

    @property
    def text(self) -> str:
        """Everything released so far, as sent."""
        return "".join(self._released)

    def feed(self, piece: str) -> list[str]:
        """Take a piece of the answer; return the checked sentences it completed (maybe none)."""
        self._held += piece
        if self._dropping:
            rest = _SPACE.search(self._held)
            self._held = self._held[rest.start() :] if rest else ""
            self._dropping = rest is None
        out: list[str] = []
        while True:
            cut = self._sentence_end()
            if cut is None:
                break
            sentence, self._held = self._held[:cut], self._held[cut:]
            out.extend(self._release(sentence))
        if len(self._held) > MAX_HELD_CHARS:
            # One token longer than any word, with nowhere safe to cut it (a split one could
            # join the next part into a mention): no answer's text. Dropped, so what is held,
            # and searched at every piece, stays short; so is the rest of it, as it comes.
            self._held = ""
            self._dropping = True
        return out

    def finish(self) -> list[str]:
        """The answer ended: the held remainder, checked like any sentence."""
        rest, self._held = self._held, ""
        return self._release(rest) if rest.strip() else []

    def _sentence_end(self) -> int | None:
        match = _END.search(self._held)
        if match is not None:
            return match.end()
        if len(self._held) > MAX_HELD_CHARS:
            # No end in sight: cut at the last white space, so no word, mention or link is split;
            # else after the last clause mark or CJK character.
            head = self._held[:MAX_HELD_CHARS]
            cuts = [m.end() for m in _SPACE.finditer(head)] or [m.end() for m in _CLAUSE.finditer(head)]
            return cuts[-1] if cuts else None
        return None

    def _release(self, sentence: str) -> list[str]:
        if self._size >= self.limit or self.poisoned:
            return []
        body = sentence.rstrip()
        gap = sentence[len(body) :]
        if not body.strip():
            return self._keep(gap) if self._released else []
        checked = self.check(body)
        if not checked:
            return []
        if not self.whole(self.text + checked):
            self.poisoned = True
            return []
        return self._keep(checked + gap)

    def _keep(self, text: str) -> list[str]:
        room = self.limit - self._size
        if len(text) > room:
            text = text[:room]
            cut = text.rfind(" ")
            text = text[:cut] if cut > 0 else ""  # never half a word (nor half a link)
            if not text:
                self._size = self.limit
                return []
        self._size += len(text)
        self._released.append(text)
        return [text]


# The claims an answer's sentence must not invent: its numbers. Names, paths and references are
# the question's words as often as the PR's, and sanitizing already keeps links to the PR's repository.
FIGURE_KINDS = frozenset({"figure", "count", "range"})
# A link's address as the sanitizer leaves it ("the diff (https://github.com/…)", or a Slack
# `<address|label>`): what is said is the label.
# Only a link's: "<40%>" is no address, and its figure is a claim like any other.
_LINK = lazy(r"<(?:https?://|mailto:)[^<>|\s]+(?:\|([^<>]*))?>|https?://[^\s()<>]+")


def checked_sentence(sentence: str, source: SourceText, repo_urls: Sequence[str]) -> str | None:
    """One sentence of a model's answer as it may be shown: sanitized as a whole answer is (no
    mention, no link outside `repo_urls`, no template token), or None when nothing is left of it
    or it states a figure the PR's text (`source`) does not (faithfulness.py)."""
    cleaned = sanitize_sentence(sentence, *(repo_urls or ("",)))
    if cleaned is None:
        return None
    # A kept link's address is the repository's (sanitizing saw to it); its numbers are not claims.
    said = _LINK.sub(lambda match: match.group(1) or "", cleaned)
    if any(claim.kind in FIGURE_KINDS for claim in check_field(said, source).unsupported):
        return None
    return cleaned
