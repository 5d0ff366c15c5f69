"""The one reading of a question (questions/reading.py), as people ask them in a busy
repository's channel, in English and Chinese, on a clock at Friday 2026-08-14. The days alone are
tested in test_dates.py; here, what else a question asks and whether it is one across days."""

from __future__ import annotations

from datetime import date

import pytest

from bot.models import PRRef
from bot.questions.reading import read_question

TODAY = date(2026, 8, 14)
REPO = "vllm-project/vllm"
KNOWN = frozenset({REPO, "acme/widgets"})

# (question, days: (first day, or None), topic, author, intent, verdict, across)
READINGS = [
    # topics and days
    ("what merged yesterday about ROCm?", "2026-08-13", ("rocm",), None, "list", None, True),
    ("hey bot, any xpu stuff yesterday pls", "2026-08-13", ("stuff", "xpu"), None, "list", None, True),
    ("wat merged on Aug 11 re: attention", "2026-08-11", ("attention", "wat"), None, "list", None, True),
    ("is there a PR about DeepGEMM in the last 3 days?", "2026-08-12", ("deepgemm",), None, "list", None, True),
    ("anything on spec decode on Sunday?", "2026-08-09", ("decode", "spec"), None, "list", None, True),
    ("any Kimi-K3 fixes this week?", "2026-08-10", ("fix", "kimi-k3"), None, "list", None, True),
    ("which PRs fixed bugs in Kimi-K3 on Aug 11?", "2026-08-11", ("fix", "kimi-k3"), None, "list", None, True),
    ("any CI changes between Aug 10 and Aug 12?", "2026-08-10", ("ci",), None, "list", None, True),
    ("what changed in vllm/v1/attention since Monday?", "2026-08-10", (), None, "list", None, True),
    ("were there any lora PRs last week", "2026-08-03", ("lora",), None, "list", None, True),
    ("show me the moe prs from 8/11", "2026-08-11", ("moe",), None, "list", None, True),
    ("what landed on 2026-08-04 in acme/widgets?", "2026-08-04", (), None, "list", None, True),
    ("昨天合并了哪些 ROCm 相关的 PR？", "2026-08-13", ("rocm",), None, "list", None, True),
    ("8月11日有哪些关于 Kimi-K3 的 PR？", "2026-08-11", ("kimi-k3",), None, "list", None, True),
    ("前天有 XPU 的改动吗", "2026-08-12", ("xpu",), None, "list", None, True),
    ("最近3天 DeepGEMM 相关的", "2026-08-12", ("deepgemm",), None, "list", None, True),
    ("上周二合并了什么关于 attention 的", "2026-08-11", ("attention",), None, "list", None, True),
    ("从8月10日到8月12日有哪些 CI 改动？", "2026-08-10", ("ci",), None, "list", None, True),
    ("本周 lora 有什么改动", "2026-08-10", ("lora",), None, "list", None, True),
    ("周日合并了哪些 PR", "2026-08-09", (), None, "list", None, True),
    # no days: the recent ones, when the question asks for PRs about something
    ("anything on XPU?", None, ("xpu",), None, "list", None, True),
    ("any ROCm changes?", None, ("rocm",), None, "list", None, True),
    ("is there a PR about DeepGEMM?", None, ("deepgemm",), None, "list", None, True),
    ("XPU 相关的", None, ("xpu",), None, "list", None, True),
    ("有没有 mamba 的 PR", None, ("mamba",), None, "list", None, True),
    # no days, after one PR by what it does: the recent ones too
    ("find the PR that bumps torch for ROCm", None, ("bumps", "rocm", "torch"), None, "list", None, True),
    ("which PR added FlashKDA?", None, ("flashkda",), None, "list", None, True),
    ("looking for the pull request that fixes mrope", None, ("fix", "mrope"), None, "list", None, True),
    ("哪个 PR 升级了 torch", None, ("torch", "升级"), None, "list", None, True),
    # people
    ("what did Nick Hill merge in the last 3 days?", "2026-08-12", (), "Nick Hill", "list", None, True),
    ("what did nhill merge yesterday", "2026-08-13", (), "nhill", "list", None, True),
    ("PRs by @mgoin this week", "2026-08-10", (), "mgoin", "list", None, True),
    ("prs from hmellor", None, (), "hmellor", "list", None, True),
    ("Harry Mellor's PRs this week", "2026-08-10", (), "Harry Mellor", "list", None, True),
    ("what has Wentao Ye merged since Monday?", "2026-08-10", (), "Wentao Ye", "list", None, True),
    ("nhill 最近合并了什么", "2026-08-08", (), "nhill", "list", None, True),
    ("Nick Hill 提交的 PR 有哪些", None, (), "Nick Hill", "list", None, True),
    # a PR by its title's words
    ("tell me about the lamport PR", None, ("lamport",), None, "one", None, True),
    ("what does the DeepGEMM fix do?", None, ("deepgemm", "fix"), None, "one", None, True),
    ("explain the mori-io change", None, ("mori-io",), None, "one", None, True),
    ("那个 lamport 的 PR 改了什么", None, ("lamport",), None, "one", None, True),
    # counts, sizes, verdicts
    ("how many PRs merged yesterday", "2026-08-13", (), None, "count", None, True),
    ("how many ROCm PRs landed this week?", "2026-08-10", ("rocm",), None, "count", None, True),
    ("昨天合并了多少个 PR", "2026-08-13", (), None, "count", None, True),
    ("the biggest PR this week", "2026-08-10", (), None, "biggest", None, True),
    ("what was the largest change on Aug 11?", "2026-08-11", (), None, "biggest", None, True),
    ("本周改动最大的 PR", "2026-08-10", (), None, "biggest", None, True),
    ("what should I read carefully from Sunday's digest", "2026-08-09", (), None, "list", "read", True),
    ("must-reads from yesterday?", "2026-08-13", (), None, "list", "read", True),
    ("昨天有哪些值得细读的", "2026-08-13", (), None, "list", "read", True),
    # relations
    ("did anything revert #50879?", None, (), None, "list", None, True),
    ("any follow-up to #50600 since monday?", "2026-08-10", (), None, "list", None, True),
    # about one PR, or a digest, not across days
    ("what does #50912 change?", None, (), None, "list", None, False),
    ("why was #50879 reverted?", None, (), None, "list", None, False),
    ("does this fix the bug from yesterday?", "2026-08-13", ("fix",), None, "list", None, False),
    ("how does the scheduler pick requests?", None, ("pick", "scheduler"), None, "list", None, False),
    ("thanks!", None, (), None, "list", None, False),
    ("为什么 #123 没有出现？", None, ("没有出现",), None, "list", None, False),
]


@pytest.mark.parametrize(("question", "day", "topic", "author", "intent", "verdict", "across"), READINGS)
def test_questions_as_people_ask_them(
    question: str,
    day: str | None,
    topic: tuple[str, ...],
    author: str | None,
    intent: str,
    verdict: str | None,
    across: bool,
) -> None:
    reading = read_question(question, TODAY, KNOWN, None, REPO)
    assert (reading.span.start.isoformat() if reading.span else None) == day
    assert reading.topic == topic
    assert reading.author == author
    assert (reading.intent, reading.verdict, reading.across) == (intent, verdict, across)


def test_a_repository_named_is_told_from_a_path() -> None:
    reading = read_question("what merged in acme/widgets this week about vllm/v1/core?", TODAY, KNOWN)
    assert (reading.repo, reading.paths) == ("acme/widgets", ("vllm/v1/core",))


@pytest.mark.parametrize(
    "question",
    [
        "acme/widgets 这周合并了哪些关于 cache 的改动？",
        "acme/widgets这周合并了哪些关于 cache 的改动？",
        "acme/widgets 提交的 PR 有哪些",
        "vllm/v1/core 最近合并了什么",
    ],
)
def test_an_owner_and_name_before_a_chinese_question_is_no_person(question: str) -> None:
    reading = read_question(question, TODAY, KNOWN, None, REPO)
    assert reading.author is None
    assert reading.repo in ("acme/widgets", None)


def test_a_chinese_question_opened_by_a_repository_asks_about_it() -> None:
    reading = read_question("acme/widgets 这周合并了哪些关于 cache 的改动？", TODAY, KNOWN, None, REPO)
    assert (reading.repo, reading.topic, reading.author) == ("acme/widgets", ("cache",), None)
    assert reading.span is not None and reading.span.start.isoformat() == "2026-08-10"


def test_a_bare_name_is_the_channels_repository() -> None:
    assert read_question("what merged in vllm yesterday?", TODAY, KNOWN, None, REPO).repo == REPO


def test_prs_named_outright_are_kept_in_order() -> None:
    reading = read_question("compare #12 and acme/widgets#7", TODAY, KNOWN)
    assert reading.named == (PRRef("acme/widgets", 7), PRRef("_/_", 12))


def test_a_revert_question_names_its_target() -> None:
    reading = read_question("was #50879 reverted this week?", TODAY, KNOWN)
    assert (reading.target, reading.relation, reading.named) == (50879, "revert", ())


def test_what_was_understood_is_listed() -> None:
    reading = read_question("how many PRs by nhill about xpu yesterday?", TODAY, KNOWN)
    assert reading.understood == ("days", "topic", "person", "count")


def test_the_biggest_prs_asks_for_several() -> None:
    assert read_question("the biggest PRs this week", TODAY, KNOWN).plural
    assert not read_question("the biggest PR this week", TODAY, KNOWN).plural


def test_a_run_of_letters_is_no_topic_to_say_back() -> None:
    # The help and the reply's first line say the topic back: 40,000 "x"s would not fit Slack.
    assert read_question("x" * 40_000, TODAY, KNOWN).topic == ()
    assert read_question("anything on " + "y" * 70 + " or xpu?", TODAY, KNOWN).topic == ("xpu",)
    assert read_question("what changed in " + "a/" * 20_000 + " this week?", TODAY, KNOWN).paths == ()


@pytest.mark.parametrize(
    ("question", "relation", "day"),
    [
        ("which PRs were reverted in the last 3 days?", "revert", "2026-08-12"),
        ("any reverts this week?", "revert", "2026-08-10"),
        ("any follow-ups since Monday?", "follow_up", "2026-08-10"),
        ("最近 3 天有哪些 PR 被回滚了？", "revert", "2026-08-12"),
        ("本周有哪些后续 PR？", "follow_up", "2026-08-10"),
        ("any reverts?", "revert", None),
    ],
)
def test_a_relation_asked_over_days_names_no_pr_and_keeps_no_topic(
    question: str, relation: str, day: str | None
) -> None:
    reading = read_question(question, TODAY, KNOWN, None, REPO)
    assert (reading.relation, reading.target, reading.topic, reading.across) == (relation, None, (), True)
    assert (reading.span.start.isoformat() if reading.span else None) == day


@pytest.mark.parametrize(
    ("question", "seeking"),
    [
        ("find the PR that bumps torch for ROCm", True),
        ("where is the PR for the lamport allreduce?", True),
        ("is there a PR about DeepGEMM?", True),
        ("哪个 PR 升级了 torch", True),
        ("which PRs touched attention?", False),
        ("where is the config read?", False),  # about the PR of the thread, not after one
    ],
)
def test_a_question_after_one_pr_is_told_from_one_after_several(question: str, seeking: bool) -> None:
    assert read_question(question, TODAY, KNOWN, None, REPO).seeking is seeking
