"""The answer's words (bot/ports/wording.py's AnswerWords) as render/ builds them: the
placeholder, the reply, the failure and the stop, and the streamed sentences' escaping.

Pure: it holds how one surface words a reply (the DM words refusals its own way) and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.models import Language, Reply
from bot.ports.slack import Message
from bot.render.markdown import markdown_text
from bot.render.replies import failure_message, reply_message, stopped_message, thinking_message


@dataclass(frozen=True)
class AnswerWording:
    """AnswerWords with `words` for the reply (render/replies.py's `reply_message` unless the
    surface words it otherwise)."""

    words: Callable[[Reply, Language, str], Message] = reply_message

    def thinking(self, language: Language) -> Message:
        return thinking_message(language)

    def reply(self, reply: Reply, language: Language, command: str) -> Message:
        return self.words(reply, language, command)

    def failure(self, language: Language) -> Message:
        return failure_message(language)

    def stopped(self, language: Language) -> Message:
        return stopped_message(language)

    def markdown(self, text: str) -> str:
        return markdown_text(text)
