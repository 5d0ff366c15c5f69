"""A card's headline read off a PR's title: its scope tags, then its words, cut to the card's length.

Pure, and without words of ours: the title as the PR writes it. The heuristic card
(cards/heuristic/cards.py) adds the description's key figure in the reader's language; a model's
card falls back on it when its own headline says nothing (core/prompting/drafts.py).
"""

from __future__ import annotations

from bot.core.heuristic.figures import ResultFigure, text_figures
from bot.core.heuristic.shape import LEADING_TAGS, TAG
from bot.core.strings.patterns import lazy
from bot.core.strings.text import clean_line, count_cjk

# The card's headline limits (DESIGN.md, the card): CJK characters carry about twice the meaning.
MAX_HEADLINE_CHARS = 120
MAX_HEADLINE_CJK_CHARS = 60
# Leading tags that say what kind of PR it is, which the verdict and the points already say; every
# other tag says where it applies ("[ROCm]", "[Kimi-K3]", "[CI]") and stays in the headline, or
# "[ROCm]: Bump torch 2.12" reads like a bump of every build.
KIND_TAGS = frozenset(
    {"bugfix", "bug", "fix", "hotfix", "misc", "minor", "chore", "feature", "feat", "nit", "wip", "easy", "trivial"}
)
# Capitalise "fix the…" but not an identifier that opens a title ("llmd+vllm…", "kimi_k3: …").
_PLAIN_FIRST_WORD = lazy(r"[a-z][a-z'-]*[:,]?(?:\s|$)")


def headline(title: str) -> str:
    """The title's scope tags, then its words, first letter capitalised, cut to the card's length."""
    scope = scope_tags(title)
    rest = title_text(title)
    if not scope or not rest or scope == rest:
        return cut(rest, headline_limit(rest))
    return f"{scope} {cut(rest, headline_limit(rest) - len(scope) - 1)}"


def scope_tags(title: str) -> str:
    """The title's leading tags that say where the PR applies, as written: "[ROCm][MLA]"."""
    line = clean_line(title, len(title))
    match = LEADING_TAGS.match(line)
    if not match or not line[match.end() :].strip():  # "[CI]" alone: the tag is the headline
        return ""
    kept = [tag.strip() for tag in TAG.findall(match.group()) if tag.strip() and tag.strip().lower() not in KIND_TAGS]
    return "".join(f"[{tag}]" for tag in kept)


def title_text(title: str) -> str:
    """The title's words without its leading tags, first letter capitalised."""
    text = clean_line(title, len(title))
    rest = LEADING_TAGS.sub("", text, count=1).strip()
    if not rest:  # "[CI]" alone: the tag is all the title says
        rest = ", ".join(tag for tag in (t.strip() for t in TAG.findall(text)) if tag)
    if _PLAIN_FIRST_WORD.match(rest):
        rest = rest[0].upper() + rest[1:]
    return rest


def title_figures(title: str) -> list[ResultFigure]:
    """The results the title states ("2x faster decode"): a headline that has one needs no other."""
    return text_figures(title_text(title))


def headline_limit(text: str) -> int:
    return MAX_HEADLINE_CJK_CHARS if _mostly_cjk(text) else MAX_HEADLINE_CHARS


def cut(text: str, limit: int) -> str:
    """At most `limit` characters, cut between words with "…", never through a figure like 16.98."""
    if len(text) <= limit:
        return text
    end = limit - 1
    at = end
    while at > 0 and _joined(text[at - 1], text[at]):
        at -= 1
    if at < end // 2:  # one giant token: a hard cut beats an empty headline
        at = end
    return text[:at].rstrip(" ,;:-–—/(") + "…"


def _mostly_cjk(text: str) -> bool:
    visible = len(text) - text.count(" ")
    return visible > 0 and 2 * count_cjk(text) >= visible


def _joined(left: str, right: str) -> bool:
    """True when a cut between the two characters would split a word or a number."""
    return not (left.isspace() or right.isspace() or _is_cjk(left) or _is_cjk(right))


def _is_cjk(char: str) -> bool:
    return count_cjk(char) == 1
