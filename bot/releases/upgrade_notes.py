"""What to know before upgrading (pure): a release's breaking changes, removed options, changed
defaults, deprecations and migrations, found in the cards it already has.

Read from what each card and PR already say (the card's caveats and headline, the PR's title and
labels), in English and Chinese, with no new card field: a new field would change the prompt and
with it every cached card, and a release digest lives on the cache. A title is held to a
narrower rule than a caveat: "Remove dead code" is housekeeping, "Remove the --foo flag" is not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.core.strings.patterns import lazy
from bot.models import UpgradeKind, UpgradeNote

# Checked in this order: a caveat that says both "breaking" and "removed" is breaking.
_CAVEAT_RULES: tuple[tuple[UpgradeKind, re.Pattern[str]], ...] = (
    (
        "breaking",
        lazy(
            r"\bbreaking(?:\s|-)change|\bbreaks?\s(?:backward|backwards|the\s)?\s?(?:compat\w*|api|existing|users?|configs?)"
            r"|\bbackwards?[\s-]incompatible|\bnot\sbackwards?[\s-]compatible|\bincompatible\swith\s(?:older|previous|existing)"
            r"|不兼容|破坏性|兼容性破坏|破坏兼容",
            re.IGNORECASE,
        ),
    ),
    (
        "removed",
        lazy(
            r"\b(?:removes?|removed|removing|drops?|dropped|dropping|deletes?|deleted)\s(?:the\s|support\sfor\s|its\s)?"
            r"(?:[\w.-]+\s){0,3}?(?:option|flag|argument|parameter|env(?:ironment)?\svar\w*|api|endpoint|field|setting|"
            r"backend|support|cli|--[\w-]+|config\w*)\b"
            r"|\bno\slonger\s(?:supported|accepted|available|works?|reads?)|移除了?|删除了?.{0,10}(?:参数|选项|接口|配置|支持)|不再支持",
            re.IGNORECASE,
        ),
    ),
    (
        "default",
        lazy(
            r"\bdefaults?\s(?:[\w.-]+\s){0,3}?(?:is\s|are\s)?(?:now|changed|changes|flipped|switched)\b"
            r"|\bnow\sdefaults?\sto\b"
            r"|\bchang(?:es|ed|ing)\s(?:the\s)?defaults?\b|\bnew\sdefault\b|\b(?:enabled|disabled|on|off)\sby\sdefault\snow\b"
            r"|\bnow\s(?:enabled|disabled|on|off)\sby\sdefault\b|默认值?(?:改为|变为|改成|变成|已|现在)|默认(?:启用|开启|关闭|禁用)",
            re.IGNORECASE,
        ),
    ),
    ("deprecated", lazy(r"\bdeprecat\w*|弃用|废弃", re.IGNORECASE)),
    (
        "migration",
        lazy(
            r"\bmigrat\w+|\b(?:must|need\sto|needs\sto|have\sto|should)\s(?:update|upgrade|change|rename|re-?install|rebuild|re-?run)\b"
            r"|\brequires?\s(?:a\s)?(?:newer|re-?install|rebuild|upgrade)|迁移|需要(?:升级|更新|修改|重新)|必须(?:升级|更新|修改)",
            re.IGNORECASE,
        ),
    ),
)

# A title says what was done, often to code no user calls: only these forms speak to users.
_TITLE_RULES: tuple[tuple[UpgradeKind, re.Pattern[str]], ...] = (
    ("breaking", lazy(r"\[breaking\]|\bbreaking(?:\s|-)changes?\b|不兼容|破坏性", re.IGNORECASE)),
    ("breaking", lazy(r"\bBREAKING\b")),  # in capitals only: "a prefix breaking quant" is a bug fixed
    (
        "removed",
        lazy(
            r"\b(?:remove|drop)\s(?:the\s)?(?:deprecated\s|support\sfor\s|--[\w-]+)"
            r"|\b(?:remove|drop)\s(?:the\s)?[\w.-]+\s(?:option|flag|argument|env\svar\w*|api|endpoint|backend)\b"
            r"|移除.{0,10}(?:参数|选项|接口|支持)",
            re.IGNORECASE,
        ),
    ),
    (
        "default",
        lazy(r"\b(?:change|flip|switch)\s(?:the\s)?default|\bdefault\sto\b|\benable\s[\w.-]+\sby\sdefault|默认", re.I),
    ),
    ("deprecated", lazy(r"\[deprecation\]|\bdeprecat\w*|弃用|废弃", re.IGNORECASE)),
)

# Labels maintainers put on such PRs (vLLM, and common GitHub practice).
_LABELS: dict[str, UpgradeKind] = {
    "breaking": "breaking",
    "breaking-change": "breaking",
    "breaking change": "breaking",
    "backwards-incompatible": "breaking",
    "deprecation": "deprecated",
    "deprecated": "deprecated",
    "migration": "migration",
}


def kind_of(text: str) -> UpgradeKind | None:
    """The kind of upgrade concern a caveat (or a headline) states, or None."""
    return next((kind for kind, rule in _CAVEAT_RULES if rule.search(text)), None)


def upgrade_notes(caveats: Iterable[str], title: str, labels: Iterable[str], headline: str = "") -> list[UpgradeNote]:
    """What one PR asks of someone upgrading: each caveat that says so, else its title or labels."""
    notes = [UpgradeNote(kind, caveat) for caveat in caveats if (kind := kind_of(caveat)) is not None]
    if notes:
        return notes
    # A headline says what was done, as a title does (without a model it is the title): held to
    # the title's narrower rules, so "Migrate FlashKDA to the stable ABI" is not an upgrade note.
    for said in (headline, title):
        kind = next((kind for kind, rule in _TITLE_RULES if said and rule.search(said)), None)
        if kind is not None:
            return [UpgradeNote(kind, said)]
    from_label = next((_LABELS[label.lower()] for label in labels if label.lower() in _LABELS), None)
    return [UpgradeNote(from_label, title)] if from_label is not None else []
