"""Questions in a person's DM with the app (the Messages tab): answered in a thread on the
question, as Slack's agent messaging expects ("streamed messages should always be replies to a
user request"), through the same QAService as @mentions.

What may be discussed is the person's (access/reach.py), not a channel's: a question naming a
repository outside it is refused in words that name nothing, not even what was typed. The
answer is worded in the person's Slack language, and reaches Slack as every answer does: a
status, then the model's words streamed as they are checked (questions/answering.py).

A rule, not a surface: the listener (slack/listeners/direct.py) reads the message.im payload into
a DMQuestion and builds DMQuestions from the workspace's parts; the words are the DMWords it is
given (bot/ports/wording.py, render/slack/answers.py's DMWording). Imports no slack/ nor render/.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from zoneinfo import ZoneInfo

from bot.access import AccessPolicy, reach_of
from bot.channels import ChannelDirectory, ChannelMembers, PeopleLanguages
from bot.core.refs import MAX_MESSAGE_CHARS
from bot.models import Language
from bot.ops import telemetry
from bot.ports.slack import Message, SlackPort
from bot.ports.wording import DMWords
from bot.questions.answering import answer_in_thread, status_words
from bot.questions.qa import QAService
from bot.questions.stream import StopMarks, Stopping
from bot.questions.which_pr import find_refs, strip_mentions

log = logging.getLogger(__name__)

# Stands for "no repository named" when the question's references are read (never a real one:
# GitHub's names have no "_/_").
BARE = "_/_"
# Repositories offered as examples when "#N" could be any of them: a few read better than all.
MAX_EXAMPLES = 4


@dataclass(frozen=True)
class DMQuestion:
    """One message a person wrote in their DM with the app, as the listener read it."""

    dm: str
    user: str
    text: str
    thread_ts: str  # where the answer goes: the question's thread, or the question itself
    team: str | None  # the asker's workspace (recipient_team_id of a stream)
    asked_at: str | None  # the question's ts


@dataclass(frozen=True)
class DMQuestions:
    """One workspace's DM answers: its channels, members and access (the person's reach), the
    languages of its people, its QAService, where a Stop is marked, and the words."""

    directory: ChannelDirectory
    members: ChannelMembers
    access: AccessPolicy
    people: PeopleLanguages
    qa: QAService
    stops: StopMarks
    command: str
    # The words in a person's language, for the command (render/slack/answers.py's DMWording).
    words: Callable[[Language, str], DMWords]
    # "Today" in a DM is the person's day (their Slack time zone), when the watch DMs can say it.
    zone: Callable[[str], ZoneInfo] | None = None

    def answer(self, slack: SlackPort, asked: DMQuestion) -> None:
        """Answer `asked` in its thread of the person's DM with the app: a status, then the
        answer streamed as in channels (questions/answering.py)."""
        dm, user, thread_ts = asked.dm, asked.user, asked.thread_ts
        question = strip_mentions(asked.text)
        reach = reach_of(self.directory, self.members, self.access, slack, user, dm)
        # What may be discussed here is the person's reach, in their language.
        audience = replace(
            self.access.audience(dm, user=user, thread_ts=thread_ts, said=question, team=asked.team),
            repos=reach.allowed,
            language=self.people.language(slack, user),
            default_repo=reach.default_repo,
        )
        words = self.words(audience.language, self.command)
        refs = find_refs(question, audience.default_repo)
        if audience.refused(refs) is not None or self.qa.named_not_allowed(question, audience):
            _post(slack, dm, thread_ts, words.not_allowed())
            return
        if audience.default_repo is None and (bare := _bare_number(question)) is not None:
            # "#123" with several repositories of theirs, or none: which one is not guessed.
            _post(slack, dm, thread_ts, words.which_repo(bare, reach.own[:MAX_EXAMPLES]))
            return
        if self.zone is not None:
            audience = replace(audience, zone=self.zone(user))  # "today" is the person's day
        outcome = answer_in_thread(
            slack,
            audience,
            status=status_words(audience.language, refs, None),
            ask=lambda sink: self.qa.answer(question, audience, sink=sink),
            words=words,
            stop=Stopping(self.stops, asked.asked_at),
        )
        if outcome == "answered":
            telemetry.count("questions_answered_total", surface="dm")
        elif outcome == "stopped":
            telemetry.count("answers_stopped_total", surface="dm")

    def too_long(self, slack: SlackPort, dm: str, user: str, thread_ts: str) -> None:
        """Longer than Slack lets anyone write: not read, and said so (only the person sees their DM)."""
        words = self.words(self.people.language(slack, user), self.command)
        _post(slack, dm, thread_ts, words.too_long(MAX_MESSAGE_CHARS))


def _bare_number(question: str) -> int | None:
    """The number of the first "#123" that names no repository, or None."""
    return next((ref.number for ref in find_refs(question, BARE) if ref.repo == BARE), None)


def _post(slack: SlackPort, dm: str, thread_ts: str, message: Message) -> str:
    return slack.post(dm, message.text, blocks=message.blocks, thread_ts=thread_ts)
