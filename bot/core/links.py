"""Links across days: which earlier merged PRs a PR refers to, and how (pure).

Owns reading a PR's title, body and review comments for a follow-up ("Follow-up to #N"), a
revert ("Reverts #N", GitHub's "This reverts commit <sha>", a title `Revert "<earlier title>"`)
or a fix of an earlier PR ("Fixes #N"). Precision first, since a wrong link is worse than none:
only PRs of the same repository that we know were merged (`known`) are linked, and numbers in
code, quotes, HTML comments and tables are not read. Must not know where `known` comes from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.core.strings.patterns import lazy

LinkKind = Literal["revert", "follow_up", "fixes"]
# When one PR is named twice, the strongest kind wins: a revert is what readers must not miss.
_RANK: dict[LinkKind, int] = {"revert": 0, "follow_up": 1, "fixes": 2}


@dataclass(frozen=True)
class KnownPR:
    """An earlier merged PR of the repository, as a digest showed it."""

    number: int
    title: str
    merge_sha: str | None = None


@dataclass(frozen=True)
class Link:
    kind: LinkKind
    number: int  # the earlier PR's number, in the same repository


# Text that is not prose: fenced code, inline code, HTML comments (PR templates' placeholders).
_FENCED = lazy(r"^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$", re.M | re.S)
_UNCLOSED_FENCE = lazy(r"^[ \t]*(```|~~~).*\Z", re.M | re.S)
_INLINE = lazy(r"`[^`\n]*`")
_HTML_COMMENT = lazy(r"<!--.*?(-->|\Z)", re.S)
# Quoted lines (someone else's words) and table rows ("| #1 | …").
_SKIPPED_LINE = lazy(r"^[ \t]*(>|\|)")

# A reference to a PR: "#N", "owner/repo#N", or the PR's URL.
_REF = (
    r"(?:https?://github\.com/(?P<url_repo>[\w.-]+/[\w.-]+)/pull/(?P<url_n>\d+)"
    r"|(?P<repo>[\w.-]+/[\w.-]+)?#(?P<n>\d+))\b"
)
_FOLLOW_UP = lazy(r"\bfollow[- ]?up\s*(?:to|of|for|on)?\s*:?\s*" + _REF, re.I)
# "Reverts" (GitHub's own revert body), not "revert": "should we revert #N?" is not a revert.
_REVERT = lazy(r"\b(?:reverts|revert\s+of)\s*:?\s*" + _REF, re.I)
_FIXES = lazy(r"\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s*:?\s*" + _REF, re.I)
_PATTERNS: tuple[tuple[re.Pattern[str], LinkKind], ...] = (
    (_REVERT, "revert"),
    (_FOLLOW_UP, "follow_up"),
    (_FIXES, "fixes"),
)
_REVERT_SHA = lazy(r"\bThis reverts commit ([0-9a-f]{7,40})\b")
# Minimum SHA prefix GitHub itself abbreviates to.
MIN_SHA = 7
_REVERT_TITLE = lazy(r"^\s*revert(?:s|ed)?\s*:?\s+(?P<rest>.+?)\s*$", re.I)
_TRAILING_NUMBER = lazy(r"\s*\(#(\d+)\)\s*$")
_SPACES = lazy(r"\s+")


def prose(text: str, *, inline_code: bool = False) -> str:
    """`text` without code, HTML comments, quoted lines and table rows. `inline_code` keeps what
    is between backquotes (`VLLM_USE_V1`): a name, not a reference, and worth reading as a word."""
    text = _HTML_COMMENT.sub(" ", text)
    text = _FENCED.sub(" ", text)
    text = _UNCLOSED_FENCE.sub(" ", text)
    text = _INLINE.sub(lambda match: match.group().strip("`") if inline_code else " ", text)
    return "\n".join(line for line in text.splitlines() if not _SKIPPED_LINE.match(line))


# What a digest item keeps of its review comments for links: a few short lines, not the comments.
MAX_MENTIONS = 10
MAX_MENTION_CHARS = 300


def mentions(texts: Iterable[str]) -> tuple[str, ...]:
    """The prose lines of `texts` (review comments) that may name an earlier PR, for find_links."""
    kept: list[str] = []
    for text in texts:
        for line in prose(text).splitlines():
            if len(kept) < MAX_MENTIONS and (
                any(pattern.search(line) for pattern, _ in _PATTERNS) or _REVERT_SHA.search(line)
            ):
                kept.append(line.strip()[:MAX_MENTION_CHARS])
    return tuple(kept)


def find_links(
    repo: str,
    number: int,
    title: str,
    body: str,
    comments: Sequence[str],
    known: Mapping[int, KnownPR],
) -> tuple[Link, ...]:
    """The earlier PRs of `repo` that PR `number` refers to, one link per PR, by number."""
    found: dict[int, LinkKind] = {}

    def add(kind: LinkKind, target: int) -> None:
        if target == number or target not in known:
            return
        if target not in found or _RANK[kind] < _RANK[found[target]]:
            found[target] = kind

    for kind, target in _title_links(title, known):
        add(kind, target)
    for text in (title, body, *comments):
        clean = prose(text)
        for pattern, kind in _PATTERNS:
            for target in _refs(pattern, clean, repo):
                add(kind, target)
        for sha in _REVERT_SHA.findall(clean):
            if (by_sha := _by_sha(sha, known.values())) is not None:
                add("revert", by_sha)
    return tuple(Link(kind, target) for target, kind in sorted(found.items()))


# Not inside a word or a path ("abc#1", "&#1;"), but "PR#1" is a reference as people write it.
_ANY_REF = lazy(r"(?:(?<![\w&/])|(?<=\bPR)|(?<=\bpr))" + _REF)


def references(text: str, repo: str) -> frozenset[int]:
    """Every PR of `repo` that the prose of `text` names ("#N", "owner/repo#N", its URL), in any words."""
    return frozenset(_refs(_ANY_REF, prose(text), repo))


# A reference denied by the few words before it: "this is not a follow-up to #N", "doesn't fix #N".
_NEGATED = lazy(r"(?:\b(?:not|never|no|without)|n't)\W+(?:[\w-]+\W+){0,2}$", re.I)


def _refs(pattern: re.Pattern[str], text: str, repo: str) -> Iterable[int]:
    for match in pattern.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if _NEGATED.search(text[max(line_start, match.start() - 40) : match.start()]):
            continue
        named = match.group("url_repo") or match.group("repo")
        if named is not None and named.lower() != repo.lower():
            continue  # a PR of another repository
        yield int(match.group("url_n") or match.group("n"))


def _by_sha(sha: str, known: Iterable[KnownPR]) -> int | None:
    """The one known PR whose merge commit starts with `sha`; None when none or several do."""
    hits = {pr.number for pr in known if pr.merge_sha and pr.merge_sha.lower().startswith(sha.lower())}
    return hits.pop() if len(hits) == 1 else None


def _title_links(title: str, known: Mapping[int, KnownPR]) -> Iterable[tuple[LinkKind, int]]:
    """A title `Revert "<earlier title>"` or `Revert <earlier title> (#N)`."""
    match = _REVERT_TITLE.match(title)
    if match is None:
        return
    rest = match.group("rest")
    number = _TRAILING_NUMBER.search(rest)
    if number is not None:
        yield "revert", int(number.group(1))
        rest = rest[: number.start()]
    wanted = _normal(rest.strip().strip("\"'“”"))
    hits = [pr.number for pr in known.values() if _normal(pr.title) == wanted]
    if wanted and len(hits) == 1:
        yield "revert", hits[0]


def _normal(title: str) -> str:
    return _SPACES.sub(" ", title).strip().casefold()


@dataclass(frozen=True)
class Shown:
    """An earlier PR as a channel's digest showed it: which day, in which thread."""

    repo: str
    number: int
    title: str
    merge_sha: str | None
    day: str  # the digest's day, YYYY-MM-DD
    thread_ts: str  # the digest's lead message
    permalink: str | None = None  # the lead message's link, asked of Slack when a link shows it
    url: str = ""  # the earlier PR's page (GitHub's html_url)


@dataclass(frozen=True)
class CrossLink:
    """A PR of today's digest that refers to a PR of an earlier digest of the same channel."""

    kind: LinkKind
    repo: str
    number: int  # today's PR
    earlier: Shown


@dataclass(frozen=True)
class Mentioned:
    """What find_links reads of one PR of today's digest."""

    repo: str
    number: int
    title: str
    body: str
    comments: tuple[str, ...] = ()


def cross_links(prs: Iterable[Mentioned], shown: Iterable[Shown]) -> tuple[CrossLink, ...]:
    """Today's PRs that refer to PRs shown in the channel's earlier digests (the latest showing of
    each), in the order of `prs`."""
    by_repo: dict[str, dict[int, Shown]] = {}
    for entry in sorted(shown, key=lambda entry: entry.day):
        by_repo.setdefault(entry.repo.lower(), {})[entry.number] = entry
    links: list[CrossLink] = []
    for pr in prs:
        earlier = by_repo.get(pr.repo.lower(), {})
        if not earlier:
            continue
        known = {number: KnownPR(number, entry.title, entry.merge_sha) for number, entry in earlier.items()}
        for link in find_links(pr.repo, pr.number, pr.title, pr.body, pr.comments, known):
            links.append(CrossLink(link.kind, pr.repo, pr.number, earlier[link.number]))
    return tuple(links)
