from __future__ import annotations

from datetime import UTC, datetime

from bot.digests.filters import explain, first_match, keeps_files, keeps_listing
from bot.models import Filters, Window
from bot.questions.which_pr import is_why
from tests.unit.builders import make_listing, make_snapshot

WINDOW = Window(datetime(2026, 8, 5, tzinfo=UTC), datetime(2026, 8, 6, tzinfo=UTC))


def test_globs_treat_brackets_literally_and_stars_across_slashes() -> None:
    assert first_match("dependabot[bot]", ("dependabot[bot]",)) == "dependabot[bot]"
    assert first_match("renovate[bot]", ("*[bot]",)) == "*[bot]"
    assert first_match("dependabotb", ("dependabot[bot]",)) is None
    assert first_match("vllm/v1/core/sched.py", ("vllm/v1/*",)) == "vllm/v1/*"
    assert first_match("Alice", ("alice",)) == "alice"


def test_listing_and_file_filters() -> None:
    filters = Filters(exclude_authors=("*[bot]",), labels_include=("perf",), labels_exclude=("no-digest",))
    assert keeps_listing(filters, make_listing(author="alice", labels=("Perf",)))
    assert not keeps_listing(filters, make_listing(author="dependabot[bot]", labels=("perf",)))
    assert not keeps_listing(filters, make_listing(author="alice", labels=("perf", "no-digest")))
    assert not keeps_listing(filters, make_listing(author="alice", labels=()))
    paths = Filters(paths=("csrc/*",))
    assert keeps_files(paths, make_snapshot(files=[("csrc/a.cu", 3, 1)]))
    assert not keeps_files(paths, make_snapshot(files=[("docs/a.md", 3, 1)]))


def test_explain_names_the_rule_that_decided() -> None:
    filters = Filters(exclude_authors=("*[bot]",), labels_exclude=("no-digest",), paths=("vllm/*",))
    listing = make_listing(author="alice", labels=("no-digest",), merged_at=datetime(2026, 8, 5, 3, tzinfo=UTC))
    rules = explain(
        listing, make_snapshot(listing=listing, files=[("vllm/x.py", 1, 1)]), WINDOW, filters, (listing.repo,)
    )
    by_kind = {rule.kind: rule for rule in rules}
    assert by_kind["window"].kept and by_kind["window"].detail == "2026-08-05 03:00 UTC"
    assert by_kind["author"].kept
    assert not by_kind["labels_exclude"].kept and by_kind["labels_exclude"].detail == "no-digest"
    assert by_kind["paths"].kept and by_kind["paths"].detail == "vllm/x.py (vllm/*)"


def test_explain_outside_the_window_and_another_repo() -> None:
    late = make_listing(merged_at=datetime(2026, 8, 7, tzinfo=UTC))
    (repo, window) = explain(late, None, WINDOW, Filters(), (late.repo,))
    assert repo.kept and not window.kept
    (other,) = explain(late, None, WINDOW, Filters(), ("someone/else",))
    assert other.kind == "repo" and not other.kept


def test_why_questions() -> None:
    for text in ("why is #12 here?", "Why isn't #12 in the digest?", "why was #3 left out", "为什么 #12 没有出现？"):
        assert is_why(text), text
    for text in ("what does #12 change?", "why does #12 add a lock?"):
        assert not is_why(text), text
