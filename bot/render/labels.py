"""Words shared by every renderer, per language: verdict labels, counts, coverage (pure)."""

from __future__ import annotations

from collections import Counter

from bot.models import Card, Coverage, Digest, Language

# DESIGN.md §1: the verdict labels readers know, per channel language.
_VERDICT = {
    "en": {"skip": "Skip", "skim": "Skim (~{n} min)", "read": "Read carefully (~{n} min)"},
    "zh-CN": {"skip": "无需精读", "skim": "快速浏览（约 {n} 分钟）", "read": "值得精读（约 {n} 分钟）"},
}

# "unlisted" names GitHub's cap: its pulls/files endpoint lists at most 3,000 files per PR.
_WORDS = {
    "en": {
        "counts": "{merged} merged · {read} worth a careful read · {skim} to skim · {skip} to skip",
        "why": "Why",
        "caveats": "Caveats",
        "watch": "Watch",
        "coverage": "Coverage",
        "read_files": "read {read} of {total} files",
        "partly": "{n} partly",
        "skipped": "skipped {n}",
        "unlisted": "{n} not listed by GitHub (it lists at most 3,000)",
        "unknown_files": "files not read (GitHub's rate limit); judged from the title",
        "heuristic": "summary from metadata, no model",
        "nothing": "No PR was merged in this window.",
        "filtered": "{n} merged, none matching this channel's filters.",
        "by": "by",
    },
    "zh-CN": {
        "counts": "合并 {merged} 个 · 值得精读 {read} · 快速浏览 {skim} · 无需精读 {skip}",
        "why": "看点",
        "caveats": "注意",
        "watch": "关注",
        "coverage": "覆盖",
        "read_files": "已读 {read}/{total} 个文件",
        "partly": "其中 {n} 个部分读取",
        "skipped": "跳过 {n} 个",
        "unlisted": "GitHub 未列出 {n} 个（最多列出 3,000 个）",
        "unknown_files": "未能读取文件（GitHub 速率限制），仅依据标题判断",
        "heuristic": "依据元数据生成，未使用模型",
        "nothing": "该时间段内没有合并的 PR。",
        "filtered": "合并 {n} 个，均不符合本频道的筛选条件。",
        "by": "作者",
    },
}


# The skip reasons of llm/files.py and llm/context.py, for channels that read Chinese.
_REASONS_ZH = {
    "binary file": "二进制文件",
    "lock file": "锁文件",
    "generated file": "生成文件",
    "vendored": "第三方代码",
    "no diff from GitHub (too large)": "GitHub 未提供 diff（过大）",
    "did not fit the token budget": "超出 token 预算",
}


def reason_text(reason: str, language: Language) -> str:
    return _REASONS_ZH.get(reason, reason) if language == "zh-CN" else reason


def word(language: Language, name: str, **values: object) -> str:
    return _WORDS[language][name].format(**values)


def verdict_label(card: Card) -> str:
    return _VERDICT[card.language][card.verdict].format(n=card.minutes)


def counts_line(digest: Digest) -> str:
    return word(
        digest.language,
        "counts",
        merged=digest.total_merged,
        read=digest.count("read"),
        skim=digest.count("skim"),
        skip=digest.count("skip"),
    )


def coverage_line(coverage: Coverage, language: Language) -> str:
    if not coverage.files_known:
        return word(language, "unknown_files")
    parts = [word(language, "read_files", read=coverage.files_read, total=coverage.files_total)]
    if coverage.partial:
        parts.append(word(language, "partly", n=len(coverage.partial)))
    if coverage.skipped:
        reasons = Counter(skipped.reason for skipped in coverage.skipped)
        detail = ", ".join(f"{count} {reason_text(reason, language)}" for reason, count in reasons.most_common())
        parts.append(f"{word(language, 'skipped', n=len(coverage.skipped))} ({detail})")
    if coverage.files_unlisted:
        parts.append(word(language, "unlisted", n=coverage.files_unlisted))
    return "; ".join(parts)
