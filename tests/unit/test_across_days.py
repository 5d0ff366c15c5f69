"""Questions across days: the span, repository and topic read from en and zh-CN phrasings, the
windows they stand for in the channel's zone, and the answer made from cached cards only."""

from __future__ import annotations

import time
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest
from devkit.doubles import FakeSource

from bot.cards.service import CardService
from bot.core.links import Shown
from bot.core.refs import github_web_base
from bot.errors import RateLimited
from bot.models import (
    AcrossMatches,
    AcrossRefused,
    Audience,
    Comment,
    DigestItem,
    DigestThread,
    Language,
    PRListing,
    PRSnapshot,
    Reading,
    Span,
    Window,
)
from bot.questions.across.authors import Authors
from bot.questions.across.days import MAX_ITEMS, AcrossDays, Known
from bot.questions.across.spans import MAX_SPAN_DAYS, span_problem, span_window
from bot.questions.dates import read_days
from bot.questions.qa import QAService
from bot.questions.reading import MAX_TERMS, read_question
from bot.render.dates import days_text
from bot.render.slack.replies import reply_message
from bot.store.backends.memory import MemoryKV
from bot.store.history import DigestHistory
from bot.store.repos.authors import AuthorStore
from bot.store.repos.cards import CardStore
from bot.store.threads import ThreadStore
from tests.unit.builders import make_comment, make_snapshot
from tests.unit.test_catalogue import english_in


def parse_span(question: str, today: date) -> Span | None:
    read = read_days(question, today)
    return read if isinstance(read, Span) else None


def parse_across(
    question: str,
    today: date,
    known: frozenset[str],
    named: frozenset[str] | None = None,
    preferred: str | None = None,
) -> Reading | None:
    """The reading of a question across days, or None when it is about one PR or a digest."""
    reading = read_question(question, today, frozenset(repo.lower() for repo in known), named, preferred)
    return reading if reading.across else None


REPO = "vllm-project/vllm"
SECRET = "acme/secret"
KNOWN = frozenset({REPO, SECRET})
TUESDAY = date(2026, 12, 1)
NOW = datetime(2026, 12, 1, 9, 3, tzinfo=UTC)
SHANGHAI = ZoneInfo("Asia/Shanghai")


@pytest.mark.parametrize(
    ("question", "kind", "start", "end"),
    [
        ("which of today's PRs touch attention?", "today", date(2026, 12, 1), None),
        ("今天哪些 PR 涉及 attention？", "today", date(2026, 12, 1), None),
        ("what merged yesterday?", "yesterday", date(2026, 11, 30), date(2026, 12, 1)),
        ("昨天合并了什么？", "yesterday", date(2026, 11, 30), date(2026, 12, 1)),
        ("what merged in vllm this week about MoE?", "week", date(2026, 11, 30), None),
        ("本周 vllm 里关于 MoE 的 PR 有哪些？", "week", date(2026, 11, 30), None),
        ("anything big last week?", "last_week", date(2026, 11, 23), date(2026, 11, 30)),
        ("上周合并了哪些？", "last_week", date(2026, 11, 23), date(2026, 11, 30)),
        ("what merged in the last 3 days?", "days", date(2026, 11, 29), None),
        ("最近三天合并了什么？", "days", date(2026, 11, 29), None),
        ("过去 10 天有什么？", "days", date(2026, 11, 22), None),
        ("what changed in vllm/v1/attention since Monday?", "since", date(2026, 11, 30), None),
        ("since friday, anything about lora?", "since", date(2026, 11, 27), None),
        ("自周一以来 vllm/v1/attention 有什么变化？", "since", date(2026, 11, 30), None),
        ("since 2026-11-20 anything about lora", "since", date(2026, 11, 20), None),
    ],
)
def test_spans_are_read_in_english_and_chinese(question: str, kind: str, start: date, end: date | None) -> None:
    span = parse_span(question, TUESDAY)
    assert span is not None
    assert (span.kind, span.start, span.end) == (kind, start, end)


@pytest.mark.parametrize(
    ("question", "repo", "topic", "paths"),
    [
        ("what merged in vllm this week about MoE?", REPO, ("moe",), ()),
        ("本周 vllm 里关于 MoE 的 PR 有哪些？", REPO, ("moe",), ()),
        ("which of today's PRs touch attention?", None, ("attention",), ()),
        ("今天哪些 PR 涉及 attention？", None, ("attention",), ()),
        ("what changed in vllm/v1/attention since Monday?", None, (), ("vllm/v1/attention",)),
        ("自周一以来 vllm/v1/attention 有什么变化？", None, (), ("vllm/v1/attention",)),
        ("what merged in acme/secret this week?", SECRET, (), ()),
        ("上周 合并了哪些 关于 量化 的 PR", None, ("量化",), ()),
    ],
)
def test_the_repository_topic_and_paths_are_told_apart(
    question: str, repo: str | None, topic: tuple[str, ...], paths: tuple[str, ...]
) -> None:
    asked = parse_across(question, TUESDAY, KNOWN)
    assert asked is not None
    assert (asked.repo, asked.topic, asked.paths) == (repo, topic, paths)


@pytest.mark.parametrize(
    ("question", "target", "relation"),
    [
        ("did anything revert #50879?", 50879, "revert"),
        ("was #50879 reverted this week?", 50879, "revert"),
        ("has #50879 been reverted?", 50879, "revert"),
        ("有没有 PR 回滚了 #50879？", 50879, "revert"),
        ("#50879 被回滚了吗？", 50879, "revert"),
        ("any follow-up to #123 since monday?", 123, "follow_up"),
    ],
)
def test_revert_and_follow_up_questions_name_the_earlier_pr(question: str, target: int, relation: str) -> None:
    asked = parse_across(question, TUESDAY, KNOWN)
    assert asked is not None and (asked.target, asked.relation) == (target, relation)


@pytest.mark.parametrize(
    "question",
    [
        "what does #123 change?",
        "why was #50879 reverted?",
        "what does #50879 revert?",
        "how does the scheduler pick requests?",
        "为什么 #123 没有出现？",
        "does this fix the bug from yesterday?",
        "is this faster than yesterday's version?",
    ],
)
def test_questions_about_one_pr_are_not_across_days(question: str) -> None:
    assert parse_across(question, TUESDAY, KNOWN) is None


@pytest.mark.parametrize(
    "text",
    [
        "x" * 40_000,
        "this week " + "x" * 40_000,
        "did anything revert " + "a/" * 20_000,
        "this week " + "a/b/" * 10_000,
        "this week " + "x." * 20_000,
        "revert #" + "1" * 39_990,
        "最近" * 20_000,
    ],
)
def test_parsing_stays_linear_in_what_anyone_can_send(text: str) -> None:
    # Slack's longest message (refs.MAX_MESSAGE_CHARS): quadratic patterns took seconds here.
    started = time.perf_counter()
    parse_across(text, TUESDAY, KNOWN)
    assert time.perf_counter() - started < 0.5


def test_a_question_of_thousands_of_words_keeps_a_few_terms() -> None:
    asked = parse_across("what merged this week: " + " ".join(f"w{i}" for i in range(5000)), TUESDAY, KNOWN)
    assert asked is not None and len(asked.topic) == MAX_TERMS


def test_windows_are_the_channels_days_and_nearby_questions_share_one() -> None:
    # 09:03 UTC is 17:03 in Shanghai, still Tuesday there.
    today = Span("today", date(2026, 12, 1))
    window = span_window(today, SHANGHAI, NOW)
    assert window.start == datetime(2026, 12, 1, tzinfo=SHANGHAI)
    assert window.end == datetime(2026, 12, 1, 9, 10, tzinfo=UTC)
    assert span_window(today, SHANGHAI, NOW.replace(minute=8)) == window
    yesterday = span_window(Span("yesterday", date(2026, 11, 30), end=date(2026, 12, 1)), SHANGHAI, NOW)
    assert (yesterday.start, yesterday.end) == (
        datetime(2026, 11, 30, tzinfo=SHANGHAI),
        datetime(2026, 12, 1, tzinfo=SHANGHAI),
    )


def test_spans_too_long_or_not_begun_are_refused() -> None:
    assert span_problem(Span("days", date(2026, 9, 1)), TUESDAY) == "too_long"
    assert span_problem(Span("since", date(2027, 1, 1)), TUESDAY) == "future"
    assert span_problem(Span("days", date(2026, 12, 1) - (date(2026, 12, 31) - date(2026, 12, 1))), TUESDAY) is None


# -- the answer, from cached cards -------------------------------------------------------------


def _pr(number: int, title: str, files: list[tuple[str, int, int]], comments: tuple[Comment, ...] = ()) -> PRSnapshot:
    return make_snapshot(files, comments=comments, repo=REPO, number=number, title=title, merge_sha=f"{number:040d}")


MOE_BIG = _pr(101, "[Kernel] Faster fused MoE routing", [("vllm/model_executor/layers/fused_moe/router.py", 400, 20)])
MOE_SMALL = _pr(102, "[Bugfix][MoE] Filter packed expert weights", [("vllm/model_executor/moe.py", 10, 2)])
ATTENTION = _pr(103, "[Perf] Split KV in attention backends", [("vllm/v1/attention/backends/flash.py", 90, 10)])
BUMP = _pr(104, "Bump MoE config for H20", [("vllm/model_executor/layers/fused_moe/configs/h20.json", 3, 1)])
MOE_CARD = CardService(FakeSource(MOE_BIG), CardStore(MemoryKV()), None).card(MOE_BIG, "en").card
EARLIER = _pr(50879, "[Misc] Avoid importing `nixl_ep` on every `vllm serve` config", [("vllm/config.py", 5, 1)])
REVERT = _pr(
    51176,
    "Revert [Misc] Avoid importing `nixl_ep` on every `vllm serve` config (#50879)",
    [("vllm/config.py", 1, 5)],
)
FOLLOW = _pr(
    51200,
    "[Misc] Import nixl_ep lazily",
    [("vllm/config.py", 2, 1)],
    comments=(make_comment("Follow-up to #50879: the import is lazy now."),),
)


def _across(*snapshots: PRSnapshot, cached: tuple[PRSnapshot, ...] | None = None) -> tuple[AcrossDays, FakeSource]:
    source = FakeSource(*snapshots)
    cards = CardService(source, CardStore(MemoryKV()), None)
    for snapshot in snapshots if cached is None else cached:
        cards.card(cards.snapshot(snapshot.listing), "en")
    source.fetched.clear()
    across = AcrossDays(cards, now=lambda: NOW, zone_of=lambda channel: SHANGHAI, known=Known(lambda: KNOWN))
    return across, source


def _ask(across: AcrossDays, question: str, language: Language = "en") -> AcrossMatches | AcrossRefused:
    qa = QAService(None, ThreadStore(MemoryKV()), None, across=across)  # type: ignore[arg-type]  # no card is read
    reply = qa.answer(question, Audience("C1", frozenset({REPO}), language, thread_ts="1.0", default_repo=REPO))
    assert isinstance(reply, AcrossMatches | AcrossRefused)
    return reply


def test_a_topic_lists_matching_prs_from_their_cards_without_asking_github_per_pr() -> None:
    across, source = _across(MOE_BIG, MOE_SMALL, ATTENTION, BUMP)
    reply = _ask(across, "what merged in vllm this week about MoE?")
    assert isinstance(reply, AcrossMatches)
    assert [item.listing.number for item in reply.items] == [101, 102, 104]  # by verdict, then size
    assert all(item.card is not None for item in reply.items) and reply.title_only == 0
    assert reply.merged == 4 and reply.more == 0
    assert source.fetched == [] and source.looked_up == []


def test_paths_match_the_files_a_pr_changed() -> None:
    across, _ = _across(MOE_BIG, ATTENTION)
    reply = _ask(across, "what changed in vllm/v1/attention since Monday?")
    assert isinstance(reply, AcrossMatches) and [item.listing.number for item in reply.items] == [103]


def test_a_topic_word_matches_a_directory_or_a_file_name_as_a_title_does() -> None:
    """ "which PRs touched attention?" found only the PR whose title says it, though the reply
    says it matched "titles, cards, labels, files"."""
    titled = _pr(110, "[Bugfix][Attention] Guard sparse MLA workspace", [("vllm/model_executor/mla.py", 30, 2)])
    in_directory = _pr(111, "[Kernel] Optimize FA4 prefix lookup", [("vllm/v1/attention/backend.py", 60, 9)])
    file_named = _pr(112, "[Bugfix] Fix MLA dtype", [("vllm/model_executor/layers/mla_attention.py", 8, 2)])
    elsewhere = _pr(113, "[Misc] Attend to the logs", [("vllm/logger.py", 3, 1)])
    across, _ = _across(titled, in_directory, file_named, elsewhere, MOE_BIG)
    reply = _ask(across, "which PRs touched attention in the last 7 days?")
    assert isinstance(reply, AcrossMatches)
    assert sorted(item.listing.number for item in reply.items) == [110, 111, 112]


def test_a_word_only_like_a_file_name_still_counts_less_than_a_title() -> None:
    titled = _pr(120, "[Perf] Faster scheduler preemption", [("vllm/v1/core/sched/scheduler.py", 80, 5)])
    resembling = _pr(121, "[Misc] Tidy the core", [("vllm/v1/core/sched/schedulers_util.py", 8, 2)])
    across, _ = _across(titled, resembling)
    reply = _ask(across, "anything about scheduler preemption this week?")
    assert isinstance(reply, AcrossMatches) and [item.listing.number for item in reply.items] == [120]


def test_prs_without_a_card_are_matched_on_their_title_and_counted_never_fetched() -> None:
    across, source = _across(MOE_BIG, MOE_SMALL, cached=(MOE_BIG,))
    reply = _ask(across, "which of today's PRs touch MoE?")
    assert isinstance(reply, AcrossMatches)
    assert [item.listing.number for item in reply.items] == [101, 102]
    assert reply.items[1].card is None and reply.title_only == 1
    assert source.fetched == []


def test_long_lists_are_capped_and_the_rest_counted() -> None:
    many = [_pr(200 + i, f"[MoE] tune expert {i}", [("vllm/moe.py", i + 1, 0)]) for i in range(MAX_ITEMS + 3)]
    across, _ = _across(*many)
    reply = _ask(across, "anything about moe in the last 7 days?")
    assert isinstance(reply, AcrossMatches) and len(reply.items) == MAX_ITEMS and reply.more == 3
    text = reply_message(reply, "en", "/pr").text
    assert "…and 3 more." in text


def test_nothing_matched_is_said_plainly() -> None:
    across, _ = _across(MOE_BIG)
    reply = _ask(across, "anything about speculative decoding this week?")
    assert isinstance(reply, AcrossMatches) and reply.items == ()
    assert (
        "The 1 PR merged in vllm-project/vllm this week (Nov 30–Dec 1) does not mention"
        in reply_message(reply, "en", "/pr").text
    )


def test_a_revert_is_found_by_the_rules_digests_link_by() -> None:
    across, source = _across(EARLIER, REVERT, FOLLOW, MOE_BIG)
    reply = _ask(across, "did anything revert #50879?")
    assert isinstance(reply, AcrossMatches) and [item.listing.number for item in reply.items] == [51176]
    assert reply.target is not None and reply.target.number == 50879
    text = reply_message(reply, "en", "/pr").text
    assert "revert <https://github.com/vllm-project/vllm/pull/50879|#50879>" in text
    assert "<https://github.com/vllm-project/vllm/pull/51176|#51176>" in text
    follow = _ask(across, "any follow-up to #50879 since monday?")
    assert isinstance(follow, AcrossMatches) and [item.listing.number for item in follow.items] == [51200]
    assert source.fetched == []


def test_an_earlier_pr_known_only_by_number_links_to_the_githubs_own_host() -> None:
    source = FakeSource(REVERT)
    cards = CardService(source, CardStore(MemoryKV()), None)
    web = github_web_base("https://ghe.example.com/api/v3/")
    across = AcrossDays(
        cards, now=lambda: NOW, zone_of=lambda channel: SHANGHAI, known=Known(lambda: KNOWN), web_base=web
    )
    reply = _ask(across, "did anything revert #40000?")
    assert isinstance(reply, AcrossMatches) and reply.target is not None
    assert reply.target.url == f"https://ghe.example.com/{REPO}/pull/40000"
    assert github_web_base("https://api.github.com") == "https://github.com"
    assert github_web_base("http://127.0.0.1:8080") == "https://github.com"


def test_a_repository_the_channel_may_not_see_is_refused_before_github_is_asked() -> None:
    across, source = _across(MOE_BIG)
    reply = _ask(across, "what merged in acme/secret this week?")
    assert reply == AcrossRefused("not_allowed", SECRET)
    assert "can't answer about acme/secret here" in reply_message(reply, "en", "/pr").text
    assert source.fetched == [] and source.looked_up == []


def test_a_bare_name_stands_only_for_a_repository_the_channel_may_see() -> None:
    """ "vllm" where the workspace also follows a private "zeta/vllm", which sorts after it: the
    channel's own; and where this channel may see only other repositories, neither."""
    known = frozenset({REPO.lower(), "zeta/vllm"})
    asked = parse_across("what merged in vllm this week about moe?", TUESDAY, known, frozenset({REPO.lower()}), REPO)
    assert asked is not None and asked.repo == REPO.lower() and asked.topic == ("moe",)
    elsewhere = parse_across("what merged in vllm this week?", TUESDAY, known, frozenset({"acme/other"}))
    assert elsewhere is not None and elsewhere.repo is None  # the channel's default, not zeta/vllm


def test_a_span_too_long_gets_a_clear_message() -> None:
    across, _ = _across(MOE_BIG)
    reply = _ask(across, "what merged in the last 90 days?")
    assert isinstance(reply, AcrossRefused) and reply.reason == "too_long"
    assert f"at most {MAX_SPAN_DAYS} days" in reply_message(reply, "en", "/pr").text


def test_a_date_that_is_no_day_is_named_back_not_taken_for_a_long_span() -> None:
    across, source = _across(MOE_BIG)
    for question, said in (
        ("what merged since 2026-13-45?", '"2026-13-45" is not a date'),
        ("自2026-02-30以来合并了什么？", "“2026-02-30”不是一个日期"),
    ):
        reply = _ask(across, question, "zh-CN" if "自" in question else "en")
        assert isinstance(reply, AcrossRefused) and reply.reason == "not_a_date"
        assert said in reply_message(reply, "zh-CN" if "自" in question else "en", "/pr").text
    assert source.fetched == [] and source.looked_up == []


def test_the_reply_is_worded_in_chinese_with_pr_links() -> None:
    across, _ = _across(MOE_BIG, MOE_SMALL, ATTENTION)
    reply = _ask(across, "本周 vllm 里关于 MoE 的 PR 有哪些？", "zh-CN")
    text = reply_message(reply, "zh-CN", "/pr").text
    assert text.startswith("vllm-project/vllm 本周（11月30日–12月1日）合并的 3 个 PR 中，有 2 个与")
    assert "<https://github.com/vllm-project/vllm/pull/101|#101>" in text


def test_chinese_replies_carry_no_english_sentence_of_ours() -> None:
    across, _ = _across(MOE_BIG, MOE_SMALL, cached=(MOE_BIG,))
    for question in (
        "本周关于 MoE 的 PR 有哪些？",
        "最近 3 天合并了什么？",
        "有没有 PR 回滚了 #50879？",
        "最近 90 天合并了什么？",
    ):
        shown = reply_message(_ask(across, question, "zh-CN"), "zh-CN", "/pr").text
        assert english_in(shown) == [], shown


def test_mentions_and_foreign_links_in_titles_are_not_shown() -> None:
    loud = _pr(105, "[MoE] <!channel> faster routing, see <https://evil.example|here> <@U0123456789>", [])
    across, _ = _across(loud, cached=())
    reply = _ask(across, "anything about moe this week?")
    assert isinstance(reply, AcrossMatches) and reply.items[0].card is None
    shown = reply_message(reply, "en", "/pr").text
    assert "<!channel>" not in shown and "evil.example" not in shown and "<@U" not in shown


def test_a_named_pr_keeps_todays_one_pr_answer() -> None:
    across, _ = _across(MOE_BIG)
    qa = QAService(None, ThreadStore(MemoryKV()), None, across=across)  # type: ignore[arg-type]
    assert across.read("what did #101 change this week?", Audience("C1", frozenset({REPO}))) is None
    assert across.read("what merged this week?", Audience("C1", frozenset({REPO}))) is not None
    assert qa is not None


def _moe_digest_thread(*carded: PRSnapshot) -> tuple[QAService, DigestThread]:
    """A digest thread of Dec 1 showing MOE_BIG, and a QAService whose store holds `carded`'s
    cards, answering across days in Shanghai's zone."""
    cards = CardService(FakeSource(*carded), CardStore(MemoryKV()), None)
    for snapshot in carded:
        cards.card(cards.snapshot(snapshot.listing), "en")
    across = AcrossDays(cards, now=lambda: NOW, zone_of=lambda channel: SHANGHAI, known=Known(lambda: KNOWN))
    paths = ("vllm/model_executor/layers/fused_moe/router.py",)
    digest = DigestThread(
        "C1", "1.0", "2026-12-01", (REPO,), "en", (DigestItem(MOE_BIG.listing, MOE_CARD, size=420, paths=paths),)
    )
    return QAService(cards, ThreadStore(MemoryKV()), None, across=across), digest


def test_in_a_digest_thread_todays_prs_are_the_digests_and_other_days_are_across() -> None:
    qa, digest = _moe_digest_thread(MOE_BIG, MOE_SMALL)
    today = qa.answer(
        "which of today's PRs touch MoE?",
        Audience(digest.channel, frozenset({REPO}), "en", thread_ts=digest.thread_ts),
        digest,
    )
    # The digest's own PRs (answered from them, not from GitHub's list of the day).
    assert isinstance(today, AcrossMatches) and today.span.kind == "digest"
    assert [item.listing.number for item in today.items] == [MOE_BIG.listing.number]
    week = qa.answer(
        "what merged this week about MoE?",
        Audience(digest.channel, frozenset({REPO}), "en", thread_ts=digest.thread_ts),
        digest,
    )
    assert isinstance(week, AcrossMatches) and [item.listing.number for item in week.items] == [101, 102]


# -- what the reader still got wrong: people by name, a PR by what it does, relations over days --


def _asked_by_name(*snapshots: PRSnapshot, people: dict[str, str | Exception | None]) -> tuple[AcrossDays, FakeSource]:
    source = FakeSource(*snapshots, people=people)
    cards = CardService(source, CardStore(MemoryKV()), None)
    authors = Authors(source, AuthorStore(MemoryKV()))
    known = Known(lambda: KNOWN, people=authors.named)
    return AcrossDays(cards, now=lambda: NOW, zone_of=lambda channel: SHANGHAI, known=known), source


def _by(number: int, login: str) -> PRSnapshot:
    return make_snapshot([("vllm/x.py", 1, 1)], repo=REPO, number=number, title=f"Change {number}", author=login)


def test_a_name_two_authors_share_lists_the_prs_of_both_and_says_so() -> None:
    crowd = [_by(300 + i, f"dev{i}") for i in range(55)]
    people: dict[str, str | Exception | None] = {f"dev{i}": f"Dev Number{i}" for i in range(55)}
    across, source = _asked_by_name(
        *crowd,
        _by(401, "mgoin"),
        _by(402, "mishagoin"),
        people=people | {"mgoin": "Michael Goin", "mishagoin": "Misha Goin"},
    )
    reply = _ask(across, "what did Goin merge this week?")
    assert isinstance(reply, AcrossMatches) and sorted(item.listing.number for item in reply.items) == [401, 402]
    assert source.named == ["mgoin", "mishagoin"]  # not one profile per author of the week
    text = reply_message(reply, "en", "/pr").text
    assert "“Goin” is the name of 2 people here, so the PRs of each are listed: " in text
    assert "Michael Goin (@mgoin); Misha Goin (@mishagoin)" in text
    one = _ask(across, "what did Michael Goin merge this week?")
    assert isinstance(one, AcrossMatches) and [item.listing.number for item in one.items] == [401]
    assert "is the name of" not in reply_message(one, "en", "/pr").text


def test_a_display_name_from_github_is_escaped_where_it_is_said() -> None:
    people: dict[str, str | Exception | None] = {"ahill": "Ann Hill <!channel>", "nhill": "Nick Hill"}
    across, _ = _asked_by_name(_by(401, "ahill"), _by(402, "nhill"), people=people)
    reply = _ask(across, "what did Hill merge this week?")
    text = reply_message(reply, "en", "/pr").text
    assert "Ann Hill &lt;!channel&gt; (@ahill)" in text and "<!channel>" not in text


def test_names_the_hourly_limit_keeps_unread_are_said_with_when_it_resets() -> None:
    reset = datetime(2026, 12, 1, 10, 5, tzinfo=UTC)
    people: dict[str, str | Exception | None] = {"dev0": RateLimited(reset, authenticated=False), "nhill": "Nick Hill"}
    across, _ = _asked_by_name(_by(401, "dev0"), _by(402, "dev1"), people=people)
    reply = _ask(across, "what did Jane Roe merge this week?")
    assert isinstance(reply, AcrossMatches) and reply.items == () and reply.unread == 2
    text = reply_message(reply, "en", "/pr").text
    assert "The display names of 2 authors could not be read, so their PRs were not matched by name." in text
    assert "GitHub's rate limit is used up until 10:05 UTC." in text
    zh = reply_message(_ask(across, "Jane Roe 这周合并了哪些 PR？", "zh-CN"), "zh-CN", "/pr").text
    assert "有 2 位作者的显示名称无法读取" in zh


class _LimitedSource(FakeSource):
    def list_merged(self, repo: str, window: Window) -> list[PRListing]:
        raise RateLimited(datetime(2026, 12, 1, 10, 5, tzinfo=UTC), authenticated=True)


def test_a_spent_rate_limit_is_said_with_its_reset_as_a_card_says_it() -> None:
    cards = CardService(_LimitedSource(), CardStore(MemoryKV()), None)
    across = AcrossDays(cards, now=lambda: NOW, zone_of=lambda channel: SHANGHAI, known=Known(lambda: KNOWN))
    reply = _ask(across, "what merged this week about MoE?")
    assert isinstance(reply, AcrossRefused) and reply.reason == "unavailable"
    assert reply_message(reply, "en", "/pr").text == "GitHub's rate limit is used up until 10:05 UTC."
    limit = RateLimited(datetime(2026, 12, 1, 10, 5, tzinfo=UTC), authenticated=True)
    assert reply_message(reply, "zh-CN", "/pr").text == limit.in_language("zh-CN")


def test_reverts_asked_over_days_are_each_revert_beside_what_it_reverted() -> None:
    across, source = _across(EARLIER, REVERT, FOLLOW, MOE_BIG, ATTENTION)
    reply = _ask(across, "which PRs were reverted this week?")
    assert isinstance(reply, AcrossMatches) and [item.listing.number for item in reply.items] == [51176, 50879]
    text = reply_message(reply, "en", "/pr").text
    assert text.startswith(
        "Reverts merged in vllm-project/vllm this week (Nov 30–Dec 1), each beside the PR it reverts:"
    )
    zh = _ask(across, "本周有哪些 PR 被回滚了？", "zh-CN")
    assert isinstance(zh, AcrossMatches) and [item.listing.number for item in zh.items] == [51176, 50879]
    follow = _ask(across, "any follow-ups this week?")
    assert isinstance(follow, AcrossMatches) and [item.listing.number for item in follow.items] == [51200, 50879]
    assert source.fetched == []


def test_a_relation_asked_over_days_says_none_when_there_is_none() -> None:
    across, _ = _across(MOE_BIG, ATTENTION, EARLIER)
    reply = _ask(across, "which PRs were reverted in the last 3 days?")
    assert isinstance(reply, AcrossMatches) and reply.items == ()
    assert reply_message(reply, "en", "/pr").text.startswith(
        "No PR merged in vllm-project/vllm in the last 3 days (Nov 29–Dec 1) reverts another"
    )
    zh = reply_message(_ask(across, "最近 3 天有哪些后续 PR？", "zh-CN"), "zh-CN", "/pr").text
    assert zh.startswith(
        "从标题、描述和评审意见看，vllm-project/vllm 最近 3 天（11月29日–12月1日）合并的 PR 中没有其他 PR 的后续。"
    )


def test_a_pr_asked_for_by_what_it_does_is_looked_for_in_the_last_week() -> None:
    across, _ = _across(MOE_BIG, MOE_SMALL, ATTENTION, BUMP)
    reply = _ask(across, "find the PR that bumps the MoE config")
    # Every word of the description: "Bump MoE config", not the PRs that are only about MoE.
    assert isinstance(reply, AcrossMatches) and [item.listing.number for item in reply.items] == [104]
    assert reply_message(reply, "en", "/pr").text.startswith(
        "1 of the 4 PRs merged in vllm-project/vllm in the last 7 days (Nov 25–Dec 1) match"
    )
    none = _ask(across, "find the PR that bumps torch for ROCm")
    assert isinstance(none, AcrossMatches) and none.items == ()


def test_a_pr_asked_for_by_what_it_does_is_first_looked_for_in_the_channels_digests() -> None:
    old = _pr(90, "[ROCm] Bump torch to 2.12", [("requirements/rocm.txt", 2, 2)])
    store = CardStore(MemoryKV())
    earlier = CardService(FakeSource(old), store, None)
    earlier.card(earlier.snapshot(old.listing), "en")  # carded when its digest was posted
    kv = MemoryKV()
    DigestHistory(kv).record(
        "C1", [Shown(REPO, 90, old.listing.title, old.listing.merge_sha, "2026-11-20", "1.0", url=old.listing.url)]
    )
    source = FakeSource(MOE_BIG, BUMP)  # GitHub's list of the last 7 days does not hold #90
    cards = CardService(source, store, None)
    known = Known(lambda: KNOWN, history=DigestHistory(kv))
    across = AcrossDays(cards, now=lambda: NOW, zone_of=lambda channel: SHANGHAI, known=known)
    reply = _ask(across, "find the PR that bumps torch for ROCm")
    assert isinstance(reply, AcrossMatches) and [item.listing.number for item in reply.items] == [90]
    assert reply.span.kind == "digests"
    assert "in this channel's digests of Nov 20 match" in reply_message(reply, "en", "/pr").text
    # Not in the digests: the last 7 days of the repository.
    other = _ask(across, "find the PR that bumps the MoE config")
    assert isinstance(other, AcrossMatches) and [item.listing.number for item in other.items] == [104]
    assert other.span.kind == "days"


@pytest.mark.parametrize(
    ("question", "language", "said"),
    [
        (
            "what merged in the last 2 days?",
            "en",
            "2 PRs were merged in vllm-project/vllm in the last 2 days (Nov 30–Dec 1):",
        ),
        ("what merged yesterday?", "en", "in vllm-project/vllm yesterday (Nov 30):"),
        ("what merged today?", "en", "in vllm-project/vllm today (Dec 1):"),
        ("what merged this week?", "en", "in vllm-project/vllm this week (Nov 30–Dec 1):"),
        ("最近 2 天合并了什么？", "zh-CN", "vllm-project/vllm 最近 2 天（11月30日–12月1日）合并了 2 个 PR："),
        ("本周合并了什么？", "zh-CN", "vllm-project/vllm 本周（11月30日–12月1日）合并了"),
        ("what merged on 2026-11-28?", "en", "in vllm-project/vllm on 2026-11-28:"),  # its date said already
    ],
)
def test_a_spans_first_line_names_its_days(question: str, language: Language, said: str) -> None:
    across, _ = _across(MOE_BIG, ATTENTION)
    assert said in reply_message(_ask(across, question, language), language, "/pr").text.splitlines()[0]


def test_days_are_written_within_a_month_and_across_months() -> None:
    assert days_text(date(2026, 12, 3), date(2026, 12, 4), "en") == "Dec 3–4"
    assert days_text(date(2026, 11, 30), date(2026, 12, 4), "en") == "Nov 30–Dec 4"
    assert days_text(date(2026, 12, 4), date(2026, 12, 4), "en") == "Dec 4"
    assert days_text(date(2026, 12, 3), date(2026, 12, 4), "zh-CN") == "12月3日–4日"
    assert days_text(date(2026, 11, 30), date(2026, 12, 4), "zh-CN") == "11月30日–12月4日"


def test_in_a_digest_thread_a_pr_asked_for_by_what_it_does_is_the_digests_else_other_days() -> None:
    qa, digest = _moe_digest_thread(MOE_BIG, BUMP)
    audience = Audience(digest.channel, frozenset({REPO}), "en", thread_ts=digest.thread_ts)
    here = qa.answer("find the PR for faster fused MoE routing", audience, digest)
    assert isinstance(here, AcrossMatches) and here.span.kind == "digest"
    assert [item.listing.number for item in here.items] == [101]
    elsewhere = qa.answer("find the PR that bumps the MoE config", audience, digest)
    assert isinstance(elsewhere, AcrossMatches) and elsewhere.span.kind == "days"
    assert [item.listing.number for item in elsewhere.items] == [104]
