"""A PR's areas, the channel's votes tallied per area, and ranking within verdict groups (pure)."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.digests.feedback import areas, path_area, rank, tally
from bot.models import Card, Coverage, Digest, DigestItem, Verdict, Vote, Window
from bot.render.slack.blocks import FEEDBACK_ACTION, feedback_block, read_feedback_value, thread_messages
from tests.unit.builders import make_listing

WINDOW = Window(datetime(2026, 8, 4, tzinfo=UTC), datetime(2026, 8, 5, tzinfo=UTC))


def item(number: int, verdict: Verdict, paths: tuple[str, ...], title: str = "Change", labels: tuple[str, ...] = ()):
    card = Card("Headline", verdict, 3, (), (), (), "llm", Coverage(len(paths), len(paths)))
    return DigestItem(make_listing(number=number, title=title, labels=labels), card, 10, paths)


def digest(*items: DigestItem) -> Digest:
    return Digest(("acme/widgets",), WINDOW, len(items), items)


def test_a_path_area_is_its_first_three_directories() -> None:
    assert path_area("vllm/v1/attention/backends/flash_attn.py") == "vllm/v1/attention/"
    assert path_area("vllm/v1/attention/ops.py") == "vllm/v1/attention/"
    assert path_area(".buildkite/test-pipeline.yaml") == ".buildkite/"
    assert path_area("setup.py") is None


def test_areas_are_labels_title_tags_then_directories_once_each() -> None:
    found = areas(
        ["ready", "ci/build"],
        ["vllm/v1/attention/a.py", "vllm/v1/attention/b/c.py", ".buildkite/x.yaml", "README.md"],
        "[CI][ROCm] Fix the attention test",
    )
    assert found == ("ready", "ci/build", "[CI]", "[ROCm]", "vllm/v1/attention/", ".buildkite/")


def test_votes_count_prs_not_people_and_a_tie_counts_for_nothing() -> None:
    votes = [
        Vote("a#1", True, ("vllm/v1/attention/",)),
        Vote("a#1", True, ("vllm/v1/attention/",)),  # a second person, same PR
        Vote("a#2", True, ("vllm/v1/attention/",)),
        Vote("a#3", True, ("docs/",)),
        Vote("a#3", False, ("docs/",)),  # one up, one down: no signal
    ]
    counts = tally(votes)
    assert counts.direct["vllm/v1/attention/"].useful == 2
    assert "docs/" not in counts.direct


def test_ranking_moves_cards_within_their_verdict_group_only_and_says_why() -> None:
    counts = tally(
        [Vote(f"a#{n}", True, ("vllm/v1/attention/",)) for n in range(5)]
        + [Vote(f"b#{n}", False, ("[CI]", ".buildkite/")) for n in range(3)]
    )
    plain_read = item(1, "read", ("docs/x.md",))
    ci_read = item(2, "read", (".buildkite/pipeline.yaml",), "[CI] Pin the runner")
    attention_skim = item(3, "skim", ("vllm/v1/attention/backends/flash.py",))
    plain_skim = item(4, "skim", ("docs/y.md",))
    ranked = rank(digest(ci_read, plain_read, plain_skim, attention_skim), counts)
    assert [i.listing.number for i in ranked.items] == [1, 2, 3, 4]
    boosted = ranked.items[2].boost
    assert boosted is not None and (boosted.area, boosted.prs, boosted.up) == ("vllm/v1/attention/", 5, True)
    lowered = ranked.items[1].boost
    assert lowered is not None and not lowered.up and lowered.area in ("[CI]", ".buildkite/")
    assert ranked.items[0].boost is None


def test_a_tag_that_rides_along_with_ci_learns_nothing_from_it() -> None:
    counts = tally([Vote(f"b#{n}", False, ("[CI]", "[ROCm]")) for n in range(3)] + [Vote("b#9", False, ("[CI]",))])
    rocm = item(1, "read", ("vllm/platforms/rocm.py",), "[ROCm] Faster kernels")
    assert "[ROCm]" not in counts.direct
    assert rank(digest(rocm), counts).items[0].boost is None


def test_an_unmarked_directory_leans_on_its_marked_parent() -> None:
    counts = tally([Vote(f"b#{n}", False, (".buildkite/",)) for n in range(4)])
    ci = item(1, "skip", (".buildkite/scripts/xpu/build.sh",))
    other = item(2, "skip", ("vllm/a.py",))
    ranked = rank(digest(ci, other), counts)
    assert [i.listing.number for i in ranked.items] == [2, 1]
    assert ranked.items[1].boost is not None and ranked.items[1].boost.area == ".buildkite/"


def test_without_feedback_the_order_is_untouched() -> None:
    given = digest(item(1, "read", ("a/b.py",)), item(2, "read", ("c/d.py",)))
    assert rank(given, tally([])) is given


def test_every_thread_card_has_one_feedback_block_whose_values_read_back() -> None:
    items = tuple(item(n, "skim", (f"vllm/m{n}/x.py",)) for n in range(1, 66))
    messages = thread_messages(digest(*items))
    blocks = [block for message in messages for block in message.blocks]
    feedback = [block for block in blocks if block["type"] == "context_actions"]
    assert len(feedback) == 65
    assert all(len(message.blocks) <= 50 for message in messages)
    element = feedback[0]["elements"][0]
    assert element["type"] == "feedback_buttons" and element["action_id"] == FEEDBACK_ACTION
    ref, up = read_feedback_value(element["positive_button"]["value"]) or (None, False)
    assert ref is not None and (ref.number, up) == (1, True)
    assert read_feedback_value(element["negative_button"]["value"]) == (ref, False)
    assert read_feedback_value("up not-a-ref") is None


def test_the_feedback_block_is_in_the_channels_language() -> None:
    block = feedback_block(make_listing(), "zh-CN")
    assert block["elements"][0]["positive_button"]["text"]["text"] == "有用"
