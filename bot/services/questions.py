"""Which PR a question is about (pure): named outright, matched among a digest's PRs, the one
the thread was already discussing, or the digest as a whole.

Order of evidence: an explicit reference beats a match, a clear match beats the thread's
previous PR, and a question about "these"/"which" PRs is about the whole digest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from bot.models import DigestItem, PRRef, Turn
from bot.services.refs import pr_number

# ASCII: GitHub names are ASCII, so in "看看vllm-project/vllm#12" the repository starts after
# the Chinese, and "#12" right after a Chinese word (or before 号) is still a reference.
_REF = re.compile(
    r"https?://[^/\s<>|]+/(?P<url_repo>[\w.-]+/[\w.-]+)/pull/(?P<url_n>\d+)"
    r"|(?P<repo>[\w.-]+/[\w.-]+)#(?P<n>\d+)"
    r"|(?<![\w/#])#(?P<short>\d+)\b",
    re.ASCII,
)
_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*[a-z0-9]|[\u4e00-\u9fff]{2,}", re.IGNORECASE)
_DIGEST_WIDE = re.compile(
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

# "Why is #123 here?", "why isn't #456 in the digest?", "为什么 #123 没有出现？"
_WHY = re.compile(
    r"\bwhy\b.*\b(here|there|included|in (the|this|today'?s) digest|shown|listed|left out|missing|excluded|not in)\b"
    r"|\bwhy (this|that) pr\b|为什么.*(在这里|出现|没有|不在|被排除|列出)",
    re.IGNORECASE,
)


def is_why(question: str) -> bool:
    """A question about why a PR is (or is not) in the digest, not about what it does."""
    return bool(_WHY.search(question))


@dataclass(frozen=True)
class Resolution:
    kind: Kind
    refs: tuple[PRRef, ...] = ()


def find_refs(text: str, default_repo: str | None) -> list[PRRef]:
    """Every PR the text names, in order, without repeats. `#N` needs a default repo."""
    found: list[PRRef] = []
    for match in _REF.finditer(text):
        repo = match.group("url_repo") or match.group("repo") or default_repo
        number = pr_number(match.group("url_n") or match.group("n") or match.group("short"))
        if repo is None or number is None:
            continue  # "#0", a 5,000-digit number, or "#N" with no repository to pin it to
        ref = PRRef(repo, number)
        if ref not in found:
            found.append(ref)
    return found


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
