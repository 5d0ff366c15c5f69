"""QAService: questions about PRs, answered from their cached snapshot and card, remembering
the thread's earlier turns. Returns what to say as data (a Reply, one small value per kind,
in bot/models/replies.py); surfaces word it.

A channel is answered only about the repositories it may see (`allowed`), the rule of `/pr`.
A digest thread is cut to its allowed part (`visible_part`) and the thread's earlier turns to
those the channel may still see before anything reads them, so no choice list, digest-wide
answer, "why" or follow-up can name, or send the model, a PR of another repository (a channel
configured for a private repository may later be shared with another organisation).
Every model answer is sanitized (core/checks/sanitize.py) before it is returned or remembered; one with
nothing usable left (empty, or mostly chat-template tokens) gets the card instead, saying so.
"""

from __future__ import annotations

import re
from dataclasses import replace

from bot.cards import CardService
from bot.core.checks.citations import Citable, keep_cited
from bot.core.checks.sanitize import repo_url, sanitize_answer, sanitize_text
from bot.core.heuristic.signals import verdict_rules
from bot.core.refs import GITHUB_WEB, pr_url
from bot.core.strings.patterns import lazy
from bot.core.usage import Tally
from bot.digests import explain
from bot.errors import BudgetSpent, NotFound, RateLimited, SourceError, SummarizerError
from bot.models import (
    AcrossMatches,
    AcrossRefused,
    Audience,
    CardReply,
    Choose,
    DigestAnswer,
    DigestItem,
    DigestMatches,
    DigestThread,
    Help,
    InRelease,
    NotAllowed,
    PRAnswer,
    PRListing,
    PRNotFound,
    PRRef,
    Question,
    Reading,
    Reply,
    Rule,
    Turn,
    Unavailable,
    Why,
)
from bot.ports import Answerer, AnswerSink
from bot.questions.across.days import AcrossDays
from bot.questions.across.summaries import carded_items, write_summary
from bot.questions.reading import refs_said
from bot.questions.which_pr import is_why, previous_pr, resolve, words
from bot.spending import Account, Payer
from bot.store.threads import ThreadStore


class QAService:
    def __init__(
        self,
        cards: CardService,
        threads: ThreadStore,
        answerer: Answerer | None,
        account: Account | None = None,
        across: AcrossDays | None = None,
        web_base: str = GITHUB_WEB,
    ) -> None:
        self._cards = cards
        # Where a PR known only by its reference links to (refs.github_web_base).
        self._web_base = web_base
        # Questions across days ("what merged this week about MoE?"): questions/across/days.py.
        self._across = across
        self._threads = threads
        self._answerer = answerer
        # The asking workspace's side of the daily budget: answers' tokens are the asking
        # channel's and the PR's repository's; a spent budget asks nothing. None: not counted.
        self._account = account

    def answer(
        self, question: str, audience: Audience, digest: DigestThread | None = None, sink: AnswerSink | None = None
    ) -> Reply:
        """The reply to `question` for `audience`: in a digest's thread (`digest`), about a PR of
        the digest, another PR, or the digest; elsewhere (an @mention, the app's DM), about a PR
        named (or named before in the thread) or a question across days.

        `sink`: where a model's answer is shown while it is written (only a model's answer is)."""
        if digest is not None:
            return self._in_digest_thread(digest, question, audience, sink)
        return self._elsewhere(question, audience, sink)

    def _in_digest_thread(
        self, thread: DigestThread, question: str, audience: Audience, sink: AnswerSink | None
    ) -> Reply:
        visible = visible_part(thread, audience)
        if nothing_visible(visible):
            return NotAllowed(None)  # the surface refuses to the asker alone, before this
        hidden = len(visible.items) < len(thread.items) or len(visible.repos) < len(thread.repos)
        thread = visible  # from here on, what this channel may not see does not exist
        default = thread.repos[0] if thread.repos else None
        here = replace(audience, default_repo=default)
        # "the biggest one in here", "anything from Yongye Zhu?": the digest's own PRs, unless
        # other days are named ("this week"), which are asked across days.
        reading = self._read(question, here)  # once: the digest's own PRs, then other days
        among = self._among_the_digests(question, here, thread, reading, sink)
        if among is not None:
            return among
        across = self._across_days(question, here, reading, digest=True, sink=sink)
        if across is not None:
            return across
        history = visible_turns(self._threads.turns(thread.channel, thread.thread_ts), audience, hidden=hidden)
        paths = {item.listing.ref: item.paths for item in thread.items}
        resolution = resolve(question, thread.items, history, paths, default)
        refused = audience.refused(resolution.refs)
        reply: Reply
        if refused is not None:
            reply = NotAllowed(refused, audience.named(refused.repo))
        elif is_why(question) and resolution.kind == "pr":
            reply = self._why(thread, resolution.refs[0], audience)
        elif resolution.kind == "choose":
            by_ref = {item.listing.ref: item.listing for item in thread.items}
            choices = tuple(by_ref[ref] if ref in by_ref else _bare(ref, self._web_base) for ref in resolution.refs)
            reply = Choose(choices)
        elif resolution.kind == "digest":
            reply = self._about_digest(thread.items, paths, question, history, audience, sink)
        else:
            reply = self._about_pr(resolution.refs[0], question, history, audience, sink)
        self._remember(thread.channel, thread.thread_ts, question, reply)
        return reply

    def _why(self, thread: DigestThread, ref: PRRef, audience: Audience) -> Reply:
        """Which of the channel's rules brought this PR into the digest, or left it out."""
        if not audience.may_see(ref.repo):
            return NotAllowed(ref, audience.named(ref.repo))
        in_digest = next((item for item in thread.items if item.listing.ref == ref), None)
        try:
            snapshot = self._cards.snapshot_by_ref(ref)
        except NotFound:
            return PRNotFound(ref)
        except SourceError as exc:
            if in_digest is None:
                return Unavailable(ref, exc.note if isinstance(exc, RateLimited) else None)
            snapshot = None
        listing = snapshot.listing if snapshot else in_digest.listing if in_digest else None
        assert listing is not None
        rules = tuple(explain(listing, snapshot, thread.window, thread.filters, thread.repos))
        if snapshot is not None and in_digest is not None and in_digest.card.source == "heuristic":
            # A card made without a model: what set its verdict is said as the channel's rules are.
            # Details quote the PR (a heading, a figure), so they are sanitized as its text is.
            url = repo_url(listing.url)
            rules += tuple(replace(rule, detail=sanitize_text(rule.detail, url)) for rule in verdict_rules(snapshot))
        if in_digest is not None and in_digest.boost is not None:
            # The channel's feedback moved it within its verdict group: say by how many PRs of which area.
            boost = in_digest.boost
            rules += (Rule("feedback", boost.up, prs=boost.prs, area=boost.area),)
        return Why(listing, rules, in_digest is not None, thread.window)

    def _elsewhere(self, question: str, audience: Audience, sink: AnswerSink | None) -> Reply:
        """An @mention outside a digest thread, or the app's DM: the PR must be named (or named
        before in the thread), or the question be one across days."""
        reading = self._read(question, audience)
        across = self._across_days(question, audience, reading, digest=False, sink=sink)
        if across is not None:
            return across  # answered from cards alone: the thread's earlier turns are not read
        channel, thread_ts = audience.channel, audience.thread_ts
        turns = self._threads.turns(channel, thread_ts) if thread_ts else []
        history = visible_turns(turns, audience, hidden=False)
        refs = refs_said(question, audience.default_repo)
        refused = audience.refused(refs)
        reply: Reply
        if refused is not None:
            reply = NotAllowed(refused, audience.named(refused.repo))
        elif len(refs) > 1:
            reply = Choose(tuple(_bare(ref, self._web_base) for ref in refs))
        elif refs or previous_pr(history):
            ref = refs[0] if refs else previous_pr(history)
            assert ref is not None
            reply = self._about_pr(ref, question, history, audience, sink)
        else:
            filled = self._filled(question, audience, sink)
            if filled is None:
                return Help(reading.topic[:3], reading.span) if reading is not None else Help()
            reply = filled
        if thread_ts:
            self._remember(channel, thread_ts, question, reply)
        return reply

    def _filled(self, question: str, audience: Audience, sink: AnswerSink | None) -> Reply | None:
        """The answer to a question the rules could not read, from the model's reading of it
        (within the budget, paid like an answer), or None: then the help is said."""
        if self._across is None or (self._account is not None and not self._account.allows()):
            return None
        if not _asks_something(question):
            return None  # "hello there": no question for the model to read, and no tokens spent
        tally = self._tally()
        try:
            reading = self._across.read_by_model(question, audience, tally)
        finally:
            if self._account is not None:
                self._account.record(tally, None, self._payer(audience.channel))
        if reading is None:
            return None
        return self._finished(self._across.answer(reading, audience), question, audience, sink)

    def _read(self, question: str, audience: Audience) -> Reading | None:
        """What the question asks (questions/reading.py), read once per question; None without
        questions across days."""
        return self._across.reading(question, audience) if self._across is not None else None

    def _finished(
        self,
        reply: AcrossMatches | AcrossRefused | InRelease,
        question: str,
        audience: Audience,
        sink: AnswerSink | None,
    ) -> Reply:
        """Matches as they are answered: a count as counted, any other list written by the model
        from the matches' cards where one is configured."""
        if isinstance(reply, AcrossMatches) and reply.intent != "count":
            return self._written(reply, question, audience, sink)
        return reply

    def named_not_allowed(self, question: str, audience: Audience) -> str | None:
        """The repository a question across days names (as typed) that the audience may not see,
        or None: such a question is refused to the asker alone, before anything is said in the
        thread (slack/listeners/questions.py), as a PR of it would be."""
        if self._across is None:
            return None
        asked = self._across.read(question, audience)
        if asked is None or asked.repo is None or audience.may_see(asked.repo):
            return None
        return asked.repo

    def _across_days(
        self, question: str, audience: Audience, reading: Reading | None, *, digest: bool, sink: AnswerSink | None
    ) -> Reply | None:
        """The answer to a question across days (questions/across/days.py), or None when it is not one.
        In a digest's thread, "today's PRs" are the digest's: answered from its items, as before."""
        if self._across is None or reading is None or not reading.across:
            return None
        if digest and _the_digests_own(reading):
            return None
        answered = self._across.answer(reading, audience)
        if isinstance(answered, AcrossMatches) and answered.intent == "one" and answered.items:
            return self._the_one(answered, question, audience, sink)  # remembered there
        reply = self._finished(answered, question, audience, sink)
        if audience.thread_ts:
            self._remember(audience.channel, audience.thread_ts, question, reply)
        return reply

    def _among_the_digests(
        self, question: str, audience: Audience, thread: DigestThread, reading: Reading | None, sink: AnswerSink | None
    ) -> Reply | None:
        """A question about the digest's own PRs by person, count, size or topic ("anything from
        Yongye Zhu in here?", "the biggest one", "which of these touch .buildkite?"): the rules of
        questions across days, over the digest's PRs; None for the digest's other questions."""
        if self._across is None or reading is None:
            return None
        if reading.intent == "one" and reading.span is None and not reading.named:
            # "what does the moe change do?": the digest's PR it names, if it has one; else the
            # question is about a PR of other days (across days, below).
            found = self._across.answer_digest(reading, audience, thread)
            return self._the_one(found, question, audience, sink) if found.items else None
        if _after_one_elsewhere(reading):
            # "find the PR that fixes mrope": the digest's, if it has it; else this channel's
            # other digests and the last week (across days, below).
            found = self._across.answer_digest(reading, audience, thread)
            if not found.items:
                return None
            reply = self._finished(found, question, audience, sink)
            self._remember(thread.channel, thread.thread_ts, question, reply)
            return reply
        if not _about_the_digests_prs(reading):
            return None
        reply = self._finished(self._across.answer_digest(reading, audience, thread), question, audience, sink)
        self._remember(thread.channel, thread.thread_ts, question, reply)
        return reply

    def _written(
        self, matches: AcrossMatches, question: str, audience: Audience, sink: AnswerSink | None
    ) -> AcrossMatches:
        """The matches with their answer written by the model from their cards, when one is
        configured and the budget allows: never a PR fetched for it, never a card made on the
        spot. Matching PRs without a card are asked of the workers (within the token budget)."""
        payer = self._payer(audience.channel)
        untold = [item.listing for item in matches.items if item.card is None]
        # Without a model no card would be written for them (nor an answer): nothing is queued.
        queued = self._cards.queue(untold, audience.language, payer) if untold and self._answerer else 0
        if self._answerer is None or not carded_items(matches) or not self._allows():
            return replace(matches, queued=queued)
        tally = self._tally()
        try:
            # The list is the reply; the model's prose only stands above it (questions/across/summaries.py).
            answer = write_summary(self._answerer, matches, Question(question, (), audience.language), tally, sink)
        finally:
            if self._account is not None:
                self._account.record(tally, matches.repo, payer)
        return replace(matches, answer=answer, queued=queued)

    def _the_one(self, matches: AcrossMatches, question: str, audience: Audience, sink: AnswerSink | None) -> Reply:
        """ "the lamport PR": one clear match is answered as if it had been named; several are
        offered to choose from."""
        if len(matches.items) > 1:
            reply: Reply = Choose(tuple(item.listing for item in matches.items))
            if audience.thread_ts:
                self._remember(audience.channel, audience.thread_ts, question, reply)
            return reply
        turns = self._threads.turns(audience.channel, audience.thread_ts) if audience.thread_ts else []
        history = visible_turns(turns, audience, hidden=False)
        return self._about_pr_remembered(matches.items[0].listing.ref, question, history, audience, sink)

    def _about_pr_remembered(
        self, ref: PRRef, question: str, history: list[Turn], audience: Audience, sink: AnswerSink | None
    ) -> Reply:
        reply = self._about_pr(ref, question, history, audience, sink)
        if audience.thread_ts:
            self._remember(audience.channel, audience.thread_ts, question, reply)
        return reply

    def _about_pr(
        self, ref: PRRef, question: str, history: list[Turn], audience: Audience, sink: AnswerSink | None
    ) -> Reply:
        if not audience.may_see(ref.repo):
            return NotAllowed(ref, audience.named(ref.repo))
        language, payer = audience.language, self._payer(audience.channel)
        try:
            snapshot = self._cards.snapshot_by_ref(ref)
        except NotFound:
            return PRNotFound(ref)
        except SourceError as exc:
            return Unavailable(ref, exc.note if isinstance(exc, RateLimited) else None)
        card = self._cards.card(snapshot, language, payer=payer).card
        paths = tuple(change.path for change in snapshot.files)
        if self._answerer is None:
            return CardReply(snapshot.listing, card, paths)
        if self._account is not None and not self._account.allows():
            return CardReply(snapshot.listing, card, paths, budget_spent=True)
        tally = self._tally()
        posed = Question(question, tuple(history), language)
        try:
            written = self._answerer.answer_pr(snapshot, card, posed, tally, sink)
        except BudgetSpent:  # what others under way hold has reached the budget: nothing was sent
            return CardReply(snapshot.listing, card, paths, budget_spent=True)
        except SummarizerError:
            return CardReply(snapshot.listing, card, paths, model_failed=True)
        finally:
            if self._account is not None:
                self._account.record(tally, snapshot.listing.repo, payer)
        answer = sanitize_answer(written, repo_url(snapshot.listing.url))
        if answer is None:
            return CardReply(snapshot.listing, card, paths, model_failed=True, unusable=True)
        return PRAnswer(snapshot.listing, answer, card, paths)

    def _about_digest(
        self,
        items: tuple[DigestItem, ...],
        paths: dict[PRRef, tuple[str, ...]],
        question: str,
        history: list[Turn],
        audience: Audience,
        sink: AnswerSink | None = None,
    ) -> Reply:
        account, language = self._account, audience.language
        # The PRs of the digest whose words the question uses: the list, with a model or without.
        asked = words(question)
        matches = tuple(
            item.listing
            for item in items
            if asked & words(f"{item.listing.title} {item.card.headline} {' '.join(paths.get(item.listing.ref, ()))}")
        )
        # Over the day's budget the model is not asked: the matches alone, as without a model.
        asking = self._answerer is not None and (account is None or account.allows())
        if self._answerer is not None and asking:
            by_name = {str(ref): found for ref, found in paths.items()}
            tally = self._tally()
            posed = Question(question, tuple(history), language)
            try:
                written = self._answerer.answer_digest(items, by_name, posed, tally, sink)
            except BudgetSpent:  # nothing was sent: the matches alone, as over the budget
                written, asking = "", False
            except SummarizerError:
                written = ""
            finally:
                if account is not None:
                    # A digest of one repository is that repository's; of several, no single one's.
                    names = {item.listing.repo.lower() for item in items}
                    repo = names.pop() if len(names) == 1 else None
                    account.record(tally, repo, self._payer(audience.channel))
            # Links may point into any repository of the digest, and nowhere else.
            repos = sorted({repo_url(item.listing.url) for item in items}) or [""]
            answer = sanitize_answer(written, *repos)
            # Above the list, citing no PR but the digest's, which its thread shows (core/checks/citations.py).
            shown = Citable.of((item.listing.repo, item.listing.number) for item in items)
            answer = keep_cited(answer, shown) if answer is not None else None
            if answer:
                return DigestAnswer(answer, matches)
        return DigestMatches(matches, model_failed=asking)

    def _allows(self) -> bool:
        """Whether the day's budget lets the model be asked (always, where nothing is counted)."""
        return self._account is None or self._account.allows()

    def _tally(self) -> Tally:
        """What one answer's requests spend, each held against the workspace's budget first."""
        return self._account.tally() if self._account is not None else Tally()

    def _payer(self, channel: str) -> Payer:
        return Payer(channel, self._account.workspace if self._account is not None else None)

    def _remember(self, channel: str, thread_ts: str, question: str, reply: Reply) -> None:
        listing = reply.about if isinstance(reply, PRAnswer | CardReply | Why) else None
        about = str(listing.ref) if listing else None
        self._threads.add_turn(channel, thread_ts, Turn("user", question, about))
        if isinstance(reply, PRAnswer | DigestAnswer | AcrossMatches) and reply.answer:
            self._threads.add_turn(channel, thread_ts, Turn("bot", reply.answer, about))


def _asks_something(question: str) -> bool:
    """Whether a message the rules could not read is a question at all (it asks, or asks for
    PRs), rather than a greeting or a thank-you: only a question is given to the model."""
    return "?" in question or "？" in question or _ASKING.search(question) is not None


_ASKING = lazy(
    r"\b(?:what|which|who|when|how|any|anything|show|list|tell|find|summari[sz]e)\b|什么|哪些|哪个|吗|多少|有没有|讲讲|介绍",
    re.IGNORECASE,
)


def _about_the_digests_prs(reading: Reading) -> bool:
    """Whether a question in a digest's thread (naming no other days, no PR) asks for some of the
    digest's PRs by person, count, size or topic, rather than about one PR or the digest at large."""
    if reading.named or reading.target is not None or reading.problem is not None or reading.intent == "one":
        return False  # "the Crusoe PR": among the digest's PRs by its rules, else across days
    if reading.span is not None and reading.span.kind != "today":
        return False
    if reading.author is not None or reading.intent in ("count", "biggest"):
        return True
    return bool(reading.terms) and (reading.here or reading.listing)


def _after_one_elsewhere(reading: Reading) -> bool:
    """A question after one PR by what it does ("find the PR that bumps torch"), naming no days
    and not "in this digest": it may be about a PR of another day."""
    return reading.seeking and not reading.here and reading.span is None and not reading.named and bool(reading.topic)


def _the_digests_own(asked: Reading) -> bool:
    """In a digest's thread, "today's PRs" and "any ROCm changes?" (no days named) are the
    digest's, answered from its items as before; a person, a count or other days are not."""
    if asked.target is not None or asked.author is not None or asked.intent != "list" or asked.problem is not None:
        return False
    if _after_one_elsewhere(asked):
        return False
    return asked.span is None or asked.span.kind == "today"


def visible_part(thread: DigestThread, audience: Audience) -> DigestThread:
    """The digest as the audience may still be told about it: its items and repositories of the
    repositories it may see only."""
    return replace(
        thread,
        repos=tuple(repo for repo in thread.repos if audience.may_see(repo)),
        items=tuple(item for item in thread.items if audience.may_see(item.listing.repo)),
    )


def nothing_visible(visible: DigestThread) -> bool:
    """Nothing of this digest may be discussed in its channel (see visible_part)."""
    return not visible.repos and not visible.items


def visible_turns(history: list[Turn], audience: Audience, *, hidden: bool) -> list[Turn]:
    """The earlier turns a follow-up may use: none about a PR of a repository not allowed here.

    `hidden`: part of the digest is hidden from this channel now, so turns about the digest as a
    whole go too, since an answer given before the channel was shared may name hidden PRs.
    """
    return [turn for turn in history if (not hidden if turn.pr is None else audience.may_see(_repo_of(turn.pr)))]


def _repo_of(pr: str) -> str:
    return pr.rpartition("#")[0]


def _bare(ref: PRRef, web_base: str) -> PRListing:
    """A listing for a PR we only know by reference (for a choice list)."""
    return PRListing(
        repo=ref.repo,
        number=ref.number,
        title="",
        body="",
        author="",
        url=pr_url(web_base, ref),
        merged_at=None,
        merge_sha=None,
    )
