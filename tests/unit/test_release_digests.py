"""A release as a digest (releases/digests.py): every PR of the range with its card, none
outside it, grouped by area with read-worthy groups first, "before you upgrade" gathered from
the cards' caveats, and a second run that asks GitHub for nothing."""

from __future__ import annotations

from datetime import UTC, datetime

from devkit.doubles import FakeSource

from bot.cards.service import CardService
from bot.core.usage import Tally
from bot.digests.areas import group_area
from bot.digests.build import DigestService
from bot.models import Card, Commit, Coverage, Language, PRSnapshot, Release, Verdict
from bot.releases.digests import ReleaseDigests
from bot.releases.ranges import ReleaseRanges
from bot.store.backends.memory import MemoryKV
from bot.store.repos.cards import CardStore
from bot.store.repos.releases import ReleaseStore
from tests.unit.builders import make_snapshot

REPO = "acme/widgets"


class Writer:
    """A card writer whose verdict and caveats follow the PR's number."""

    model = "release-test"
    prompt_version = "test"

    def __init__(self, verdicts: dict[int, Verdict], caveats: dict[int, tuple[str, ...]]) -> None:
        self.verdicts = verdicts
        self.caveats = caveats
        self.written: list[int] = []

    def card(self, snapshot: PRSnapshot, language: Language, tally: Tally | None = None) -> Card:
        number = snapshot.listing.number
        self.written.append(number)
        return Card(
            headline=snapshot.listing.title,
            verdict=self.verdicts.get(number, "skim"),
            minutes=5,
            why=(),
            caveats=self.caveats.get(number, ()),
            watch=(),
            source="llm",
            coverage=Coverage(files_total=len(snapshot.files), files_read=len(snapshot.files)),
            language=language,
        )


class Tags:
    """Two releases; the range between them has PRs 1–4, the PR 9 merged before is outside it."""

    def __init__(self) -> None:
        self.asked = 0

    def releases(self, repo: str) -> list[Release]:
        self.asked += 1
        return [Release("v1", datetime(2026, 11, 1, tzinfo=UTC)), Release("v2", datetime(2026, 11, 9, tzinfo=UTC))]

    def compare(self, repo: str, base: str, head: str) -> tuple[list[Commit], str]:
        self.asked += 1
        commits = [Commit(f"sha{n}", (f"sha{n - 1}",), f"Change {n} (#{n})") for n in range(1, 5)]
        return commits, "sha4"

    def pulls_of_commit(self, repo: str, sha: str) -> list[int]:
        raise AssertionError("every subject names its PR")


def snapshot(number: int, title: str, path: str) -> PRSnapshot:
    return make_snapshot([(path, 10 * number, 0)], number=number, title=title, merge_sha=f"sha{number}")


SNAPSHOTS = (
    snapshot(1, "[Kernel] Faster top-k", "csrc/topk.cu"),
    snapshot(2, "[CI] Retry flaky test", ".buildkite/test.yaml"),
    snapshot(3, "[Frontend] Remove the deprecated --disable-log-requests", "vllm/entrypoints/cli.py"),
    snapshot(4, "[kernel] Fuse the norm", "csrc/norm.cu"),
    snapshot(9, "[Kernel] Before the range", "csrc/old.cu"),
)


def service(writer: Writer, tags: Tags, source: FakeSource, kv: MemoryKV) -> ReleaseDigests:
    cards = CardService(source, CardStore(kv), writer)
    return ReleaseDigests(ReleaseRanges(tags, ReleaseStore(kv)), DigestService(source, cards), cards, source)


def test_a_release_holds_its_range_grouped_by_area_with_what_to_know_before_upgrading() -> None:
    writer = Writer({1: "read", 2: "skip", 4: "skim"}, {1: ("Only measured on H100.",)})
    tags, source, kv = Tags(), FakeSource(*SNAPSHOTS), MemoryKV()
    release = service(writer, tags, source, kv).build(REPO, "v2")

    assert release.base == "v1"
    assert sorted(item.listing.number for item in release.digest.items) == [1, 2, 3, 4]
    assert release.digest.total_merged == 4 and release.digest.count("read") == 1
    # One group per area whatever the tag's case, the one with a must-read first.
    assert [(group.area, [item.listing.number for item in group.items]) for group in release.groups] == [
        ("[Kernel]", [1, 4]),
        ("[Frontend]", [3]),
        ("[CI]", [2]),
    ]
    ((upgrade),) = release.upgrade
    assert upgrade.item.listing.number == 3 and upgrade.note.kind == "removed"


def test_a_second_run_asks_github_nothing_and_the_model_nothing() -> None:
    writer = Writer({}, {})
    tags, source, kv = Tags(), FakeSource(*SNAPSHOTS), MemoryKV()
    service(writer, tags, source, kv).build(REPO, "v2")
    asked, fetched, looked_up, written = tags.asked, len(source.fetched), len(source.looked_up), len(writer.written)

    again = service(writer, tags, source, kv).build(REPO, "v2")

    assert len(again.digest.items) == 4
    assert (tags.asked, len(source.fetched), len(source.looked_up), len(writer.written)) == (
        asked,
        fetched,
        looked_up,
        written,
    )


def test_a_pr_without_a_tag_is_grouped_by_where_it_changes() -> None:
    release = service(Writer({}, {}), Tags(), FakeSource(*SNAPSHOTS), MemoryKV()).build(REPO, "v2")
    (ci,) = [item for item in release.digest.items if item.listing.number == 2]
    assert group_area(ci) == "[CI]"
