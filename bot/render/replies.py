"""Replies to people in Slack, in the channel's language: answers, choices, refusals (pure).

Everything that came from outside (the model's answer, titles) is escaped here or in the
block builders; links are built only from GitHub's own URLs.
"""

from __future__ import annotations

from bot.models import Language, PRListing
from bot.render.blocks import Message, card_message, help_message, text_message, title_text
from bot.render.mrkdwn import answer_text, escape, link
from bot.services.qa import Reply

_WORDS = {
    "en": {
        "thinking": ":hourglass_flowing_sand: Looking into it…",
        "choose": "Several PRs fit your question. Which one do you mean? Reply with its number:",
        "not_allowed": "This channel is set up for other repositories, so I can't answer about {repo} here.",
        "not_found": "I can't find {ref} on GitHub (or I am not allowed to see it).",
        "unavailable": "GitHub is not answering right now, so I can't read {ref}. Try again in a few minutes.",
        "no_model": "No model is configured, so here is the card instead of an answer:",
        "model_failed": "The model is not answering right now, so here is the card instead:",
        "digest_none": "None of today's PRs match those words in their titles, headlines or files.",
        "digest_matches": "These PRs of the digest match your question (titles, headlines, files):",
        "about": "About {link}:",
        "failed": "Something went wrong while answering. Please ask again in a minute.",
    },
    "zh-CN": {
        "thinking": ":hourglass_flowing_sand: 正在查看…",
        "choose": "有几个 PR 都符合你的问题，你指的是哪一个？请回复编号：",
        "not_allowed": "本频道只回答为它配置的仓库，无法在这里回答关于 {repo} 的问题。",
        "not_found": "在 GitHub 上找不到 {ref}（或者我没有权限查看）。",
        "unavailable": "GitHub 暂时没有响应，无法读取 {ref}。请几分钟后再试。",
        "no_model": "没有配置模型，以下是这个 PR 的卡片：",
        "model_failed": "模型暂时没有响应，以下是这个 PR 的卡片：",
        "digest_none": "今天的 PR 中没有标题、摘要或文件与这些词匹配的。",
        "digest_matches": "摘要中与你的问题相关的 PR（按标题、摘要、文件匹配）：",
        "about": "关于 {link}：",
        "failed": "回答时出了问题，请稍后再问一次。",
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


def reply_message(reply: Reply, language: Language, command: str) -> Message:
    if reply.kind in ("answer", "digest_answer"):
        pr_url = reply.about.url if reply.about else None
        body = answer_text(reply.answer, pr_url, reply.paths)
        if reply.about is not None:
            header = _WORDS[language]["about"].format(link=link(reply.about.url, f"#{reply.about.number}"))
            body = f"{header}\n{body}"
        return text_message(body)
    if reply.kind == "card" and reply.about is not None and reply.card is not None:
        intro = say(language, "model_failed" if reply.model_failed else "no_model")
        return card_message(reply.about, reply.card, intro=intro)
    if reply.kind == "choose":
        lines = [say(language, "choose"), *(_listing_line(listing) for listing in reply.choices)]
        return text_message("\n".join(lines))
    if reply.kind == "digest_matches":
        if not reply.choices:
            return text_message(say(language, "digest_none"))
        lines = [say(language, "digest_matches"), *(_listing_line(listing) for listing in reply.choices)]
        return text_message("\n".join(lines))
    if reply.kind == "not_allowed" and reply.ref is not None:
        return text_message(say(language, "not_allowed", repo=reply.ref.repo))
    if reply.kind in ("not_found", "unavailable") and reply.ref is not None:
        return text_message(say(language, reply.kind, ref=str(reply.ref)))
    return help_message(command, language)


def failure_message(language: Language) -> Message:
    return text_message(say(language, "failed"))
