"""Personal watches, pure: globs on changed paths, PR watches through links, the argument rules,
and the daily DM within Slack's limits."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from bot.core.watches import MAX_GLOB_CHARS, Candidate, Watch, WatchMatch, glob_problem, matching, path_matches
from bot.errors import UsageError
from bot.models import Card, Coverage, PRListing
from bot.render.slack.blocks import MAX_BLOCKS, MAX_MESSAGE_CHARS, message_chars
from bot.render.slack.watches import watch_dm_message, watch_list_text
from bot.slack.listeners.watch import parse
from bot.watches.dms import watch_dm_window


@pytest.mark.parametrize(
    ("glob", "path", "hit"),
    [
        ("vllm/attention/**", "vllm/attention/backends/flash.py", True),
        ("vllm/attention/**", "vllm/attention.py", False),
        ("vllm/attention", "vllm/attention/layer.py", True),  # no wildcard: the directory
        ("vllm/attention/", "vllm/attention/layer.py", True),
        ("vllm/attention", "vllm/attention_ops.py", False),
        ("docs/*.md", "docs/index.md", True),
        ("docs/*.md", "docs/api/index.md", False),  # one `*` stays in its segment
        ("docs/**/*.md", "docs/index.md", True),  # `**/` may be no directory at all
        ("docs/**/*.md", "docs/api/deep/index.md", True),
        ("*.md", "deep/down/README.md", True),  # no `/`: the file's name, at any depth
        ("setup.py", "tools/setup.py", True),
        ("Dockerfile", "docker/Dockerfile.cpu", False),
        ("csrc/[abc].cu", "csrc/[abc].cu", True),  # brackets are literal, as in GitHub paths
        ("csrc/[abc].cu", "csrc/a.cu", False),
        ("VLLM/Engine/**", "vllm/engine/llm_engine.py", True),  # case ignored, as in channel paths
        ("vllm/?.py", "vllm/a.py", True),
        ("vllm/?.py", "vllm/ab.py", False),
    ],
)
def test_a_glob_names_the_paths_a_shell_or_gitignore_would(glob: str, path: str, hit: bool) -> None:
    assert path_matches(glob, path) is hit


@pytest.mark.parametrize(
    ("glob", "problem"),
    [
        ("/", "watch.bad_glob_empty"),
        ("a" * (MAX_GLOB_CHARS + 1), "watch.bad_glob_long"),
        ("a\tb", "watch.bad_glob_space"),
        ("a\x00b", "watch.bad_glob_space"),
        ("vllm/**", None),
        ("a" * MAX_GLOB_CHARS, None),
    ],
)
def test_a_glob_is_one_printable_word_of_bounded_length(glob: str, problem: str | None) -> None:
    assert glob_problem(glob) == problem


def pr(
    number: int, *, title: str = "Change", body: str = "", paths: tuple[str, ...] = (), comments: tuple[str, ...] = ()
) -> Candidate:
    return Candidate("acme/widgets", number, title, body, comments, paths)


PATH = Watch("acme/widgets", "path", pattern="src/core/**")
ISSUE = Watch("Acme/Widgets", "pr", number=40)


def test_a_path_watch_matches_a_pr_of_its_repository_that_changes_a_matching_path() -> None:
    assert matching([PATH], pr(1, paths=("README.md", "src/core/x.py"))) == (PATH,)
    assert matching([PATH], pr(1, paths=("src/other/x.py",))) == ()
    assert matching([Watch("acme/other", "path", pattern="**")], pr(1, paths=("a",))) == ()


def test_a_pr_watch_matches_the_pr_itself_and_later_prs_that_link_to_it() -> None:
    assert matching([ISSUE], pr(40)) == (ISSUE,)
    assert matching([ISSUE], pr(41, body="Reverts acme/widgets#40")) == (ISSUE,)
    assert matching([ISSUE], pr(42, body="Follow-up to #40: the missing test")) == (ISSUE,)
    assert matching([ISSUE], pr(43, comments=("This fixes #40 for good.",))) == (ISSUE,)
    assert matching([ISSUE], pr(44, title='Revert "Something" (#40)')) == (ISSUE,)


def test_a_pr_watch_ignores_mere_mentions_and_other_repositories() -> None:
    assert matching([ISSUE], pr(41, body="Like #40, but for the parser")) == ()
    assert matching([ISSUE], pr(41, body="Fixes other/repo#40")) == ()
    assert matching([ISSUE], pr(41, body="```\nFixes #40\n```")) == ()  # code is not prose


def test_unwatch_names_a_watch_as_shown_or_by_its_glob() -> None:
    assert PATH.named_by("acme/widgets src/core/**") and PATH.named_by("ACME/widgets   src/core/**")
    assert PATH.named_by("src/core/**") and not PATH.named_by("src/**")
    assert ISSUE.named_by("acme/widgets#40") and not ISSUE.named_by("#40")


def test_watch_arguments_are_a_ref_a_repo_and_glob_or_list() -> None:
    assert parse(["list"], None, "/pr") == "list"
    assert parse(["acme/widgets#7"], None, "/pr") == Watch("acme/widgets", "pr", number=7)
    assert parse(["#7"], "acme/widgets", "/pr") == Watch("acme/widgets", "pr", number=7)
    assert parse(["acme/widgets", "src/**"], None, "/pr") == Watch("acme/widgets", "path", pattern="src/**")
    with pytest.raises(UsageError, match="not a repository"):
        parse(["acme", "src/**"], None, "/pr")
    with pytest.raises(UsageError, match="at most 200"):
        parse(["acme/widgets", "a" * 201], None, "/pr")
    with pytest.raises(UsageError, match="Usage"):
        parse(["acme/widgets", "src/**", "more"], None, "/pr")


def test_the_window_is_from_yesterdays_to_todays_nine_oclock_in_the_persons_zone() -> None:
    zone = ZoneInfo("Asia/Shanghai")
    assert watch_dm_window(zone, datetime(2026, 8, 6, 0, 59, tzinfo=UTC)) is None  # 08:59 there
    window, day = watch_dm_window(zone, datetime(2026, 8, 6, 1, 0, tzinfo=UTC)) or (None, "")
    assert day == "2026-08-06" and window is not None
    assert (window.start, window.end) == (datetime(2026, 8, 5, 1, tzinfo=UTC), datetime(2026, 8, 6, 1, tzinfo=UTC))
    # Across a DST change the windows still meet: 23 hours on the day clocks go forward.
    paris = ZoneInfo("Europe/Paris")
    window, _ = watch_dm_window(paris, datetime(2026, 3, 29, 12, tzinfo=UTC)) or (None, "")
    assert window is not None and (window.end - window.start).total_seconds() == 23 * 3600


def item(number: int, long: bool = False) -> WatchMatch:
    listing = PRListing(
        repo="acme/widgets",
        number=number,
        title=f"Change {number}",
        body="",
        author="alice",
        url=f"https://github.com/acme/widgets/pull/{number}",
        merged_at=datetime(2026, 8, 5, 3, tzinfo=UTC),
        merge_sha="f" * 40,
    )
    points = tuple("x" * 900 for _ in range(3)) if long else ()
    card = Card(
        headline=f"Headline {number}",
        verdict="skim",
        minutes=3,
        why=points,
        caveats=points,
        watch=(),
        source="llm",
        coverage=Coverage(files_total=1, files_read=1),
    )
    return WatchMatch(listing, card, (PATH,))


def test_the_dm_holds_every_card_that_fits_and_lists_the_rest() -> None:
    message = watch_dm_message([item(n) for n in range(1, 4)], "2026-08-06", "en")
    assert "Headline 3" in str(message.blocks) and "src/core/**" in str(message.blocks)
    many = watch_dm_message([item(n, long=True) for n in range(1, 40)], "2026-08-06", "en")
    assert len(many.blocks) <= MAX_BLOCKS and message_chars(many.blocks) <= MAX_MESSAGE_CHARS
    assert "more that do not fit" in str(many.blocks[-1]) and "acme/widgets#39" in str(many.blocks[-1])
    blocky = watch_dm_message([item(n) for n in range(1, 60)], "2026-08-06", "zh-CN")
    assert len(blocky.blocks) <= MAX_BLOCKS and "放不下" in str(blocky.blocks[-1])


def test_the_watch_list_shows_each_watch_as_typed() -> None:
    shown = watch_list_text([PATH, ISSUE], "/pr", "en")
    assert "`acme/widgets src/core/**`" in shown and "`Acme/Widgets#40`" in shown
    assert "/pr watch owner/repo" in watch_list_text([], "/pr", "en")
