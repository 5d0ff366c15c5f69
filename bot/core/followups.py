"""Follow-ups answered: which earlier card's follow-up a later PR of the repository answers (pure).

A follow-up is one point of a card's `watch` field ("what to watch"); not to be confused with a
person's watches (`/pr watch`, core/watches.py), which are a feature of their own.

Owns a follow-up's key terms and the two ways a later PR answers one: it names the earlier PR
and says a key term of the point, or it changes the earlier PR's files and its title or
description say at least half of the point's key terms, a name among them. Precision first,
since a wrong link is worse than none: the same files alone, or the same words alone, never
answer; the words said must be the point's own, not only the earlier PR's title's (one for a PR
that names it, two for a PR on its files); a revert answers nothing.
Must not know where the earlier items are kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from bot.core.links import KnownPR, find_links, prose, references
from bot.core.strings.patterns import lazy
from bot.models import Language

# A card has at most 2 follow-ups (DESIGN.md §1); a card shows this many answered items at
# most, one per earlier PR, so a PR that names a dozen earlier ones does not bury its card.
MAX_ANSWERS = 3
# What an earlier item keeps of its PR's files: enough to meet a later PR on one of them.
MAX_PATHS = 100


@dataclass(frozen=True)
class FollowUp:
    """An earlier merged PR's follow-ups, as its card said them."""

    repo: str
    number: int
    title: str
    url: str
    merged_at: datetime
    points: tuple[str, ...]
    paths: tuple[str, ...] = ()
    merge_sha: str | None = None
    language: Language = "en"  # the card's: a channel is shown the points written in its language


@dataclass(frozen=True)
class LaterPR:
    """What the matcher reads of one PR of today's digest."""

    repo: str
    number: int
    title: str
    body: str
    merged_at: datetime | None
    paths: tuple[str, ...] = ()
    mentions: tuple[str, ...] = ()  # review comments' lines that may name an earlier PR (core/links.py)


@dataclass(frozen=True)
class Answered:
    """A PR of today's digest answers a follow-up of an earlier PR of its repository."""

    repo: str
    number: int  # today's PR
    earlier: FollowUp
    point: str
    by: Literal["reference", "files"]


@dataclass(frozen=True)
class Term:
    key: str  # as compared: case-folded, without "-" and "_", singular
    strong: bool  # a name (FP8, DeepSeek-V3, `forward_partials`, Blackwell), not a plain word


# Words that say nothing about which change a point waits for: English function words, the
# words every PR and follow-up use, and words too common in code review to tell PRs apart.
_STOPWORD_TEXT = """
    a about above after again against all also an and any are as at be because been before being
    below between both but by can could did do does doing done down during each either few for
    from further had has have having he her here hers how however i if in into is it its itself
    just least less like may maybe me might more most much must my no nor not now of off on once
    one only or other others otherwise our out over own per same she should so some still such
    than that the their them then there these they this those though through thus to too two
    under until up upon us very via was we were what when where whether which while who whom why
    will with within without would yet you your e.g i.e etc vs
    add added adding adds address addressed adopt adopted already another api apply applied
    approach area around avoid back backend behavior behaviour better bug bugs case cases change
    changed changes check checks ci class clean cleanup code config configs correct correctly
    coverage cpu cuda current currently default different doc docs documentation effect enable
    enabled ensure error errors eventual eventually existing expected explicit extend extended
    extending extension feature features file files fix fixed fixes fixing flag flow follow
    followed following followup function functions future general generic get gets go goes gpu
    handle handled handling impact implement implementation improve improved improvement improves
    instead issue issues keep kernel land landed lands large later layer left level likely
    long longterm make makes making merge merged method methods miss missing model models module
    modules move moved need needed needs new next note old once option options other part parts path
    paths pending perf performance plan planned possible possibly potential pr prs properly rather
    really refactor regression regressions related release remain remaining remove removed rest
    result results revisit risk run runs save see separate should show side similar small soon step
    steps support supported supports sure take term test tested testing tests todo track tracked
    tracking try turn update updated updates upstream use used uses using version versions watch
    watching way well whole work works worth
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
# "16 GiB", "2.5 x", "1.6 us": one term, as PRs write them either way.
_NUMBER_UNIT = lazy(r"\b(\d+(?:\.\d+)?)\s+(gib|gb|mib|mb|kib|kb|tb|ms|us|µs|ns|x|%|tok/s)(?![\w/])", re.I)
_TOKEN = lazy(r"[A-Za-z0-9µ][A-Za-z0-9µ_.+\-]*%?")
_CODE = lazy(r"`([^`\n]+)`")
_NUMBER = lazy(r"[\d.]+")
_SENTENCE_END = lazy(r"[.!?:;]\s*$")


def _key(token: str) -> str:
    key = token.casefold().replace("-", "").replace("_", "")
    if key.isalpha() and len(key) > 3 and not key.endswith(("ss", "us", "is")) and key.endswith("s"):
        key = key[:-1]  # "kernels" and "kernel" are one term
    return key


def _tokens(text: str) -> Iterable[tuple[str, int]]:
    """Each word of `text` with its start, paths split into their parts, trailing dots dropped."""
    text = _NUMBER_UNIT.sub(lambda match: match.group(1) + match.group(2), text)
    for match in _TOKEN.finditer(text):
        token = match.group().rstrip(".-_")
        if token:
            yield token, match.start()


def _is_name(token: str, start: int, text: str) -> bool:
    """A token that names something: a digit, "_" or "." inside, a capital after the first
    letter (FlashInfer, FP8), or a capitalised word not at a sentence's start (Blackwell)."""
    if any(char.isdigit() for char in token) or "_" in token or "." in token:
        return True
    if any(char.isupper() for char in token[1:]):
        return True
    return token[:1].isupper() and bool(text[:start].strip()) and not _SENTENCE_END.search(text[:start])


def key_terms(point: str) -> tuple[Term, ...]:
    """The distinctive words of a follow-up, in order, each once; () when it has none (a point
    in Chinese without a name in Latin letters has none: it cannot be matched, so it never is)."""
    quoted = {_key(token) for code in _CODE.findall(point) for token, _ in _tokens(code)}
    plain = point.replace("`", " ")
    terms: dict[str, Term] = {}
    for token, start in _tokens(plain):
        key = _key(token)
        if len(key) < 2 or key in _STOPWORDS or token.casefold() in _STOPWORDS or _NUMBER.fullmatch(key):
            continue
        strong = key in quoted or _is_name(token, start, plain)
        if key not in terms or (strong and not terms[key].strong):
            terms[key] = Term(key, strong)
    return tuple(terms.values())


def words_of(text: str) -> frozenset[str]:
    """The term keys a PR's text says (for key_terms' keys to be looked up in)."""
    return frozenset(_key(token) for token, _ in _tokens(text))


def answers(later: Sequence[LaterPR], earlier: Iterable[FollowUp], keep: timedelta) -> tuple[Answered, ...]:
    """Which follow-ups of `earlier` items the `later` PRs answer, in the order of `later`: per
    later PR at most one point per earlier PR (the best), and at most MAX_ANSWERS, best first.
    An item answers only PRs of its repository merged after it and at most `keep` after it."""
    by_repo: dict[str, list[FollowUp]] = {}
    for item in earlier:
        by_repo.setdefault(item.repo.casefold(), []).append(item)
    found: list[Answered] = []
    for pr in later:
        if pr.merged_at is None:
            continue
        candidates = [
            item
            for item in by_repo.get(pr.repo.casefold(), [])
            if item.number != pr.number and item.merged_at < pr.merged_at <= item.merged_at + keep
        ]
        if candidates:
            found.extend(_answers_of(pr, candidates))
    return tuple(found)


def _answers_of(pr: LaterPR, candidates: Sequence[FollowUp]) -> list[Answered]:
    texts = (pr.title, pr.body, *pr.mentions)
    named = frozenset().union(*(references(text, pr.repo) for text in texts))
    said = words_of(" \n".join(prose(text, inline_code=True) for text in texts))
    # The repository's own name ("vllm") is in half its paths and titles: it tells nothing apart.
    generic = words_of(pr.repo.replace("/", " "))
    paths = frozenset(pr.paths)
    best: list[tuple[tuple[int, int, int], Answered]] = []
    for item in candidates:
        reference = item.number in named
        if not reference and paths.isdisjoint(item.paths):
            continue
        if reference and _reverts(pr, item):
            continue  # a revert undoes the earlier PR: it answers none of its follow-ups
        title = words_of(item.title)
        scored = [
            (score, point)
            for point in item.points
            if (score := _score(_without(key_terms(point), generic), said, title, reference)) is not None
        ]
        if scored:
            score, point = max(scored, key=lambda pair: pair[0])  # the first point of the best score
            answer = Answered(pr.repo, pr.number, item, point, "reference" if reference else "files")
            best.append((score, answer))
    best.sort(key=lambda pair: pair[0], reverse=True)
    return [answer for _, answer in best[:MAX_ANSWERS]]


def _score(
    terms: Sequence[Term], said: frozenset[str], title: frozenset[str], reference: bool
) -> tuple[int, int, int] | None:
    """How well a later PR that names the earlier one (`reference`) or changes its files answers a
    point whose key terms are `terms`; None when it does not. `title`: the earlier PR's title's words."""
    shared = [term for term in terms if term.key in said]
    # Words of the point that the earlier PR's title lacks: without them, the later PR only
    # speaks of the same subject as the earlier PR, not of what its card said to watch.
    own = sum(term.key not in title for term in shared)
    strong = sum(term.strong for term in shared)
    if reference:
        return (1, len(shared), strong) if own else None
    if own >= 2 and 2 * len(shared) >= len(terms) and strong:
        return (0, len(shared), strong)
    return None


def _without(terms: Sequence[Term], generic: frozenset[str]) -> tuple[Term, ...]:
    return tuple(term for term in terms if term.key not in generic)


def _reverts(pr: LaterPR, item: FollowUp) -> bool:
    known = {item.number: KnownPR(item.number, item.title, item.merge_sha)}
    links = find_links(pr.repo, pr.number, pr.title, pr.body, pr.mentions, known)
    return any(link.kind == "revert" for link in links)
