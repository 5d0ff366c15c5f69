"""Questions in a channel: a reply in one of our digests' threads, or an @mention anywhere,
answered in its thread as every answer is (questions/answering.py): a status, then the answer
streamed as it is checked.

What may be discussed is the channel's (access/policy.py): a question naming a repository it may
not show, or asked in a digest's thread none of whose repositories it may show now, is refused to
the asker alone, naming only what they typed. The words are the ThreadWords it is given
(bot/ports/wording.py, render/slack/answers.py's ThreadWording). Imports no slack/ nor render/.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.access import AccessPolicy
from bot.channels import ChannelDirectory
from bot.core.refs import MAX_MESSAGE_CHARS
from bot.core.stops import StopPress
from bot.models import Language
from bot.ops import telemetry
from bot.ports.slack import Message, SlackPort
from bot.ports.wording import ThreadWords
from bot.questions.answering import Outcome, answer_in_thread, status_words
from bot.questions.qa import QAService, nothing_visible, visible_part
from bot.questions.stream import Stopping
from bot.questions.which_pr import find_refs, strip_mentions
from bot.store.threads import ThreadStore


@dataclass(frozen=True)
class ThreadQuestion:
    """One message a person wrote in a channel, as the listener read it."""

    channel: str
    user: str
    text: str
    thread_ts: str  # where the answer goes: the question's thread, or the question itself
    team: str | None  # the asker's own workspace (a Slack Connect channel holds several)
    asked_at: str | None  # the question's ts
    mention: bool  # an @mention (else a reply in a digest's thread)


@dataclass(frozen=True)
class ThreadQuestions:
    """One workspace's channel questions: its channels and access, its QAService, the digests'
    threads (and the Stops pressed in them), and the words."""

    directory: ChannelDirectory
    access: AccessPolicy
    qa: QAService
    threads: ThreadStore
    command: str
    # The words in the channel's language, for the command (render/slack/answers.py's ThreadWording).
    words: Callable[[Language, str], ThreadWords]

    def in_a_digest_thread(self, channel: str, thread_ts: str) -> bool:
        """Whether `thread_ts` is one of our digests' threads in `channel`."""
        return self.threads.digest(channel, thread_ts) is not None

    def answer(self, slack: SlackPort, asked: ThreadQuestion) -> Outcome | None:
        """Answer `asked` in its thread (how it ended), or tell the asker alone why not (None)."""
        if len(asked.text) > MAX_MESSAGE_CHARS:
            # Longer than Slack lets anyone write: not from a person, and never parsed.
            words = self.words(self.directory.language(asked.channel), self.command)
            self._tell(slack, asked, words.too_long(MAX_MESSAGE_CHARS))
            return None
        channel, thread_ts = asked.channel, asked.thread_ts
        question = strip_mentions(asked.text)
        audience = self.access.audience(channel, user=asked.user, thread_ts=thread_ts, said=question, team=asked.team)
        words = self.words(audience.language, self.command)
        refs = find_refs(question, audience.default_repo)
        refused_ref = audience.refused(refs)
        # "what merged in acme/secret this week?" is refused the same way as acme/secret#7.
        refused = refused_ref.repo if refused_ref else self.qa.named_not_allowed(question, audience)
        digest = self.threads.digest(channel, thread_ts)
        if refused is not None:
            # Naming only what they typed (in a shared channel, a private repository they did
            # not name is unnamed): nothing of the PR leaks.
            self._tell(slack, asked, words.not_allowed(audience.named(refused)))
            return None
        if digest is not None and nothing_visible(visible_part(digest, audience)):
            # A digest none of whose repositories this channel may see now (a private one in a
            # channel since shared with another organisation).
            self._tell(slack, asked, words.digest_not_allowed())
            return None
        outcome = answer_in_thread(
            slack,
            audience,
            status=status_words(audience.language, refs, digest),
            ask=lambda sink: self.qa.answer(question, audience, digest, sink),
            words=words,
            stop=Stopping(self.threads, asked.asked_at),
        )
        surface = "mention" if asked.mention else "thread"
        if outcome == "answered":
            telemetry.count("questions_answered_total", surface=surface)
        elif outcome == "stopped":
            telemetry.count("answers_stopped_total", surface=surface)
        return outcome

    def stop(self, press: StopPress) -> None:
        """The asker pressed Stop: the answers it is for, on whichever replica, see the mark
        within STOP_POLL_SECONDS (core/stops.py)."""
        self.threads.stop(press)

    @staticmethod
    def _tell(slack: SlackPort, asked: ThreadQuestion, message: Message) -> None:
        # Ephemeral, to the asker alone: nobody else needs to see it, and a public reply to every
        # refused or over-long message would let anyone make the bot post in a channel.
        slack.post_ephemeral(asked.channel, asked.user, message.text, blocks=message.blocks, thread_ts=asked.thread_ts)
