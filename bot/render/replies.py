"""Replies to people in Slack, in the channel's language: answers, choices, refusals (pure).

Everything that came from outside (the model's answer, titles) is escaped here or in the
block builders; links are built only from GitHub's own URLs.
"""

from __future__ import annotations

from datetime import UTC
from typing import assert_never

from bot.models import (
    CardReply,
    Choose,
    DigestAnswer,
    DigestMatches,
    Help,
    Language,
    NotAllowed,
    PRAnswer,
    PRListing,
    PRNotFound,
    Reply,
    Rule,
    Unavailable,
    Why,
    Window,
)
from bot.render.blocks import Message, card_message, help_message, text_message, title_text
from bot.render.mrkdwn import answer_text, escape, link

_WORDS = {
    "en": {
        "thinking": ":hourglass_flowing_sand: Looking into it…",
        "too_long": "Your message is over Slack's limit of {limit} characters, so I did not read it.",
        "choose": "Several PRs fit your question. Which one do you mean? Reply with its number:",
        "not_allowed": "This channel is set up for other repositories, so I can't answer about {repo} here.",
        "digest_not_allowed": "This digest's repositories can't be discussed in this channel any more.",
        "not_found": "I can't find {ref} on GitHub (or I am not allowed to see it).",
        "unavailable": "GitHub is not answering right now, so I can't read {ref}. Try again in a few minutes.",
        "no_model": "No model is configured, so here is the card instead of an answer:",
        "model_failed": "The model is not answering right now, so here is the card instead:",
        "digest_none": "None of today's PRs match those words in their titles, headlines or files.",
        "digest_matches": "These PRs of the digest match your question (titles, headlines, files):",
        "about": "About {link}:",
        "failed": "Something went wrong while answering. Please ask again in a minute.",
        "share_not_yours": "Only the person who asked for this card can share it. Ask for it yourself to share it.",
        "try_later": "I can't keep track of requests right now. Please try again in a minute.",
        "why_in": "Why {link} is in this digest:",
        "why_out": "Why {link} is not in this digest:",
        "repo_in": "{detail} is one of this channel's repositories",
        "repo_out": "this channel follows {detail}, not this repository",
        "window_in": "it was merged at {detail}, inside the digest's window ({window})",
        "window_out": "it was merged at {detail}, outside the digest's window ({window})",
        "window_unmerged": "it is not merged",
        "author_in": "its author {detail} is not among the excluded authors",
        "author_out": "its author matches the excluded pattern {detail}",
        "labels_include_in": "it has the label {detail}, which this channel asks for",
        "labels_include_out": "it has none of the labels this channel asks for ({detail})",
        "labels_exclude_out": "it has the label {detail}, which this channel leaves out",
        "paths_in": "it changes {detail}",
        "paths_out": "it changes no path this channel follows ({detail})",
    },
    "zh-CN": {
        "thinking": ":hourglass_flowing_sand: 正在查看…",
        "too_long": "你的消息超过了 Slack 的 {limit} 字符上限，我没有读取。请用更短的话再问。",
        "choose": "有几个 PR 都符合你的问题，你指的是哪一个？请回复编号：",
        "not_allowed": "本频道只回答为它配置的仓库，无法在这里回答关于 {repo} 的问题。",
        "digest_not_allowed": "这期摘要的仓库已不能在本频道讨论，因此无法在这里回答。",
        "not_found": "在 GitHub 上找不到 {ref}（或者我没有权限查看）。",
        "unavailable": "GitHub 暂时没有响应，无法读取 {ref}。请几分钟后再试。",
        "no_model": "没有配置模型，以下是这个 PR 的卡片：",
        "model_failed": "模型暂时没有响应，以下是这个 PR 的卡片：",
        "digest_none": "今天的 PR 中没有标题、摘要或文件与这些词匹配的。",
        "digest_matches": "摘要中与你的问题相关的 PR（按标题、摘要、文件匹配）：",
        "about": "关于 {link}：",
        "failed": "回答时出了问题，请稍后再问一次。",
        "share_not_yours": "只有请求这张卡片的人才能分享它。请自己运行该命令后再分享。",
        "try_later": "暂时无法记录请求，请一分钟后再试。",
        "why_in": "{link} 出现在本期摘要中的原因：",
        "why_out": "{link} 没有出现在本期摘要中的原因：",
        "repo_in": "{detail} 是本频道关注的仓库",
        "repo_out": "本频道关注的是 {detail}，不是这个仓库",
        "window_in": "它合并于 {detail}，在摘要的时间窗口内（{window}）",
        "window_out": "它合并于 {detail}，不在摘要的时间窗口内（{window}）",
        "window_unmerged": "它还没有合并",
        "author_in": "作者 {detail} 不在排除名单中",
        "author_out": "作者符合排除规则 {detail}",
        "labels_include_in": "它带有本频道要求的标签 {detail}",
        "labels_include_out": "它没有本频道要求的任何标签（{detail}）",
        "labels_exclude_out": "它带有本频道排除的标签 {detail}",
        "paths_in": "它改动了 {detail}",
        "paths_out": "它没有改动本频道关注的路径（{detail}）",
    },
}


def say(language: Language, name: str, **values: str) -> str:
    """A fixed sentence; values are escaped, since they may come from a person or GitHub."""
    return _WORDS[language][name].format(**{key: escape(value) for key, value in values.items()})


def thinking_message(language: Language) -> Message:
    return text_message(say(language, "thinking"))


def _listing_line(listing: PRListing) -> str:
    label = f"{listing.repo}#{listing.number}"
    title = title_text(listing)
    return f"• {link(listing.url, label)} {title}" if title else f"• {link(listing.url, label)}"


def _rule_line(rule: Rule, window: Window | None, language: Language) -> str:
    if rule.kind == "window" and not rule.detail:
        return say(language, "window_unmerged")
    span = f"{window.start:%Y-%m-%d %H:%M} – {window.end:%Y-%m-%d %H:%M} UTC" if window else ""
    name = f"{rule.kind}_{'in' if rule.kept else 'out'}"
    return say(language, name, detail=rule.detail, window=span)


def why_message(reply: Why, language: Language) -> Message:
    pr = link(reply.about.url, f"#{reply.about.number}")
    header = _WORDS[language]["why_in" if reply.included else "why_out"].format(link=pr)
    window = None
    if reply.window is not None:
        window = Window(reply.window.start.astimezone(UTC), reply.window.end.astimezone(UTC))
    lines = [f"• {_rule_line(rule, window, language)}" for rule in reply.rules]
    return text_message("\n".join([header, *lines]))


def reply_message(reply: Reply, language: Language, command: str) -> Message:
    """The words for a reply; one branch per kind (mypy checks that every kind is here)."""
    match reply:
        case Why():
            return why_message(reply, language)
        case PRAnswer(about=about, answer=answer, paths=paths):
            header = _WORDS[language]["about"].format(link=link(about.url, f"#{about.number}"))
            return text_message(f"{header}\n{answer_text(answer, about.url, paths)}")
        case DigestAnswer(answer=answer):
            return text_message(answer_text(answer, None, ()))
        case CardReply(about=about, card=card, model_failed=model_failed):
            intro = say(language, "model_failed" if model_failed else "no_model")
            return card_message(about, card, intro=intro)
        case Choose(choices=choices):
            return text_message("\n".join([say(language, "choose"), *(_listing_line(listing) for listing in choices)]))
        case DigestMatches(choices=choices):
            if not choices:
                return text_message(say(language, "digest_none"))
            lines = [say(language, "digest_matches"), *(_listing_line(listing) for listing in choices)]
            return text_message("\n".join(lines))
        case NotAllowed(ref=ref):
            if ref is None:
                return text_message(say(language, "digest_not_allowed"))
            return text_message(say(language, "not_allowed", repo=ref.repo))
        case PRNotFound(ref=ref) | Unavailable(ref=ref):
            return text_message(say(language, reply.kind, ref=str(ref)))
        case Help():
            return help_message(command, language)
    assert_never(reply)


def failure_message(language: Language) -> Message:
    return text_message(say(language, "failed"))
