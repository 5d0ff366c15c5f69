"""A stored snapshot keeps of each patch only what a card's or an answer's context can show
(core/prompting/patch_cut.py), and every context, card and answer made from it is the one made
from GitHub's whole patches: for any budget up to the one it was cut for, on random PRs and on
the data set's."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from devkit.doubles import FakeSource
from devkit.fakes import dataset
from devkit.scripted import ScriptedModel
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cards.heuristic.cards import heuristic_card
from bot.cards.service import CardService, ModelUse
from bot.cards.writer import ModelCardWriter
from bot.core.deadline import Budget
from bot.core.heuristic.patch_reads import readings
from bot.core.heuristic.signals import verdict_rules
from bot.core.pacing import Pacing
from bot.core.prompting.context import build_context, unlimited_coverage
from bot.core.prompting.drafts import CardDraft
from bot.core.prompting.patch_cut import cut_patch, cut_patches
from bot.models import Card, Coverage, FileChange, PatchCut, PRSnapshot, Question
from bot.questions.answerer import ModelAnswerer
from bot.store import codec
from bot.store.backends.memory import MemoryKV
from bot.store.repos.cards import CardStore, snapshot_key
from tests.shared_data import shared_rows
from tests.unit.builders import make_file, make_listing, make_snapshot, synth_patch

TOKENS = 12_000  # config.py's default token_budget
BUDGETS = (300, 1000, 3000, 6000, 9000, TOKENS)
CARD = Card("Faster decode", "read", 9, ("It fuses the kernels.",), (), (), "llm", Coverage(1, 1))
DRAFT = CardDraft(
    headline="Faster decode", verdict="read", minutes=9, why=["It fuses the kernels."], caveats=[], watch=[]
)


def hunk(lines: int, start: int = 1, text: str = "value = compute()") -> str:
    body = "\n".join(f"+{text} {start + n}" for n in range(lines))
    return f"@@ -{start},0 +{start},{lines} @@\n{body}\n"


def test_a_patch_a_context_may_show_whole_is_kept_whole() -> None:
    change = make_file("vllm/core.py", 40, 0)
    assert cut_patch(change, reach=TOKENS, tokens=TOKENS) is change


def test_a_large_file_keeps_the_hunks_a_context_can_show_and_says_how_many_there_were() -> None:
    patch = "".join(hunk(30, start=100 * n) for n in range(400))
    change = make_file("vllm/core.py", 12_000, 0, patch=patch)
    cut = cut_patch(change, reach=TOKENS, tokens=TOKENS)

    assert cut.cut == PatchCut(tokens=TOKENS, hunks=400)
    assert cut.patch is not None and len(cut.patch) < len(patch) // 5 and patch.startswith(cut.patch)
    snapshot = make_snapshot([change])
    for budget in BUDGETS:
        assert build_context(make_snapshot([cut]), budget) == build_context(snapshot, budget)
    assert " of 400 hunks shown)" in build_context(make_snapshot([cut]), TOKENS).text


def test_a_file_that_is_one_huge_hunk_keeps_the_head_a_clip_reads() -> None:
    change = make_file("vllm/new_model.py", 20_000, 0, patch=hunk(20_000), status="added")
    cut = cut_patch(change, reach=TOKENS, tokens=TOKENS)

    assert cut.patch is not None and len(cut.patch) == TOKENS * 3 + 2  # a character more, and a line end
    for budget in BUDGETS:
        assert build_context(make_snapshot([cut]), budget) == build_context(make_snapshot([change]), budget)
    assert "… (hunk truncated)" in build_context(make_snapshot([cut]), TOKENS).text


def test_files_after_one_that_fills_the_context_keep_less() -> None:
    first = make_file("vllm/engine.py", 3000, 0, patch="".join(hunk(30, start=100 * n) for n in range(100)))
    later = [
        make_file(f"vllm/m{n}.py", 600, 0, patch="".join(hunk(30, start=100 * k) for k in range(20))) for n in range(5)
    ]
    snapshot = make_snapshot([first, *later])
    cut = cut_patches(snapshot, TOKENS)

    kept = [len(change.patch or "") for change in cut.files[1:]]
    assert all(change.cut is not None for change in cut.files) and max(kept) < len(later[0].patch or "") // 4
    for budget in BUDGETS:
        assert build_context(cut, budget) == build_context(snapshot, budget)


def test_a_cut_that_would_hide_what_a_rule_reads_is_not_made() -> None:
    # A settings file whose last hunk sets a default: the card's kind says so (kind_default).
    last = hunk(30, start=99_999, text="use_the_larger_cache_by_default = True")
    change = make_file(
        "vllm/config/cache.py", 3030, 0, patch="".join(hunk(30, start=100 * n) for n in range(100)) + last
    )
    assert cut_patch(change, reach=TOKENS, tokens=TOKENS) is change


def test_a_patch_no_context_shows_keeps_only_what_the_rules_read() -> None:
    removed = make_file("vllm/old.py", 0, 3000, patch=synth_patch(0, 3000, hunks=20), status="removed")
    snapshot = make_snapshot([make_file("vllm/new.py", 10, 0), removed])
    cut = cut_patches(snapshot, TOKENS)

    assert cut.files[1].cut is not None and len(cut.files[1].patch or "") < 10
    assert readings(cut.files[1]) == readings(removed)
    assert build_context(cut, TOKENS) == build_context(snapshot, TOKENS)


# -- any PR, any budget ----------------------------------------------------------------------------

_LINE_TEXT = st.text(alphabet=st.sampled_from("ab =#/*\"'<!->中文\u200b\t@x1"), max_size=60)
_LINES = st.lists(st.tuples(st.sampled_from("+- "), _LINE_TEXT), min_size=1, max_size=120)


@st.composite
def _patches(draw: st.DrawFn) -> str:
    hunks = draw(st.lists(_LINES, min_size=1, max_size=12))
    return "\n".join(
        f"@@ -{n},1 +{n},1 @@ {draw(_LINE_TEXT)}\n" + "\n".join(mark + text for mark, text in lines)
        for n, lines in enumerate(hunks)
    )


_FILES = st.builds(
    FileChange,
    path=st.sampled_from(
        ["vllm/a.py", "vllm/b.cu", "tests/test_a.py", "docs/a.md", "vllm/config/x.py", ".github/workflows/ci.yml"]
    ).flatmap(lambda path: st.integers(0, 99).map(lambda n: path.replace(".", f"{n}.", 1))),
    status=st.sampled_from(["added", "removed", "modified", "renamed"]),
    additions=st.integers(0, 900),
    deletions=st.integers(0, 900),
    patch=st.one_of(st.none(), _patches()),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=st.lists(_FILES, max_size=8, unique_by=lambda change: change.path),
    body=st.text(max_size=600),
    tokens=st.integers(20, 2500),
    data=st.data(),
)
def test_any_context_of_a_cut_snapshot_is_the_whole_one_s(
    files: list[FileChange], body: str, tokens: int, data: st.DataObject
) -> None:
    snapshot = make_snapshot(files, body=body)
    cut = cut_patches(snapshot, tokens)
    for budget in data.draw(st.lists(st.integers(-10, tokens), min_size=1, max_size=4)):
        assert build_context(cut, budget) == build_context(snapshot, budget)
    assert [readings(change) for change in cut.files] == [readings(change) for change in files]
    assert unlimited_coverage(cut) == unlimited_coverage(snapshot)
    assert cut.serves(tokens) and (cut.serves(tokens + 1) == (cut == snapshot))


# -- the data set's PRs ----------------------------------------------------------------------------


def snapshot_of(row: dict[str, Any]) -> PRSnapshot:
    """A data-set row as the fake GitHub serves it: its files with synthesised patches."""
    files = []
    for spec in dataset.row_files(row):
        binary = bool(spec.get("binary"))
        patch = None if binary else dataset.synth_patch(spec["path"], spec["additions"], spec["deletions"]) or None
        files.append(
            FileChange(
                spec["path"],
                spec.get("status", "modified"),
                spec["additions"],
                spec["deletions"],
                patch,
                spec.get("previous_path"),
            )
        )
    listing = make_listing(
        repo="vllm-project/vllm", number=row["number"], title=row["title"], body=row.get("body") or ""
    )
    return PRSnapshot(listing, tuple(files))


def test_every_data_set_pr_reads_alike_cut_or_whole() -> None:
    cut_count = 0
    for row in shared_rows():
        snapshot = snapshot_of(row)
        cut = cut_patches(snapshot, TOKENS)
        cut_count += cut != snapshot
        for budget in BUDGETS:
            assert build_context(cut, budget) == build_context(snapshot, budget), (row["number"], budget)
        assert heuristic_card(cut, unlimited_coverage(cut), "en") == heuristic_card(
            snapshot, unlimited_coverage(snapshot), "en"
        )
        assert verdict_rules(cut) == verdict_rules(snapshot)
        # The heuristic card's coverage is the unlimited budget's, without building its context.
        assert unlimited_coverage(snapshot) == build_context(snapshot, 10_000_000).coverage
    assert cut_count >= 20  # the data set's larger PRs


# The data's fence is a new random id in each request (core/prompting/prompts.py).
_FENCE = re.compile(r"id=[0-9a-f]+")


def test_the_model_is_asked_the_same_of_a_stored_snapshot_as_of_github_s() -> None:
    larger = (snapshot_of(row) for row in shared_rows())
    for whole in [snapshot for snapshot in larger if cut_patches(snapshot, TOKENS) != snapshot][:6]:
        store = CardStore(MemoryKV())
        cards = CardService(FakeSource(whole), store, None, use=ModelUse(context_tokens=TOKENS))
        assert cards.snapshot(whole.listing) == whole  # read from GitHub: whole
        stored = cards.cached_snapshot(whole.listing)
        assert stored is not None and stored != whole and stored.serves(TOKENS)

        model = ScriptedModel(DRAFT, DRAFT, "An answer.", "An answer.")
        pacing = Pacing(model.clock, model.clock.sleep)
        writer = ModelCardWriter(model, token_budget=TOKENS, budget=Budget(100.0, 0), pacing=pacing)
        answerer = ModelAnswerer(model, token_budget=TOKENS, budget=Budget(100.0, 0), pacing=pacing)
        question = Question("Which files change the scheduler?", (), "en")
        cards_made = [writer.card(snapshot, "en") for snapshot in (whole, stored)]
        answers = [answerer.answer_pr(snapshot, CARD, question) for snapshot in (whole, stored)]

        assert cards_made[0] == cards_made[1] and answers[0] == answers[1]
        asked = [[_FENCE.sub("id=…", message.content) for message in call.messages] for call in model.calls]
        assert asked[0] == asked[1] and asked[2] == asked[3]
        assert cards.fallback(stored, "en") == cards.fallback(whole, "en")


def test_a_snapshot_cut_for_a_smaller_context_is_read_from_github_again() -> None:
    whole = make_snapshot([make_file("vllm/new_model.py", 20_000, 0, patch=hunk(20_000), status="added")])
    store = CardStore(MemoryKV())
    source = FakeSource(whole)

    def read(tokens: int | None) -> PRSnapshot:
        return CardService(source, store, None, use=ModelUse(context_tokens=tokens)).snapshot(whole.listing)

    assert read(TOKENS) == whole  # read from GitHub, and stored cut
    assert read(TOKENS).files[0].cut is not None  # read from the store
    assert read(TOKENS * 2) == whole  # a larger context reads GitHub again
    assert read(None) == whole  # and so does one that keeps patches whole
    assert len(source.fetched) == 3


def test_a_snapshot_stored_whole_before_the_cut_is_served_as_it_is() -> None:
    whole = make_snapshot([make_file("vllm/new_model.py", 20_000, 0, patch=hunk(20_000), status="added")])
    plain = codec.unpacked(codec.dump_snapshot(whole))
    assert isinstance(plain, bytes)
    for older in (plain, codec.packed(plain)):  # before compression, and compressed before the cut
        kv = MemoryKV()
        store = CardStore(kv)
        store.put_snapshot(whole)
        revision = store.get_revision(whole.ref)
        assert revision is not None
        kv.set(snapshot_key(whole.ref, revision), older, None)
        source = FakeSource(whole)
        assert CardService(source, store, None, use=ModelUse(context_tokens=TOKENS)).snapshot(whole.listing) == whole
        assert source.fetched == []


# -- every reader of a patch is one the cut knows --------------------------------------------------

# Where a patch's text is read: the context (whose cut this is), the rules patch_reads.py lists
# (wording.py through shape.py's kind_of), the GitHub adapter that builds it and files.py's
# "no patch" test. A new reader must keep what it reads in a cut patch, or be listed in readings().
KNOWN_READERS = {
    "bot/core/prompting/context.py",
    "bot/core/prompting/patch_cut.py",
    "bot/core/heuristic/change_kinds.py",
    "bot/core/heuristic/patch_reads.py",
    "bot/core/heuristic/shape.py",
    "bot/core/heuristic/files.py",
    "bot/sources/github.py",
}
_READ = re.compile(r"\.patch\b(?!_)")


def test_every_module_that_reads_a_patch_is_known_to_the_cut() -> None:
    root = Path(__file__).resolve().parents[2]
    readers = {
        str(path.relative_to(root))
        for path in (root / "bot").rglob("*.py")
        if _READ.search(path.read_text(encoding="utf-8"))
    }
    assert readers == KNOWN_READERS
