"""DigestService in one process: a window's merged PRs, filtered, carded on threads, ordered, and
told about what went wrong (GitHub refusing a PR, its rate limit, the model). The source is an
in-process fake; cards come from CardService over a MemoryKV."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from devkit.doubles import FakeSource
from devkit.scripted import ScriptedModel

from bot.cards.service import CardService
from bot.cards.writer import ModelCardWriter
from bot.core.deadline import Budget
from bot.core.pacing import Pacing
from bot.core.prompting.drafts import CardDraft
from bot.core.usage import Tally
from bot.digests.build import PATHS_KEPT, DigestService
from bot.errors import ModelUnavailable, NotFound, RateLimited, SourceRefused
from bot.models import Card, Coverage, Digest, Filters, Language, Note, PRSnapshot, Verdict, Window
from bot.store.backends.memory import MemoryKV
from bot.store.repos.cards import CardStore
from tests.unit.builders import make_file, make_snapshot

REPO = "acme/widgets"
WINDOW = Window(datetime(2026, 8, 4, tzinfo=UTC), datetime(2026, 8, 5, tzinfo=UTC))


class VerdictWriter:
    """A CardWriter (bot/ports/model.py) whose verdict the test picks per PR number.

    Cards are written on many threads at once, so a scripted model's queue could not say which
    PR gets which verdict; this writer can.
    """

    model = "verdicts"
    prompt_version = "test"

    def __init__(self, verdicts: dict[int, Verdict]) -> None:
        self.verdicts = verdicts

    def card(self, snapshot: PRSnapshot, language: Language, tally: Tally | None = None) -> Card:
        return Card(
            headline=snapshot.listing.title,
            verdict=self.verdicts.get(snapshot.listing.number, "skim"),
            minutes=5,
            why=(),
            caveats=(),
            watch=(),
            source="llm",
            coverage=Coverage(files_total=len(snapshot.files), files_read=len(snapshot.files)),
            language=language,
        )


def pr(number: int, lines: int = 10, *, path: str = "widgets/core.py", **fields: Any) -> PRSnapshot:
    """PR `number` changing `lines` lines of `path`."""
    return make_snapshot([(path, lines, 0)], number=number, title=f"Widget change {number}", **fields)


def source_of(*snapshots: PRSnapshot, failures: dict[int, Exception] | None = None) -> FakeSource:
    """GitHub holding `snapshots`; a digest asks only for WINDOW and never for a PR by number."""
    return FakeSource(*snapshots, failures=failures, window=WINDOW, lookups=False)


def service(
    source: FakeSource, writer: VerdictWriter | ModelCardWriter | None = None, store: CardStore | None = None
) -> DigestService:
    return DigestService(source, CardService(source, store or CardStore(MemoryKV()), writer))


def numbers(digest: Digest) -> list[int]:
    """The digest's PRs by number, in its order."""
    return [item.listing.number for item in digest.items]


# -- order and counts -----------------------------------------------------------------------------


def test_items_come_read_then_skim_then_skip_larger_first_then_newer_first() -> None:
    source = source_of(pr(1, 500), pr(2, 10), pr(3, 300), pr(4, 200), pr(5, 300))
    verdicts: dict[int, Verdict] = {1: "skip", 2: "read", 3: "skim", 4: "read", 5: "skim"}
    digest = service(source, VerdictWriter(verdicts)).build((REPO,), WINDOW)

    # A 500-line skip still comes last; equal skims go by number, newest first.
    assert numbers(digest) == [4, 2, 5, 3, 1]
    assert [item.size for item in digest.items] == [200, 10, 300, 300, 500]
    assert (digest.count("read"), digest.count("skim"), digest.count("skip")) == (2, 2, 1)


def test_an_items_size_is_its_added_and_deleted_lines_and_its_paths_are_capped() -> None:
    files = [make_file(f"widgets/part_{n}.py", 2, 1, patch=None) for n in range(PATHS_KEPT + 5)]
    digest = service(source_of(make_snapshot(files, number=7))).build((REPO,), WINDOW)

    (item,) = digest.items
    assert item.size == 3 * (PATHS_KEPT + 5)
    assert item.paths == tuple(f"widgets/part_{n}.py" for n in range(PATHS_KEPT))


def test_every_repository_is_read_and_its_prs_listed_together() -> None:
    source = source_of(pr(1), pr(2, repo="acme/gadgets"), pr(3, repo="acme/other"))
    digest = service(source).build((REPO, "acme/gadgets"), WINDOW)

    assert digest.repos == (REPO, "acme/gadgets")
    assert sorted((item.listing.repo, item.listing.number) for item in digest.items) == [
        ("acme/gadgets", 2),
        (REPO, 1),
    ]
    assert digest.total_merged == 2


def test_an_empty_window_is_a_digest_with_nothing_shown() -> None:
    digest = service(source_of()).build((REPO,), WINDOW)
    assert (digest.total_merged, digest.shown, digest.notes, digest.model_failures) == (0, 0, (), 0)


# -- filters ----------------------------------------------------------------------------------------


def test_total_merged_counts_every_pr_and_shown_only_those_the_filters_keep() -> None:
    source = source_of(
        pr(1),
        pr(2, author="dependabot[bot]"),
        pr(3, labels=("WIP",)),
        pr(4, labels=("docs",)),
        pr(5, author="renovate[bot]", labels=("deps",)),
    )
    filters = Filters(exclude_authors=("*[bot]",), labels_exclude=("wip",))
    digest = service(source).build((REPO,), WINDOW, filters=filters)

    assert digest.total_merged == 5
    assert digest.shown == 2
    assert sorted(numbers(digest)) == [1, 4]
    assert digest.filters == filters
    # PRs left out by their list data cost no GitHub request.
    assert sorted(source.fetched_numbers) == [1, 4]


def test_labels_include_keeps_only_prs_with_one_of_those_labels() -> None:
    source = source_of(pr(1, labels=("Perf",)), pr(2, labels=("docs",)), pr(3))
    digest = service(source).build((REPO,), WINDOW, filters=Filters(labels_include=("perf", "kernel")))
    assert numbers(digest) == [1]


def test_a_path_filter_drops_prs_that_touch_none_of_those_paths_once_their_files_are_read() -> None:
    source = source_of(
        pr(1, path="widgets/render/core.py"),
        pr(2, path="docs/index.md"),
        pr(3, path="widgets/render/gpu.py"),
    )
    digest = service(source).build((REPO,), WINDOW, filters=Filters(paths=("widgets/render/*",)))

    assert sorted(numbers(digest)) == [1, 3]
    assert (digest.total_merged, digest.shown) == (3, 2)


def test_a_pr_whose_files_could_not_be_read_is_kept_by_a_path_filter() -> None:
    # Better a PR too many than one lost because GitHub did not list its files.
    source = source_of(pr(1, path="docs/index.md"), failures={1: SourceRefused("pull request files", 502)})
    digest = service(source).build((REPO,), WINDOW, filters=Filters(paths=("widgets/*",)))
    assert numbers(digest) == [1]


# -- what went wrong, in notes ---------------------------------------------------------------------


def test_a_pr_github_will_not_give_is_named_in_a_note_and_the_rest_complete() -> None:
    source = source_of(
        pr(1),
        pr(2),
        pr(3),
        pr(4),
        failures={4: SourceRefused("pull request", 502), 2: NotFound("error.github_not_found", what="pull request 2")},
    )
    digest = service(source, VerdictWriter({})).build((REPO,), WINDOW)

    assert digest.shown == 4  # the two unreadable PRs still get cards, from their titles
    cards = {item.listing.number: item.card for item in digest.items}
    assert {number for number, card in cards.items() if card.source == "llm"} == {1, 3}
    assert not cards[2].coverage.files_known and not cards[4].coverage.files_known
    (note,) = digest.notes
    assert note.kind == "note.unreadable"
    # In number order, each with GitHub's reason.
    assert note.values["prs"] == (
        Note("note.unreadable_pr", {"number": 2, "error": Note("error.github_not_found", {"what": "pull request 2"})}),
        Note(
            "note.unreadable_pr",
            {"number": 4, "error": Note("error.github_status", {"what": "pull request", "status": 502})},
        ),
    )
    # A title card because GitHub refused is not a model failure.
    assert digest.model_failures == 0


@pytest.mark.parametrize(
    ("limit", "kind", "extra"),
    [
        (
            RateLimited(datetime(2026, 8, 4, 13, 30, tzinfo=UTC), authenticated=True),
            "note.rate_limited_until",
            {"time": "13:30 UTC"},
        ),
        (RateLimited(None, authenticated=True), "note.rate_limited", {}),
        (RateLimited(None, authenticated=False), "note.rate_limited_anonymous", {}),
    ],
)
def test_once_the_rate_limit_runs_out_the_remaining_prs_are_carded_from_titles(
    limit: RateLimited, kind: str, extra: dict[str, str]
) -> None:
    snapshots = [pr(number) for number in range(1, 6)]
    store = CardStore(MemoryKV())
    store.put_snapshot(snapshots[0])  # read on an earlier run: needs no request
    source = source_of(*snapshots, failures={number: limit for number in range(1, 6)})
    digest = service(source, store=store).build((REPO,), WINDOW)

    assert 1 not in source.fetched_numbers
    assert digest.shown == 5
    (note,) = digest.notes
    assert note == Note(kind, {"count": 4, "shown": 5, **extra})
    complete = [item.listing.number for item in digest.items if item.card.coverage.files_known]
    assert complete == [1]


def test_cards_the_model_could_not_write_are_counted_and_noted() -> None:
    plain = CardDraft(headline="Tidier widget code", verdict="skim", minutes=5, why=[], caveats=[], watch=[])
    # Three cards on many threads: which PR gets which reply varies, the counts do not.
    model = ScriptedModel(ModelUnavailable("down"), ModelUnavailable("down"), plain)
    writer = ModelCardWriter(
        model, token_budget=8000, budget=Budget(100.0, 0), pacing=Pacing(model.clock, model.clock.sleep)
    )
    digest = service(source_of(pr(1), pr(2), pr(3)), writer).build((REPO,), WINDOW)

    assert len(model.calls) == 3
    assert digest.model_failures == 2
    assert digest.notes == (Note("note.model_degraded", {"count": 2, "shown": 3}),)
    assert sorted(item.card.source for item in digest.items) == ["heuristic", "heuristic", "llm"]


# -- progress, language, caching -----------------------------------------------------------------


def test_progress_counts_every_pr_the_list_filters_kept_up_to_the_total() -> None:
    source = source_of(pr(1), pr(2, author="dependabot[bot]"), pr(3, path="docs/a.md"), pr(4), pr(5))
    seen: list[tuple[int, int]] = []
    filters = Filters(exclude_authors=("*[bot]",), paths=("widgets/*",))
    digest = service(source).build(
        (REPO,), WINDOW, filters=filters, progress=lambda done, total: seen.append((done, total))
    )

    # PR 3 is read before its paths leave it out, so it counts towards the progress too.
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert digest.shown == 3


def test_cards_are_written_in_the_digests_language() -> None:
    digest = service(source_of(pr(1))).build((REPO,), WINDOW, language="zh-CN")
    assert digest.language == "zh-CN"
    assert [item.card.language for item in digest.items] == ["zh-CN"]


def test_a_second_digest_of_the_same_window_asks_neither_github_nor_the_model_again() -> None:
    source = source_of(pr(1), pr(2))
    plain = CardDraft(headline="Tidier widget code", verdict="skim", minutes=5, why=[], caveats=[], watch=[])
    model = ScriptedModel(plain, plain)
    writer = ModelCardWriter(
        model, token_budget=8000, budget=Budget(100.0, 0), pacing=Pacing(model.clock, model.clock.sleep)
    )
    digests = service(source, writer)

    first = digests.build((REPO,), WINDOW)
    second = digests.build((REPO,), WINDOW)
    assert first == second
    assert sorted(source.fetched_numbers) == [1, 2]
    assert len(model.calls) == 2
