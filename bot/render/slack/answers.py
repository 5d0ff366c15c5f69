"""The answer's words (bot/ports/wording.py's AnswerWords, and DMWords for a person's DM) as
render/ builds them: the placeholder, the reply, the failure and the stop, the streamed
sentences' escaping, and the refusals of a channel's and of the DM's.

Pure: it holds how one surface words a reply (the DM words refusals its own way) and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.models import AcrossRefused, Language, NotAllowed, Reply
from bot.ports.slack import Message
from bot.render.markdown import markdown_text
from bot.render.slack.blocks import text_message
from bot.render.slack.replies import (
    failure_message,
    not_allowed_text,
    reply_message,
    say,
    stopped_message,
    thinking_message,
)


@dataclass(frozen=True)
class AnswerWording:
    """AnswerWords in `language`, for `command`, with `words` for the reply (render/slack/replies.py's
    `reply_message` unless the surface words it otherwise)."""

    language: Language
    command: str
    words: Callable[[Reply, Language, str], Message] = reply_message

    def thinking(self) -> Message:
        return thinking_message(self.language)

    def reply(self, reply: Reply) -> Message:
        return self.words(reply, self.language, self.command)

    def failure(self) -> Message:
        return failure_message(self.language)

    def stopped(self) -> Message:
        return stopped_message(self.language)

    def markdown(self, text: str) -> str:
        return markdown_text(text)


@dataclass(frozen=True)
class ThreadWording(AnswerWording):
    """ThreadWords: an answer in a channel, and the refusals told to the asker alone."""

    def not_allowed(self, named: str | None) -> Message:
        return text_message(not_allowed_text(self.language, named))

    def digest_not_allowed(self) -> Message:
        return text_message(say(self.language, "digest_not_allowed"))

    def too_long(self, limit: int) -> Message:
        return text_message(say(self.language, "too_long", limit=f"{limit:,}"))


@dataclass(frozen=True)
class DMWording(AnswerWording):
    """DMWords: an answer in a person's DM, refusing in words that name nothing."""

    def reply(self, reply: Reply) -> Message:
        # Named earlier in the thread and no longer allowed: refused as a question is, naming nothing.
        if isinstance(reply, NotAllowed) or (isinstance(reply, AcrossRefused) and reply.reason == "not_allowed"):
            return self.not_allowed()
        return self.words(reply, self.language, self.command)

    def not_allowed(self) -> Message:
        return text_message(say(self.language, "dm_not_allowed"))

    def which_repo(self, number: int, examples: Sequence[str]) -> Message:
        if not examples:
            return text_message(say(self.language, "dm_which_repo_none", number=str(number)))
        listed = ", ".join(f"`{repo}#{number}`" for repo in examples)
        return text_message(say(self.language, "dm_which_repo", number=str(number), examples=listed))

    def too_long(self, limit: int) -> Message:
        return text_message(say(self.language, "too_long", limit=f"{limit:,}"))
