"""The one way a question is answered in a thread (digest threads, @mentions, the app's DM):
a status within a second, the model's answer streamed as it is checked, the reply's end.

Owns the sequence; QAService decides what the reply is (`ask`), AnswerStream
speaks to Slack (questions/stream.py), the AnswerWords it is handed (bot/ports/wording.py,
built by render/) word the reply. Imports no render/ nor slack/. Slack errors propagate as
SlackError for the listener to log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Literal

from bot.models import Audience, DigestThread, Language, PRRef, Reply
from bot.ports import AnswerSink
from bot.ports.slack import SlackPort
from bot.ports.wording import AnswerWords
from bot.questions.stream import AnswerStream, Stopping
from bot.words import text

log = logging.getLogger(__name__)

# How an answer ended: given, failed (the asker was told so), or stopped by the asker.
Outcome = Literal["answered", "failed", "stopped"]


def status_words(language: Language, refs: list[PRRef], digest: DigestThread | None) -> str:
    """What the status says the bot is doing: reading the PR asked about, or the digest.

    Plain text (setStatus shows it as is), so nothing is escaped; a ref is ours, parsed.
    """
    if refs:
        return text(language, "status.reading", pr=f"#{refs[0].number}")
    if digest is not None:
        return text(language, "status.digest")
    return text(language, "status.thinking")


def answer_in_thread(
    slack: SlackPort,
    audience: Audience,
    *,
    status: str,
    ask: Callable[[AnswerSink], Reply],
    words: AnswerWords,
    stop: Stopping | None = None,
) -> Outcome:
    """Set the status, get the reply from `ask` (which streams a model's answer into the sink it
    is given), then end the answer in the audience's thread, worded by `words` (in the asker's
    language, for the surface's command; the DM words refusals its own way).
    `stop`: where the asker's Stop is marked (agent_session_stopped), which stops this answer
    when pressed after the question. The caller counts the outcome under its own surface."""
    channel = audience.channel
    stream = AnswerStream(slack, audience, words=words, stop=stop)
    stream.begin(status)
    try:
        reply = ask(stream)
        message = words.reply(reply)
        outcome: Outcome = "answered"
    except Exception:
        log.exception("answering a question in %s failed", channel)
        message = words.failure()
        outcome = "failed"
    if stream.stopped:
        log.debug("the asker stopped the answer in %s", channel)
        stream.settle_stopped(words.stopped())
        return "stopped"
    stream.finish(message)
    return "stopped" if stream.stopped else outcome  # Slack may refuse the end: stopped_by_user
