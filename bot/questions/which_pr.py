"""Which PR a question is about (pure): named outright, matched among a digest's PRs, the one
the thread was already discussing, or the digest as a whole.

Order of evidence: an explicit reference beats a match, a clear match beats the thread's
previous PR, and a question about "these"/"which" PRs is about the whole digest.

Everything here reads text anyone in Slack can send, and Python's `re` holds the GIL while it
backtracks: every pattern runs in time linear in the text (possessive quantifiers, a guard that
starts a match only where a run begins, or plain scanning), so no message can stall the process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from bot.core.refs import pr_number
from bot.core.strings.patterns import lazy
from bot.models import DigestItem, PRRef, Turn

# ASCII: GitHub names are ASCII, so in "看看vllm-project/vllm#12" the repository starts after
# the Chinese, and "#12" right after a Chinese word (or before 号) is still a reference.
# Linear: each class stops at a character it excludes (possessive: no giving back), and an
# owner/repo is only tried where a run of name characters begins, not at each of its letters
# (tried at every one, "x" * 40000 cost 40,000 scans to the end: 9 s with the GIL held).
_URL_REF = r"https?://[^/\s<>|]++/(?P<url_repo>[\w.-]++/[\w.-]++)/pull/(?P<url_n>\d++)"
_NAME_REF = r"(?P<repo>[\w.-]++/[\w.-]++)#(?P<n>\d++)"
_SHORT_REF = r"(?<![\w/#])#(?P<short>\d++)\b"
_REF = lazy(rf"{_URL_REF}|(?<![\w.-]){_NAME_REF}|{_SHORT_REF}", re.ASCII)
# Right where the last reference ended a name may begin inside a run ("#3a/b#4" is #3, then a/b#4).
_REF_RIGHT_HERE = lazy(rf"{_URL_REF}|{_NAME_REF}|{_SHORT_REF}", re.ASCII)
# A Slack mention, `<@U123>` or `<@U123|name>`. The label stops at the next `<` too (Slack
# writes a typed `<` as `&lt;`), so that "<@U|" * 10000 is one scan, not one per mention.
_MENTION = lazy(r"<@[A-Z0-9]++(?:\|[^<>]*+)?>")
_WORD = lazy(r"[a-z0-9][a-z0-9_.+-]*[a-z0-9]|[\u4e00-\u9fff]{2,}", re.IGNORECASE)
_DIGEST_WIDE = lazy(
    r"\b(which|any|these|those|all|today|digest|others?)\b|哪些|哪个|这些|所有|今天",
    re.IGNORECASE,
)
# Words that say nothing about which PR is meant.
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "what",
        "why",
        "how",
        "does",
        "did",
        "this",
        "that",
        "these",
        "those",
        "from",
        "into",
        "about",
        "change",
        "changes",
        "changed",
        "pr",
        "prs",
        "pull",
        "request",
        "requests",
        "it",
        "its",
        "is",
        "are",
        "was",
        "were",
        "be",
        "can",
        "could",
        "would",
        "should",
        "do",
        "any",
        "which",
        "all",
        "today",
        "digest",
        "there",
        "here",
        "they",
        "them",
        "you",
        "your",
        "our",
        "not",
        "but",
        "has",
        "have",
        "had",
        "new",
        "add",
        "adds",
        "added",
        "fix",
        "fixes",
        "fixed",
        "use",
        "uses",
        "used",
        "more",
        "less",
        "also",
        "just",
        "only",
        "tell",
        "explain",
        "me",
    ]
)
# A match must share this many distinctive words with a PR, and beat the runner-up by this.
MIN_SCORE = 2
CLEAR_LEAD = 2
MAX_CHOICES = 5

Kind = Literal["pr", "choose", "digest"]

# "Why is #123 here?", "why isn't #456 in the digest?", "为什么 #123 没有出现？": "why", then on the
# same line what it asks about. Not one `why.*(here|…)` pattern: that scans to the line's end
# from every "why" ("why " * 10000 held the GIL for 22 s); the first "why" of a line decides.
_WHY_WORD = {
    "en": lazy(r"\bwhy\b", re.IGNORECASE),
    "zh": lazy(r"为什么"),
}
_WHY_ABOUT = {
    "en": lazy(
        r"\b(here|there|included|in (the|this|today'?s) digest|shown|listed|left out|missing|excluded|not in)\b",
        re.IGNORECASE,
    ),
    "zh": lazy(r"在这里|出现|没有|不在|被排除|列出"),
}
_WHY_THIS_PR = lazy(r"\bwhy (this|that) pr\b", re.IGNORECASE)


def strip_mentions(text: str) -> str:
    """The message without Slack mentions (the bot's own and anyone else's)."""
    return _MENTION.sub("", text).strip()


def is_why(question: str) -> bool:
    """A question about why a PR is (or is not) in the digest, not about what it does."""
    if _WHY_THIS_PR.search(question):
        return True
    for line in question.split("\n"):
        for language, word in _WHY_WORD.items():
            why = word.search(line)
            # A later "why" on the line can only see less of it than the first one does.
            if why and _WHY_ABOUT[language].search(line, why.end()):
                return True
    return False


@dataclass(frozen=True)
class Resolution:
    kind: Kind
    refs: tuple[PRRef, ...] = ()


def find_refs(text: str, default_repo: str | None) -> list[PRRef]:
    """Every PR the text names, in order, without repeats. `#N` needs a default repo."""
    found: dict[PRRef, None] = {}  # ordered, and a repeat is found in constant time ("#1 #2 … #9999")
    position = 0
    while match := _REF_RIGHT_HERE.match(text, position) or _REF.search(text, position):
        position = match.end()
        repo = match.group("url_repo") or match.group("repo") or default_repo
        number = pr_number(match.group("url_n") or match.group("n") or match.group("short"))
        if repo is None or number is None:
            continue  # "#0", a 5,000-digit number, or "#N" with no repository to pin it to
        found.setdefault(PRRef(repo, number))
    return list(found)


def words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text) if word.lower() not in _STOP}


def _item_words(item: DigestItem) -> set[str]:
    text = f"{item.listing.title} {item.card.headline}"
    return words(text)


def _score(question: set[str], item: DigestItem, paths: tuple[str, ...]) -> int:
    score = len(question & _item_words(item))
    path_words = {part.lower() for path in paths for part in re.split(r"[/._-]", path) if len(part) > 2}
    return score + len(question & path_words)


def resolve(
    question: str,
    items: tuple[DigestItem, ...],
    history: list[Turn],
    paths: dict[PRRef, tuple[str, ...]],
    default_repo: str | None,
) -> Resolution:
    """Decide what a question in a digest thread is about."""
    named = find_refs(question, default_repo)
    if named:
        return Resolution("pr", tuple(named[:1])) if len(named) == 1 else Resolution("choose", tuple(named))
    asked = words(question)
    scored = sorted(
        ((_score(asked, item, paths.get(item.listing.ref, ())), item.listing.ref) for item in items),
        key=lambda pair: -pair[0],
    )
    best = scored[0][0] if scored else 0
    previous = previous_pr(history)
    if best >= MIN_SCORE:
        leaders = [ref for score, ref in scored if score > best - CLEAR_LEAD]
        if len(leaders) == 1:
            return Resolution("pr", (leaders[0],))
        if previous in leaders:
            return Resolution("pr", (previous,))
        if not _DIGEST_WIDE.search(question):
            return Resolution("choose", tuple(leaders[:MAX_CHOICES]))
    if _DIGEST_WIDE.search(question) or previous is None:
        return Resolution("digest")
    return Resolution("pr", (previous,))


def previous_pr(history: list[Turn]) -> PRRef | None:
    for turn in reversed(history):
        if turn.pr:
            repo, _, number = turn.pr.rpartition("#")
            return PRRef(repo, int(number))
    return None
