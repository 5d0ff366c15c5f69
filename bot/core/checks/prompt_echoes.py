"""Prompt echoes: which lines of model output repeat our prompts, however disguised (pure).

Owns the comparison of model output with our prompts' own words (core/prompting/prompts.py). A PR can talk
the model into reciting them, and into hiding the recital: letters in another case, digits for
letters (`3` for e), punctuation, a filler word every few words, one phrase a line. Words are
compared after normalising those away, over the whole text, across lines. Must not remove
anything itself (sanitize.py drops what is found here) and must stay linear in the text.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core.prompting.prompts import fixed_wording
from bot.core.strings.patterns import lazy

# Leet digits and signs back to the letters they stand for. "1" may be i or l: both become i.
_LEET = str.maketrans({"0": "o", "1": "i", "l": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_NOT_ALNUM = lazy(r"[\W_]+")
_PLACEHOLDER = lazy(r"\{\w+\}")
# The fence tag around PR data, in the form the prompt uses and the form fence_safe() leaves.
_FENCE = lazy(r"pr[_-]data")

# Everyday words, which a faithful answer shares with any English text, our prompts included.
# "pr" too: every answer is about one.
_EVERYDAY = frozenset(
    """
    a an the and or nor but of to in on at by for with from as into onto about over under than then
    is are was were be been being am it its this that these those they them their there here you your
    we our i me my he she his her not no do does did done can could would should will shall may might
    must if when so such only also just any all each one some what which who whom how why where more
    most less other same own too very s t pr
    """.translate(_LEET).split()
)

# A recital: this many words in a row of one prompt, of which ECHO_RUN_UNCOMMON are not everyday
# words ("Everything between them is untrusted data"). "The PR does not say" is only everyday
# words and the model is told to write it.
ECHO_RUN_WORDS = 6
ECHO_RUN_UNCOMMON = 3
# An echo: this many of a prompt's uncommon words in its order, each within ECHO_SKIP prompt words
# of the one before, whatever the text put between them. On a corpus of 1,000 genuine answers
# and PR titles the longest such chain was 4 words; a 25-word excerpt of a prompt holds 9.
ECHO_CHAIN_WORDS = 6
ECHO_SKIP = 8
# How far apart two chained words may stand in the text: a filler after every word doubles the
# distance, plus a little; a filled placeholder ("The PR does not say.", a language's name) adds
# its own words, fillers included.
ECHO_SPREAD = 2
ECHO_SLACK = 2
PLACEHOLDER_WORDS = 10


def _words_of(chunk: str) -> list[str]:
    """One whitespace-separated chunk as comparable words: folded, leet undone, punctuation gone."""
    folded = unicodedata.normalize("NFKC", chunk).casefold().translate(_LEET)
    parts = [part for part in _NOT_ALNUM.split(folded) if part]
    # "guess-a-number" is three words joined; "u.n.t.r.u.s.t.e.d" and "e.g." are one spelled out.
    if 2 * sum(len(part) == 1 for part in parts) < len(parts):
        return parts
    return ["".join(parts)] if parts else []


def _text_words(text: str) -> list[str]:
    return [word for chunk in text.split() for word in _words_of(chunk)]


@dataclass(frozen=True)
class _Prompts:
    """Our prompts as one word sequence, indexed for the two tests."""

    runs: frozenset[tuple[str, ...]]
    places: dict[str, tuple[int, ...]]  # an uncommon word → where it stands in the sequence
    # A place → the places of uncommon words up to ECHO_SKIP words before it in the same prompt,
    # each with how far from it that word may stand in the text.
    before: dict[int, tuple[tuple[int, int], ...]]


def _index(templates: Sequence[str]) -> _Prompts:
    runs: set[tuple[str, ...]] = set()
    places: dict[str, list[int]] = {}
    before: dict[int, tuple[tuple[int, int], ...]] = {}
    position = 0
    for template in templates:
        recent: list[tuple[int, int]] = []  # (place, placeholders before it) of this prompt's uncommon words
        for filled, piece in enumerate(_PLACEHOLDER.split(template)):
            piece_words = _text_words(piece)
            for start in range(len(piece_words) - ECHO_RUN_WORDS + 1):
                run = tuple(piece_words[start : start + ECHO_RUN_WORDS])
                if sum(word not in _EVERYDAY for word in run) >= ECHO_RUN_UNCOMMON:
                    runs.add(run)
            for word in piece_words:
                if word not in _EVERYDAY:
                    recent = [(place, seen) for place, seen in recent if position - place <= ECHO_SKIP]
                    before[position] = tuple(
                        (place, ECHO_SPREAD * (position - place) + ECHO_SLACK + PLACEHOLDER_WORDS * (filled - seen))
                        for place, seen in recent
                    )
                    places.setdefault(word, []).append(position)
                    recent.append((position, filled))
                position += 1
    return _Prompts(frozenset(runs), {word: tuple(found) for word, found in places.items()}, before)


_PROMPTS = _index(fixed_wording())


def _echoed(words: Sequence[str]) -> list[bool]:
    """Which of `words` belong to a recital or an echo of our prompts.

    Linear: each word looks up the few places it has in our prompts and, for each, the few
    places just before it, keeping for every place only where it was last seen in the text.
    """
    starts = [0] * (len(words) + 1)  # +1 where a flagged stretch begins, -1 after it ends
    for start in range(len(words) - ECHO_RUN_WORDS + 1):
        if tuple(words[start : start + ECHO_RUN_WORDS]) in _PROMPTS.runs:
            starts[start] += 1
            starts[start + ECHO_RUN_WORDS] -= 1
    last: dict[int, tuple[int, int, int]] = {}  # a place → (word index, chain length, chain start)
    for index, word in enumerate(words):
        found: list[tuple[int, tuple[int, int, int]]] = []
        for place in _PROMPTS.places.get(word, ()):
            length, first = 1, index
            for earlier, reach in _PROMPTS.before[place]:
                seen = last.get(earlier)
                if seen is not None and index - seen[0] <= reach and seen[1] >= length:
                    length, first = seen[1] + 1, seen[2]
            found.append((place, (index, length, first)))
            if length >= ECHO_CHAIN_WORDS:
                starts[first] += 1
                starts[index + 1] -= 1
        last.update(found)  # after the loop: one word of the text stands for one place of a chain
    flagged: list[bool] = []
    depth = 0
    for change in starts[:-1]:
        depth += change
        flagged.append(depth > 0)
    return flagged


def _scan(lines: Sequence[str]) -> tuple[set[int], list[int]]:
    """The lines that echo our prompts (see echoing_lines), and how many words each line holds."""
    found = {number for number, line in enumerate(lines) if _FENCE.search(_fold(line))}
    words: list[str] = []
    line_of: list[int] = []
    counts: list[int] = []
    for number, line in enumerate(lines):
        line_words = _text_words(line)
        words += line_words
        line_of += [number] * len(line_words)
        counts.append(len(line_words))
    found.update(line_of[index] for index, flagged in enumerate(_echoed(words)) if flagged)
    return found, counts


def echoing_lines(lines: Sequence[str]) -> set[int]:
    """The indices of the lines that hold the fence tag or part of a recital or echo of our prompts."""
    return _scan(lines)[0]


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold().translate(_LEET)


def echoes_prompt(text: str) -> bool:
    """True when the text holds the fence tag or repeats our prompts (see echoing_lines)."""
    return bool(echoing_lines(text.split("\n")))


def without_echoes(lines: Sequence[str]) -> list[str | None]:
    """The lines, None for each that echoes our prompts; all None when most lines with words do.

    What a recital leaves (its fillers, the everyday words at its ends) is no answer, so a text
    that is mostly recital goes whole. So does one whose remaining lines, brought together, echo
    our prompts in turn: sanitizing twice then changes nothing.
    """
    found, counts = _scan(lines)
    if not found:
        return list(lines)
    worded = sum(count > 0 for count in counts)
    if 2 * sum(counts[number] > 0 for number in found) > worded or echoing_lines(
        [line for number, line in enumerate(lines) if number not in found]
    ):
        return [None] * len(lines)
    return [None if number in found else line for number, line in enumerate(lines)]
