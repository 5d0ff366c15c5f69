"""The release a question names (core/release_words.py, through questions/reading.py): one tag, a
range of two, or which release holds a PR, in English and Chinese; never a figure, a Python
version or a PR number."""

from __future__ import annotations

from datetime import date

import pytest

from bot.core.release_words import WHICH_RELEASE, release_said
from bot.questions.reading import read_question

TODAY = date(2026, 12, 1)
REPOS = frozenset({"vllm-project/vllm"})


@pytest.mark.parametrize(
    ("question", "release", "topic"),
    [
        ("is #50912 in a release?", WHICH_RELEASE, ()),
        ("which release has #50912?", WHICH_RELEASE, ()),
        ("did #50879 get released?", WHICH_RELEASE, ()),
        ("#50912 在哪个版本？", WHICH_RELEASE, ()),
        ("#50912 发布了吗", WHICH_RELEASE, ()),
        ("what's in v0.12.0 about MoE?", "v0.12.0", ("moe",)),
        ("anything in 0.12.0 about xpu", "0.12.0", ("xpu",)),
        ("release 0.12 changes to attention", "0.12", ("attention",)),
        ("v0.12.0rc1 里有哪些 MoE 相关的 PR？", "v0.12.0rc1", ("moe",)),
        ("what changed between v0.11.0 and v0.12.0 in the scheduler?", "v0.11.0...v0.12.0", ("scheduler",)),
        ("from v0.11.0 to v0.12.0, any ROCm fixes?", "v0.11.0...v0.12.0", ("fix", "rocm")),
        ("v0.11.0...v0.12.0 kernels", "v0.11.0...v0.12.0", ("kernels",)),
        ("从 v0.11.0 到 v0.12.0 调度器有什么变化？", "v0.11.0...v0.12.0", ()),
        ("v0.11.0 和 v0.12.0 之间有哪些 ROCm 改动？", "v0.11.0...v0.12.0", ("rocm",)),
    ],
)
def test_a_release_question_is_read_with_its_release_and_topic(
    question: str, release: str, topic: tuple[str, ...]
) -> None:
    reading = read_question(question, TODAY, REPOS)
    assert reading.release == release and reading.across
    assert reading.span is None  # a version is never a day
    if topic:
        assert set(topic) <= set(reading.topic)


@pytest.mark.parametrize(
    "question",
    [
        "3.5x faster on python 3.11?",
        "what merged yesterday about ROCm?",
        "what was released yesterday?",  # no PR to place in a release: a question about days
        "what does #50912 change?",
        "the 1.6us decode kernel PR",
        "which PRs merged on 2026-11-29 touch attention?",
    ],
)
def test_no_release_where_none_is_named(question: str) -> None:
    assert read_question(question, TODAY, REPOS).release is None


def test_reading_a_long_message_for_releases_stays_linear() -> None:
    # A run of digits and dots no tag is made of, 40,000 characters: read at once, nothing found.
    assert release_said("1." * 20_000)[0] is None
