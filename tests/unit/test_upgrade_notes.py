"""What to know before upgrading, found in the cards a release already has (releases/upgrade_notes.py)."""

from __future__ import annotations

import pytest

from bot.models import UpgradeNote
from bot.releases.upgrade_notes import kind_of, upgrade_notes


@pytest.mark.parametrize(
    ("caveat", "kind"),
    [
        ("This is a breaking change for custom schedulers.", "breaking"),
        ("Not backward compatible with configs written for 0.11.", "breaking"),
        ("Removes the --enable-foo flag; scripts passing it will fail.", "removed"),
        ("Drops support for Python 3.9.", "removed"),
        ("VLLM_USE_V0 is no longer read.", "removed"),
        ("The default block size is now 32 instead of 16.", "default"),
        ("Prefix caching is now enabled by default.", "default"),
        ("The old entry point is deprecated and will go in 0.13.", "deprecated"),
        ("Users must re-install the CUDA kernels after upgrading.", "migration"),
        ("Existing LoRA adapters need migration to the new format.", "migration"),
        ("与旧版本配置不兼容。", "breaking"),
        ("移除了 --enable-foo 参数。", "removed"),
        ("不再支持 Python 3.9。", "removed"),
        ("默认值改为 32。", "default"),
        ("前缀缓存默认开启。", "default"),
        ("旧接口已弃用。", "deprecated"),
        ("升级后需要重新编译内核。", "migration"),
    ],
)
def test_a_caveat_that_asks_something_of_an_upgrade_is_found(caveat: str, kind: str) -> None:
    assert kind_of(caveat) == kind


@pytest.mark.parametrize(
    "caveat",
    [
        "No tests cover the ROCm path.",
        "Only measured on H100.",
        "The fallback is slower on small batches.",
        "仅在 H100 上测试过。",
        "Removes a stale comment.",
        "缺少测试。",
    ],
)
def test_an_ordinary_caveat_is_not_an_upgrade_note(caveat: str) -> None:
    assert kind_of(caveat) is None


def test_a_title_counts_only_in_its_user_facing_forms() -> None:
    assert upgrade_notes([], "[Misc] Remove dead code in the scheduler", ()) == []
    assert upgrade_notes([], "[Frontend] Remove the deprecated --disable-log-requests", ()) == [
        UpgradeNote("removed", "[Frontend] Remove the deprecated --disable-log-requests")
    ]
    assert upgrade_notes([], "[Core] Change the default max_num_seqs", ())[0].kind == "default"
    assert upgrade_notes([], "[Bugfix] Fix a typo", ("breaking",)) == [UpgradeNote("breaking", "[Bugfix] Fix a typo")]


def test_a_bug_fixed_or_a_migration_inside_the_code_is_no_upgrade_note() -> None:
    assert upgrade_notes([], "[Bugfix] Fix LFM2 ShortConv prefix breaking quant ignore list", ()) == []
    assert upgrade_notes([], "[Kimi-K3] Migrate FlashKDA to PyTorch stable ABI", ()) == []
    headline = "Migrates the warmup to the new JIT infrastructure"
    assert upgrade_notes([], "[Perf] Add new warmup infrastructure", (), headline) == []
    assert upgrade_notes([], "[Core] BREAKING: drop the v0 engine", ())[0].kind == "breaking"


def test_caveats_come_before_the_title_and_each_is_said_as_written() -> None:
    notes = upgrade_notes(["Removes the --foo flag.", "No tests.", "默认值改为 32。"], "[BREAKING] Rework", ())
    assert notes == [UpgradeNote("removed", "Removes the --foo flag."), UpgradeNote("default", "默认值改为 32。")]
