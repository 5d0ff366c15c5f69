"""AcrossDays: questions about a repository's merged PRs over several days ("what merged in vllm
this week about MoE?", "did anything revert #50879?"), answered from what is already known.

The span's PRs come from GitHub's list endpoints through CardService.merged (one list per window
for everyone asking within MERGED_TTL; the channel's stored digests cannot stand in for it: they
are filtered by the channel's rules and cut at the posting time, not at midnight). Each PR is then
read only from the store: its cached snapshot (files, comments) and card. A PR without them is
matched on its title, body-free metadata and labels only and counted as such; it is never fetched
inline, since a week of a busy repository is hundreds of PRs (`prdigest digest` or the poller
caches them). The answer is the matching PRs themselves, so it says nothing the cards and titles
do not: no model is asked, and every headline is a sanitized card's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.cards import CardService
from bot.core.links import KnownPR, find_links
from bot.core.refs import GITHUB_WEB, pr_url
from bot.core.release_words import WHICH_RELEASE
from bot.core.strings.patterns import lazy
from bot.core.strings.spelling import one_edit, stem
from bot.core.usage import Tally
from bot.errors import NotFound, RateLimited, SourceError
from bot.models import (
    VERDICT_ORDER,
    AcrossItem,
    AcrossMatches,
    AcrossRefused,
    Audience,
    DayProblem,
    DigestThread,
    FileChange,
    InRelease,
    Language,
    PRListing,
    PRRef,
    PRSnapshot,
    Reading,
    Span,
)
from bot.models.reading import Relation
from bot.questions.across.authors import Named, matches_person
from bot.questions.across.relations import in_relation, shown_listing
from bot.questions.across.spans import MAX_SPAN_DAYS, recent_span, revert_span, span_problem, span_window
from bot.questions.model_reading import ModelReader
from bot.questions.reading import BARE, read_question
from bot.questions.which_pr import words
from bot.releases import ReleaseQuestions
from bot.store.history import DigestHistory

# What one Slack reply lists: a screenful; the rest are counted ("and 12 more").
MAX_ITEMS = 10
# "find the PR that bumps torch" looks first among what this channel's digests of these days
# showed: two weeks is two of a weekly channel's digests, and within what the store keeps.
RECENT_DIGEST_DAYS = 14
# Files of a PR kept for the model's answer about the PRs of days (as a digest's thread keeps).
MATERIAL_PATHS = 12
_PATH_PARTS = lazy(r"[/._-]")
_NAME_NUMBER = lazy(r"\b([A-Za-z]{3,20})\s(\d{1,2}(?:\.\d)?)\b")
# A title that says it fixes something: "[Bugfix]", "Fix …", "bug", "hotfix".
_FIX_TITLE_WORDS = frozenset({"fix", "fixes", "fixed", "bugfix", "bug", "bugs", "hotfix", "fixing"})


@dataclass(frozen=True)
class Known:
    """What answers across days look up besides cards: every repository the workspace follows
    ("owner/name" typed in a question is the repository asked about when it is one of them, and
    a path otherwise), the channel's earlier digests (the title and merge commit of a PR a
    revert names), and which authors a typed name is (questions/across/authors.py `Authors.named`)."""

    repos: Callable[[], Iterable[str]] = tuple
    history: DigestHistory | None = None
    people: Callable[[str, Iterable[str]], Named] | None = None
    releases: ReleaseQuestions | None = None  # a release's PRs, and which release holds a PR


@dataclass(frozen=True)
class Asked:
    """The PRs a question is asked among: of a repository, over a span (with their cached
    snapshots, None where the store holds none), and the earlier PR a revert is asked about."""

    repo: str
    span: Span
    known: list[tuple[PRListing, PRSnapshot | None]]
    target: PRListing | None = None


class AcrossDays:
    def __init__(
        self,
        cards: CardService,
        *,
        now: Callable[[], datetime],
        zone_of: Callable[[str], ZoneInfo],
        known: Known | None = None,
        web_base: str = GITHUB_WEB,
        reader: ModelReader | None = None,
    ) -> None:
        self._cards = cards
        # The model's reading of what the rules could not read (None: no model configured).
        self._reader = reader
        self._web_base = web_base  # where a PR known only by its reference links to
        known = known or Known()
        self._known_repos = known.repos
        self._history = known.history
        self._people = known.people
        self._releases = known.releases
        self._now = now
        # The asking channel's timezone: "today" and "since Monday" are its days.
        self._zone_of = zone_of

    def read(self, question: str, audience: Audience) -> Reading | None:
        """The question across days `question` asks, or None when it asks about one PR or a digest.

        A bare name ("vllm") stands only for a repository the audience may see here, the
        channel's own first: never for a private one elsewhere, whose owner the reply would name.
        The days are the asker's where the audience has a zone (the app's DM), else the channel's.
        """
        reading = self.reading(question, audience)
        return reading if reading.across else None

    def read_by_model(self, question: str, audience: Audience, tally: Tally | None = None) -> Reading | None:
        """The model's reading of a question the rules could not read, when it is one across
        days; None without a model, or when the model read nothing to act on either."""
        if self._reader is None:
            return None
        today = self._now().astimezone(audience.zone or self._zone_of(audience.channel)).date()
        reading = self._reader.read(question, audience, today, tally)
        if reading is None or not (reading.span or reading.problem or reading.author or reading.terms):
            return None
        return reading

    def reading(self, question: str, audience: Audience) -> Reading:
        """Whatever `question` asks, across days or not, read on the audience's day."""
        today = self._now().astimezone(audience.zone or self._zone_of(audience.channel)).date()
        allowed = audience.repos
        known = frozenset(repo.lower() for repo in self._known_repos()) | allowed
        return read_question(question, today, known, allowed, audience.default_repo)

    def answer(self, asked: Reading, audience: Audience) -> AcrossMatches | AcrossRefused | InRelease:
        repo = asked.repo or audience.default_repo
        if asked.release is not None:
            return self._about_release(asked, audience, repo)
        if asked.problem is not None:
            return _refused_days(asked.problem, repo or "")
        if repo is None:
            return AcrossRefused("no_repo")
        if not audience.may_see(repo):
            return AcrossRefused("not_allowed", repo, shown=audience.named(repo))
        channel = audience.channel
        zone = audience.zone or self._zone_of(channel)
        now = self._now()
        today = now.astimezone(zone).date()
        span = asked.span or (revert_span(today) if asked.target is not None else recent_span(today))
        problem = span_problem(span, today)
        if problem is not None:
            return AcrossRefused(problem, repo, days=MAX_SPAN_DAYS, said=span.unreadable)
        if span.end is None:
            span = replace(span, through=today)  # said back with its dates: "(Aug 8–14)"
        if asked.seeking and asked.span is None and asked.topic:
            # "find the PR that bumps torch": the PRs this channel was shown first.
            shown = self._in_recent_digests(asked, audience, repo, today)
            if shown is not None and shown.found:
                return shown
        try:
            listings = self._cards.merged(repo, span_window(span, zone, now))
        except NotFound:
            return AcrossRefused("not_found", repo)
        except RateLimited as exc:  # said as every command says it: when the limit resets
            return AcrossRefused("unavailable", repo, why=exc.note)
        except SourceError:
            return AcrossRefused("unavailable", repo)
        # Read from the store only: a PR it does not hold is matched on what the list gave.
        known = [(listing, self._cards.cached_snapshot(listing)) for listing in listings]
        target = self._target(PRRef(repo, asked.target), listings, channel, today) if asked.target else None
        return self._matched(asked, audience, Asked(repo, span, known, target))

    def _in_recent_digests(self, asked: Reading, audience: Audience, repo: str, today: date) -> AcrossMatches | None:
        """The PRs of `repo` the asking channel's digests of the last RECENT_DIGEST_DAYS showed
        that fit a question after one PR, read from the store only; None when it has no digests."""
        if self._history is None:
            return None
        shown = [
            entry
            for entry in self._history.before(
                audience.channel, (today + timedelta(days=1)).isoformat(), RECENT_DIGEST_DAYS
            )
            if entry.repo.lower() == repo.lower()
        ]
        if not shown:
            return None
        known: list[tuple[PRListing, PRSnapshot | None]] = []
        for entry in {(entry.repo.lower(), entry.number): entry for entry in shown}.values():
            cached = self._cards.cached_by_ref(PRRef(entry.repo, entry.number))
            listing = cached.listing if cached is not None else shown_listing(entry, self._web_base)
            known.append((listing, cached))
        days = sorted(date.fromisoformat(entry.day) for entry in shown)
        span = Span("digests", days[0], end=days[-1] + timedelta(days=1))
        return self._matched(asked, audience, Asked(repo, span, known))

    def _about_release(
        self, asked: Reading, audience: Audience, repo: str | None
    ) -> AcrossMatches | AcrossRefused | InRelease:
        """A release's PRs that fit the question, or which release holds the PR named."""
        release = asked.release or ""
        named = asked.named[0] if asked.named else None
        if named is not None and named.repo != BARE:
            repo = named.repo
        if repo is None:
            return AcrossRefused("no_repo")
        if not audience.may_see(repo):
            return AcrossRefused("not_allowed", repo, shown=audience.named(repo))
        if self._releases is None:
            return AcrossRefused("unavailable", repo)
        if release == WHICH_RELEASE and named is not None:
            return self._releases.which(PRRef(repo, named.number))
        today = self._now().astimezone(audience.zone or self._zone_of(audience.channel)).date()
        found = self._releases.among(repo, release, today)
        if isinstance(found, AcrossRefused):
            return found
        span, known = found
        return self._matched(asked, audience, Asked(repo, span, known))

    def answer_digest(self, asked: Reading, audience: Audience, thread: DigestThread) -> AcrossMatches:
        """A question about the PRs of a digest's thread ("which of these touch .buildkite?",
        "the biggest one in here", "how many [Bugfix] PRs are in this one?"), answered from the
        digest's own PRs: the same rules as across days, no list asked of GitHub."""
        repo = thread.repos[0] if thread.repos else (audience.default_repo or "")
        day = _thread_day(thread, self._now().date())
        known = [(item.listing, self._cards.cached_snapshot(item.listing)) for item in thread.items]
        return self._matched(asked, audience, Asked(repo, Span("digest", day, end=day + timedelta(days=1)), known))

    def _matched(self, asked: Reading, audience: Audience, among: Asked) -> AcrossMatches:
        """The PRs of `among` that fit the reading: by person, topic (or link to a target PR),
        verdict; ranked, or the biggest first; counted in code."""
        language, known = audience.language, among.known
        named = Named()
        if asked.author is not None:
            known, named = self._by(asked.author, known)
        elif asked.topic and asked.target is None:
            known, asked = self._author_in_topic(asked, known)
        target = among.target
        in_pairs = asked.relation is not None and target is None
        if in_pairs and asked.relation is not None:
            # "which PRs were reverted this week?": each revert (or follow-up) and what it refers to.
            known = self._in_relation(known, asked.relation, audience.channel, among)
        if target is not None:
            found = [
                self._item(listing, snapshot, language)
                for listing, snapshot in known
                if _links_to(listing, snapshot, target, asked)
            ]
        else:
            every = [(self._item(listing, snapshot, language), snapshot) for listing, snapshot in known]
            found = best_matches(every, asked) if not asked.seeking else every_word(every, asked)
        if asked.verdict is not None:
            found = [item for item in found if item.card is not None and item.card.verdict == asked.verdict]
        # A revert stays beside what it reverted, as they were paired.
        items = found if in_pairs else sorted(found, key=_biggest if asked.intent == "biggest" else _rank)
        shown = 1 if asked.intent == "biggest" and not asked.plural else MAX_ITEMS
        return AcrossMatches(
            repo=among.repo,
            span=among.span,
            topic=asked.terms,
            items=tuple(items[:shown]),
            more=max(len(items) - shown, 0) if asked.intent != "biggest" else 0,
            title_only=sum(1 for item in items if item.card is None),
            merged=len(among.known),
            target=target,
            relation=asked.relation,
            intent=asked.intent,
            author=asked.author,
            verdict=asked.verdict,
            found=len(items),
            people=named.people if len(named.people) > 1 else (),
            unread=named.unread,
            unread_why=named.why,
        )

    def _author_in_topic(
        self, asked: Reading, known: list[tuple[PRListing, PRSnapshot | None]]
    ) -> tuple[list[tuple[PRListing, PRSnapshot | None]], Reading]:
        """A topic word that is an author's login ("nhill 这周的 PR", "stefankoncarevic 本周的 PR")
        is the person asked about, not a word of titles."""
        for word in asked.topic:
            by_login = [pair for pair in known if matches_person(word, pair[0].author, None)]
            if by_login:
                rest = tuple(other for other in asked.topic if other != word)
                return by_login, replace(asked, author=word, topic=rest)
        return known, asked

    def _by(
        self, said: str, known: list[tuple[PRListing, PRSnapshot | None]]
    ) -> tuple[list[tuple[PRListing, PRSnapshot | None]], Named]:
        """The PRs whose author is the person asked about: by login when one is typed, else by
        display name (read only for the logins that may be theirs, cached for a week:
        questions/across/authors.py), with who that is and which names could not be read."""
        by_login = [pair for pair in known if matches_person(said, pair[0].author, None)]
        if by_login or self._people is None:
            return by_login, Named()
        named = self._people(said, [listing.author for listing, _ in known])
        return [pair for pair in known if pair[0].author in named.logins], named

    def _in_relation(
        self, known: list[tuple[PRListing, PRSnapshot | None]], relation: Relation, channel: str, among: Asked
    ) -> list[tuple[PRListing, PRSnapshot | None]]:
        """The span's reverts (or follow-ups), each beside the PR it refers to: of the span, or of
        the channel's earlier digests (questions/across/relations.py)."""
        after = (among.span.last + timedelta(days=1)).isoformat()
        shown = self._history.before(channel, after) if self._history is not None else []
        earlier = [
            (shown_listing(entry, self._web_base), None) for entry in shown if entry.repo.lower() == among.repo.lower()
        ]
        return in_relation(known, relation, earlier, self._cards.cached_by_ref)

    def _item(self, listing: PRListing, snapshot: PRSnapshot | None, language: Language) -> AcrossItem:
        if snapshot is None:
            return AcrossItem(listing, None)
        card = self._cards.cached_card(snapshot, language)
        paths = tuple(change.path for change in snapshot.files[:MATERIAL_PATHS])
        return AcrossItem(listing, card, snapshot.additions + snapshot.deletions, paths)

    def _target(self, ref: PRRef, listings: list[PRListing], channel: str, today: date) -> PRListing:
        """The earlier PR a revert is asked about, from what is known of it without asking GitHub:
        the span's list, its cached snapshot, the channel's digests; else its number alone."""
        listed = next((listing for listing in listings if listing.ref == ref), None)
        if listed is not None:
            return listed
        cached = self._cards.cached_by_ref(ref)
        if cached is not None:
            return cached.listing
        url = pr_url(self._web_base, ref)
        if self._history is not None:
            shown = self._history.before(channel, (today + timedelta(days=1)).isoformat())
            for entry in shown:
                if entry.repo.lower() == ref.repo.lower() and entry.number == ref.number:
                    return PRListing(ref.repo, ref.number, entry.title, "", "", entry.url or url, None, entry.merge_sha)
        return PRListing(ref.repo, ref.number, "", "", "", url, None, None)


def _thread_day(thread: DigestThread, today: date) -> date:
    """The day a thread's posts are of: a digest's own ("2026-08-05"), a weekly roll-up's
    ("week:2026-08-10"); a release's thread has none, so its first PR's merge day (else today)."""
    try:
        return date.fromisoformat(thread.day.rpartition(":")[2])
    except ValueError:
        merged = [item.listing.merged_at for item in thread.items if item.listing.merged_at is not None]
        return min(merged).date() if merged else today


def _rank(item: AcrossItem) -> tuple[int, int, int]:
    """Read first, then skim, skip, and PRs without a card; within each, the larger first."""
    verdict = VERDICT_ORDER[item.card.verdict] if item.card is not None else len(VERDICT_ORDER)
    return (verdict, -item.size, -item.listing.number)


def _biggest(item: AcrossItem) -> tuple[int, int]:
    """The most lines changed first (a PR without a cached snapshot counts its listed size)."""
    return (-item.size, -item.listing.number)


def best_matches(items: list[tuple[AcrossItem, PRSnapshot | None]], asked: Reading) -> list[AcrossItem]:
    """The PRs about the question's topic: every path asked about is one they change (or their
    title names), and of the topic's words, the best fit any PR has. A rarer word counts for more
    ("the Anthropic endpoint": "Anthropic" in two PRs of the span, "endpoint" in many), and a word
    a PR's title, card or labels say, or the directory or file that holds most of its change, counts
    for more than one only its other files do. So all of "Rust
    frontend" where some PR is about both, one of them where none is. No topic, or no word of it
    found (words in another language than the titles): every PR of the paths asked about."""
    matched = [(item, _topic_words(item, snapshot, asked)) for item, snapshot in items]
    kept = [(item, found) for item, found in matched if found is not None]
    if not asked.topic:
        return [item for item, _ in kept]
    counts = {word: sum(1 for _, found in kept if word in found) for word in asked.topic}
    weight = {word: math.log((len(kept) + 1) / (count + 0.5)) for word, count in counts.items() if count}
    scored = [(item, sum(weight[word] * part for word, part in found.items())) for item, found in kept]
    best = max((score for _, score in scored), default=0.0)
    if best <= 0:
        return [item for item, _ in kept] if asked.paths else []
    return [item for item, score in scored if score >= best * CLOSE_ENOUGH - 1e-9]


def every_word(items: list[tuple[AcrossItem, PRSnapshot | None]], asked: Reading) -> list[AcrossItem]:
    """The PRs that a question after one PR describes ("the PR that bumps torch for ROCm"): each
    of its words is one they are about (title, card, labels or files) and they change every path
    asked about. A PR that fits part of the description is not the PR described; but a word in
    another script than every PR's ("哪个 PR 升级了 torch": "升级" beside English titles) is not
    asked of them."""
    fits = [(item, found) for item, snapshot in items if (found := _topic_words(item, snapshot, asked)) is not None]
    had = {word for _, found in fits for word in found}
    wanted = {word for word in asked.topic if word.isascii() or word in had}
    return [item for item, found in fits if wanted <= found.keys()]


# How much a topic word counts when only a PR's files name it, against its title, card or labels.
FILES_ONLY = 0.5
# A directory or file named by a topic word says what a PR is about, as its title would, when at
# least this share of its changed lines is there: #50294 is all under vllm/v1/attention/, while a
# 6,000-line PR that touches one `transformers/` file among 28 is not about Transformers.
NAMED_SHARE = 0.5
# A PR whose fit is this close to the best one's is about the topic too: "Kimi K3" asks for the
# "[K3]" PRs in kimi_k3/ files beside the one whose title says both, not for a PR that only
# changes a file named after one of the words.
CLOSE_ENOUGH = 0.75


def _topic_words(item: AcrossItem, snapshot: PRSnapshot | None, asked: Reading) -> dict[str, float] | None:
    """The topic's words the PR is about, each with how much it counts (1: its title, card or
    labels say it, or most of its changed lines are in a directory or file named by it;
    FILES_ONLY: only its files name it); None when it misses a path asked about."""
    listing = item.listing
    paths = tuple(change.path.lower() for change in snapshot.files) if snapshot is not None else ()
    title = listing.title.lower()
    for path in asked.paths:
        wanted = path.lower()
        if not any(changed.startswith(wanted) or f"/{wanted}" in changed for changed in paths) and wanted not in title:
            return None
    if not asked.topic:
        return {}
    headline = item.card.headline if item.card is not None else ""
    text = f"{listing.title} {headline} {' '.join(listing.labels)}"
    # "Gemma 4" in a title is "gemma4" too, as its files and a question may write it.
    said = words(text) | {f"{name}{number}".lower() for name, number in _NAME_NUMBER.findall(text)}
    # "moe_intermediate", "fp8-moe": a word's parts are words too ("MoE" asks for both).
    said |= {part for word in said for part in _PATH_PARTS.split(word) if len(part) > 1}
    if said & _FIX_TITLE_WORDS:
        said.add("fix")  # "[Bugfix]", "Fix …", "bug": a question about fixes asks for these
    files = {part.lower() for path in paths for part in _PATH_PARTS.split(path) if len(part) > 2}
    changes = snapshot.files if snapshot is not None else ()
    found: dict[str, float] = {}
    for word in asked.topic:
        if about_word(word, said) or _named_share(word, changes) >= NAMED_SHARE:
            found[word] = 1.0
        elif about_word(word, files):
            found[word] = FILES_ONLY
    return found


def _named_share(word: str, changes: Sequence[FileChange]) -> float:
    """The share of a PR's changed lines in files whose path names `word`: a directory or the
    file's name, or a word of one ("attention" in vllm/v1/attention/ and in mla_attention.py)."""
    total = sum(max(change.changes, 1) for change in changes)
    there = sum(max(change.changes, 1) for change in changes if word in _names(change.path.lower()))
    return there / total if total else 0.0


def _names(path: str) -> set[str]:
    """A lower-cased path's directories and file name, with and without its extension, and their words."""
    parts = set(path.split("/"))
    parts |= {part.rsplit(".", 1)[0] for part in parts if "." in part}
    return parts | {word for word in _PATH_PARTS.split(path) if len(word) > 2}


def about_word(word: str, found: set[str]) -> bool:
    """Whether a topic word is among a PR's words: as it is, in another form of it ("decoding",
    "decode"), as the start of a longer identifier ("deepgemm" in "DeepGemmQuantScaleFMT"), or
    mistyped by one letter ("speculatvie")."""
    if word in found:
        return True
    parts = [part for part in _PATH_PARTS.split(word) if len(part) > 1]
    if len(parts) > 1 and all(part in found for part in parts):
        return True  # "kimi-k3" in "Kimi K3", "model-runner" in "[Model Runner]"
    if len(parts) > 1 and any(part in found for part in parts if any(char.isdigit() for char in part)):
        return True  # "kimi-k3" in "[K3] Fix fp8 KV cache decode": the part that names a version
    root = stem(word)
    for other in found:
        if stem(other) == root or (len(word) >= 5 and other.startswith(word)):
            return True
        if len(word) >= 6 and abs(len(other) - len(word)) <= 1 and one_edit(word, other):
            return True
    return False


def _links_to(listing: PRListing, snapshot: PRSnapshot | None, target: PRListing, asked: Reading) -> bool:
    """Whether the PR reverts (or follows up) `target`, by the rules digests link PRs by."""
    if listing.number == target.number:
        return False
    known = {target.number: KnownPR(target.number, target.title, target.merge_sha)}
    comments = tuple(comment.body for comment in snapshot.comments) if snapshot is not None else ()
    links = find_links(listing.repo, listing.number, listing.title, listing.body, comments, known)
    return any(link.kind == asked.relation for link in links)


def _refused_days(problem: DayProblem, repo: str) -> AcrossRefused:
    """Days that cannot be answered, said plainly: a day in the future, no such day, a range
    that ends before it starts, or a numeric date that reads two ways (both are offered)."""
    readings = tuple(day.isoformat() for day in problem.readings)
    return AcrossRefused(problem.kind, repo, days=MAX_SPAN_DAYS, said=problem.said, readings=readings)
