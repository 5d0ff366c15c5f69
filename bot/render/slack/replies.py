"""Replies to people in Slack, in the channel's language: answers, choices, refusals (pure).

The sentences are bot/words' `reply.*`; links (`{link}`) are built here, already safe mrkdwn.

Everything that came from outside (the model's answer, titles) is escaped here or in the
block builders; links are built only from GitHub's own URLs.
"""

from __future__ import annotations

from datetime import UTC
from typing import assert_never

from bot.errors import PrdigestError
from bot.models import (
    AcrossMatches,
    AcrossRefused,
    CardReply,
    Choose,
    DigestAnswer,
    DigestMatches,
    Help,
    InRelease,
    Language,
    NotAllowed,
    NotYours,
    PRAnswer,
    PRListing,
    PRNotFound,
    Reply,
    Rule,
    Unavailable,
    Why,
    Window,
)
from bot.ports.slack import Message
from bot.render.across import across_message, across_refused_message, in_release_message, span_text
from bot.render.mrkdwn import answer_text, escape, link
from bot.render.slack.blocks import card_message, help_message, sections_message, text_message, title_text
from bot.words import said, text


def say(language: Language, name: str, **values: str) -> str:
    """The reply sentence `name` (bot/words `reply.{name}`); values are escaped, since they may
    come from a person or GitHub."""
    return text(language, f"reply.{name}", **{key: escape(value) for key, value in values.items()})


def not_allowed_text(language: Language, repo: str | None) -> str:
    """The refusal naming `repo`, or "a private repository" for None: a name the reply may not
    say where it is posted (access/disclosure.py)."""
    return say(language, "not_allowed", repo=text(language, "repo.private") if repo is None else repo)


def refused_text(error: PrdigestError, language: Language) -> str:
    """A refusal of what was typed (a bad reference, a bad value), in the asker's language."""
    return escape(error.in_language(language))


def help_reply(command: str, language: Language) -> Message:
    """How to ask (render/slack/blocks.py `help_message`), as a command's reply."""
    return help_message(command, language)


def thinking_message(language: Language) -> Message:
    return text_message(say(language, "thinking"))


def _listing_line(listing: PRListing) -> str:
    label = f"{listing.repo}#{listing.number}"
    title = title_text(listing)
    return f"• {link(listing.url, label)} {title}" if title else f"• {link(listing.url, label)}"


def _matches_text(choices: tuple[PRListing, ...], language: Language) -> str:
    """The digest's PRs that match the question's words, or that none does."""
    if not choices:
        return say(language, "digest_none")
    return "\n".join([say(language, "digest_matches"), *(_listing_line(listing) for listing in choices)])


def _rule_line(rule: Rule, window: Window | None, language: Language) -> str:
    if rule.kind == "window" and not rule.detail:
        return say(language, "window_unmerged")
    if rule.kind == "feedback":
        return say(language, "feedback_in" if rule.kept else "feedback_out", n=str(rule.prs), area=rule.area)
    span = f"{window.start:%Y-%m-%d %H:%M} – {window.end:%Y-%m-%d %H:%M} UTC" if window else ""
    name = f"{rule.kind}_{'in' if rule.kept else 'out'}"
    return say(language, name, detail=rule.detail, window=span)


def why_message(reply: Why, language: Language) -> Message:
    pr = link(reply.about.url, f"#{reply.about.number}")
    header = text(language, "reply.why_in" if reply.included else "reply.why_out", link=pr)
    window = None
    if reply.window is not None:
        window = Window(reply.window.start.astimezone(UTC), reply.window.end.astimezone(UTC))
    lines = [f"• {_rule_line(rule, window, language)}" for rule in reply.rules]
    return text_message("\n".join([header, *lines]))


def looked_up_message(
    reply: CardReply | NotAllowed | PRNotFound | Unavailable, language: Language, *, share_for: str | None
) -> Message:
    """`/pr owner/repo#N`'s reply (cards/lookup.py): the card, with the Share button that works
    for `share_for` alone (the asker), or why there is none."""
    if isinstance(reply, CardReply):
        return card_message(reply.about, reply.card, share_for=share_for)
    return reply_message(reply, language, "")  # a refusal, worded as every surface words it (no command in it)


def share_refusal_text(reply: NotAllowed | PRNotFound | Unavailable | NotYours, language: Language) -> str:
    """Why a Share click posted nothing (cards/lookup.py `shared`), told to the clicker alone."""
    match reply:
        case NotYours():
            return say(language, "share_not_yours")
        case NotAllowed(shown=shown):  # a click types no name: a private repository stays unnamed
            return not_allowed_text(language, shown)
        case Unavailable(why=why) if why is not None:  # GitHub's rate limit, and when it resets
            return escape(said(language, why))
        case PRNotFound(ref=ref) | Unavailable(ref=ref):
            return say(language, "unavailable", ref=str(ref))
    assert_never(reply)


def reply_message(reply: Reply, language: Language, command: str) -> Message:
    """The words for a reply; one branch per kind (mypy checks that every kind is here). A
    refusal names its repository as the reply carries it (Audience.named decided it)."""
    match reply:
        case Why():
            return why_message(reply, language)
        case PRAnswer(about=about, answer=answer, paths=paths):
            header = text(language, "reply.about", link=link(about.url, f"#{about.number}"))
            return text_message(f"{header}\n{answer_text(answer, about.url, paths)}")
        case DigestAnswer(answer=answer, matches=matches):
            # The model's answer above the list the rules give without it (DigestMatches).
            return sections_message([answer_text(answer, None, ()), _matches_text(matches, language)])
        case CardReply(about=about, card=card, model_failed=model_failed, unusable=unusable, budget_spent=budget):
            reason = "answer_unusable" if unusable else "model_failed" if model_failed else "no_model"
            intro = say(language, "budget_spent" if budget else reason)
            return card_message(about, card, intro=intro)
        case Choose(choices=choices):
            return text_message("\n".join([say(language, "choose"), *(_listing_line(listing) for listing in choices)]))
        case DigestMatches(choices=choices):
            return sections_message([_matches_text(choices, language)])
        case NotAllowed(ref=ref, shown=shown):
            if ref is None:
                return text_message(say(language, "digest_not_allowed"))
            return text_message(not_allowed_text(language, shown))
        case Unavailable(why=why) if why is not None:  # GitHub's rate limit, and when it resets
            return text_message(escape(text(language, why.kind, **why.values)))
        case PRNotFound(ref=ref) | Unavailable(ref=ref):
            return text_message(say(language, reply.kind, ref=str(ref)))
        case Help(topic=topic, span=span) if topic or span is not None:
            return understood_help(reply, command, language)
        case Help():
            return help_message(command, language)
        case AcrossMatches():
            return across_message(reply, language)
        case AcrossRefused(reason="not_allowed", shown=shown):
            return text_message(not_allowed_text(language, shown))
        case AcrossRefused():
            return across_refused_message(reply, language)
        case InRelease():
            return in_release_message(reply, language)
    assert_never(reply)


def understood_help(reply: Help, command: str, language: Language) -> Message:
    """The help, after what was understood of the question and an example that would work:
    "I understood “kimi-k3” but no day: try “what merged yesterday about kimi-k3?”"."""
    topic = ", ".join(f"“{word}”" for word in reply.topic)
    first = reply.topic[0] if reply.topic else ""
    if reply.span is None:
        line = text(language, "help.understood_topic", topic=topic, example=first)
    else:
        span = span_text(reply.span, language)
        line = text(language, "help.understood_days", span=span, example=first or "CI")
    usual = help_message(command, language)
    said = escape(line)
    return Message(f"{said}\n{usual.text}", (*text_message(said).blocks, *usual.blocks))


def failure_message(language: Language) -> Message:
    return text_message(say(language, "failed"))


def stopped_message(language: Language) -> Message:
    """What a placeholder becomes when the asker stops the answer before it is shown."""
    return text_message(say(language, "stopped"))
