"""What must never reach a reader, as checks that return every violation they find (not just the first).

Written independently of bot/core/checks/sanitize.py: a URL, a mention or a piece of prompt is recognised
here by its own rules, so a blind spot of the sanitizer is not repeated by its test.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from bot.core.prompting.prompts import CAVEATS_MAX, HEADLINE_MAX, WATCH_MAX, WHY_MAX
from bot.models import Card
from bot.render.slack.blocks import strings

REPO_URL = "https://github.com/vllm-project/vllm"
# Cards are clipped to these when drafts become cards (POINT_MAX, MINUTES_MAX in core/prompting/drafts.py).
POINT_MAX = 280
MINUTES_RANGE = range(1, 241)
VERDICTS = ("skip", "skim", "read")

_ALLOWED = re.compile(re.escape(REPO_URL) + r"(?:[/?#]\S*)?", re.IGNORECASE)
_URL = re.compile(
    r"(?:[a-z][a-z0-9+.\-]*://|\b(?:data|javascript|vbscript|mailto|file|blob):(?=\S)|www\.(?=\w)"
    r"|(?<![\w/:])//(?=[\w-]+\.\w))[^\s<>|\"'`()\[\]{}]*",
    re.IGNORECASE,
)
_SLACK_LINK = re.compile(r"<([^<>|]*)(?:\|[^<>]*)?>")
_MASS_MENTION = re.compile(r"@(?:here|channel|everyone)(?!\w)")
# In a posted message: the ASCII words and the at-signs people paste from full-width keyboards.
_MENTION_WORD = re.compile(r"[@＠﹫](?:here|channel|everyone)(?!\w)", re.IGNORECASE)
_FENCE = re.compile(r"pr[_-]data", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.:;!?])\s+|\n")
# A sentence shorter than this is ordinary English ("No links.") rather than a recital.
MIN_SENTENCE_WORDS = 5


def prompt_sentences(system_prompts: Iterable[str]) -> set[str]:
    """The sentences of the system prompts the model was given, lower-cased, long enough to be telling."""
    sentences = set()
    for prompt in system_prompts:
        for sentence in _SENTENCE_END.split(prompt):
            words = sentence.strip(" -").split()
            if len(words) >= MIN_SENTENCE_WORDS:
                sentences.add(" ".join(words).lower())
    return sentences


def _allowed(url: str) -> bool:
    url = url.rstrip(".,;:!?*_~")
    escapes = "://" in url.partition("://")[2] or "\\" in url or "/../" in f"{url}/"
    return bool(_ALLOWED.fullmatch(url)) and not escapes


def text_problems(text: str, sentences: set[str]) -> list[str]:
    """Problems of text as we hold it (a card field, an answer), before Slack escaping."""
    found = [f"mention token {token!r}" for token in ("<!", "<@", "<#") if token in text]
    folded = unicodedata.normalize("NFKC", text).casefold()
    found += [f"mass mention {word!r}" for word in _MASS_MENTION.findall(folded)]
    found += [f"foreign URL {match[0]!r}" for match in _URL.finditer(text) if not _allowed(match[0])]
    if _FENCE.search(text):
        found.append("fence tag")
    flat = " ".join(text.split()).lower()
    found += [f"prompt sentence {sentence!r}" for sentence in sentences if sentence in flat]
    return found


def card_problems(card: Card, sentences: set[str]) -> list[str]:
    found = []
    if card.verdict not in VERDICTS:
        found.append(f"verdict {card.verdict!r}")
    if card.minutes not in MINUTES_RANGE:
        found.append(f"minutes {card.minutes}")
    if not card.headline or len(card.headline) > HEADLINE_MAX["en"]:
        found.append(f"headline of {len(card.headline)} characters")
    groups = (("why", card.why, WHY_MAX), ("caveats", card.caveats, CAVEATS_MAX), ("watch", card.watch, WATCH_MAX))
    for name, points, most in groups:
        if len(points) > most:
            found.append(f"{len(points)} {name} points")
        found += [f"{name} point of {len(point)} characters" for point in points if not point or len(point) > POINT_MAX]
    for field in (card.headline, *card.why, *card.caveats, *card.watch):
        found += text_problems(field, sentences)
    return found


def message_problems(message: dict[str, Any], sentences: set[str], secrets: Iterable[str]) -> list[str]:
    """Problems of a message as Slack received it (mrkdwn: our links are `<url|label>`, the rest escaped)."""
    found = []
    for text in strings([message.get("text"), message.get("blocks")]):
        found += [f"mention token {token!r}" for token in ("<!", "<@", "<#") if token in text]
        found += [f"mention word {match[0]!r}" for match in _MENTION_WORD.finditer(text)]
        found += [f"link to {match[1]!r}" for match in _SLACK_LINK.finditer(text) if not _allowed(match[1])]
        plain = html.unescape(_SLACK_LINK.sub(" ", text))
        found += [f"bare URL {match[0]!r}" for match in _URL.finditer(plain) if not _allowed(match[0])]
        if _FENCE.search(plain):
            found.append("fence tag")
        flat = " ".join(plain.split()).lower()
        found += [f"prompt sentence {sentence!r}" for sentence in sentences if sentence in flat]
        found += ["a secret" for secret in secrets if secret in text]
    return found
