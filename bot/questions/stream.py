"""AnswerStream: one answer in a thread, as the asker sees it being made — a status at once
("Reading #50911…"), then the model's answer streamed sentence by sentence, then the end.

Owns the order of Slack calls and the fallback; not what is said (the AnswerWords it is handed,
bot/ports/wording.py, built by render/) nor which text is safe (core/checks/sentence_release.py: only checked
sentences reach `sentence`; the words' `markdown` escapes them for `markdown_text`). Imports no
render/ nor slack/: Slack is the SlackPort it is given.

- `assistant.threads.setStatus` works in channel threads on `chat:write` since 2026-03-05 and
  clears when the app replies or after 2 minutes (slack-platform.md §7).
- `chat.startStream` needs `recipient_user_id` and `recipient_team_id` in a channel and a
  `thread_ts`; the first checked sentence starts the stream, later ones go by `chat.appendStream`,
  `chat.stopStream` ends it.
- Where Slack refuses the status or the stream (`not_allowed`, `unknown_method`, `missing_scope`,
  a plan without it…), today's path: a placeholder posted, replaced by the reply (`chat.update`).
- The person's Stop: Slack ends the streamed message and sends `agent_session_stopped`, which
  any replica may receive; it marks the streams it ended and the presser's press in the thread
  (store/threads.py), and this answer, polling the marks, turns `stopped` when core/stops.py says
  the Stop is for it (its stream, or its asker's). An append Slack refuses with
  `stopped_by_user` says the same. Stopped,
  the model call is closed by its caller and nothing more is posted; what was begun is tidied
  (`settle_stopped`): the status cleared, a placeholder told, a stream not yet ended, ended.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from bot.core.stops import ends_answer
from bot.errors import SlackError
from bot.models import Audience
from bot.ports.slack import Message, SlackPort
from bot.ports.wording import AnswerWords

log = logging.getLogger(__name__)

# The name Slack gives the person's stop (chat.appendStream / chat.stopStream).
STOPPED_BY_USER = "stopped_by_user"

# How often the stop marks are read while an answer is made: a Stop shows within this, and a
# model streaming many pieces a second costs Redis at most four reads a second (the asker's mark,
# and the stream's once it streams), not reads for every piece.
STOP_POLL_SECONDS = 0.5

# After the first sentence (sent at once: it is what the asker waits for), sentences are sent
# together once this many characters or seconds have gathered, as slack_sdk's ChatStream buffers
# 256 characters: a fast model's thirty short sentences are a few appendStream calls (Tier 4,
# per workspace), not thirty. What is still gathered at the end goes with chat.stopStream.
APPEND_CHARS = 256
APPEND_SECONDS = 1.0

State = Literal["idle", "streaming", "placeholder", "stopped", "broken", "ended"]


class StopMarks(Protocol):
    """Where a person's Stop is marked for whichever replica makes the answer (store/threads.py)."""

    def stopped_at(self, channel: str, thread_ts: str, user: str) -> float | None: ...

    def stream_stopped(self, channel: str, ts: str) -> bool: ...


@dataclass(frozen=True)
class Stopping:
    """What lets the asker's Stop end this answer: where Stops are marked, and when the question
    was asked (its ts, on Slack's clock as a Stop's is): a Stop pressed before it is for an
    earlier answer in the thread, not this one."""

    marks: StopMarks
    asked_at: str | None = None


class AnswerStream:
    """An AnswerSink (bot/ports/model.py) over Slack's status and streaming methods.

    `begin` sets the status; the model's checked sentences come to `sentence`; `finish` posts the
    reply as it ends up (a streamed answer is ended, anything else posted or put in the placeholder).
    """

    def __init__(
        self,
        slack: SlackPort,
        audience: Audience,
        *,
        words: AnswerWords,
        stop: Stopping | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        assert audience.thread_ts is not None  # an answer in a thread has one
        self._slack = slack
        self._channel = audience.channel
        self._thread_ts = audience.thread_ts
        self._user = audience.user
        self._team = audience.team
        self._words = words
        self._placeholder = words.thinking()
        self._state: State = "idle"
        self._ts: str | None = None  # the streamed message's (or the placeholder's) ts
        self._stops = stop.marks if stop is not None else None
        self._asked_at = _seconds(stop.asked_at if stop is not None else None)
        self._clock = clock
        self._next_poll = 0.0
        self._gathered = ""  # checked sentences not yet sent (APPEND_CHARS)
        self._sent_at = 0.0
        self._stopped_in: State | None = None  # the state a Stop found the answer in

    @property
    def stopped(self) -> bool:
        if self._state in ("idle", "streaming", "placeholder") and self._stops is not None:
            now = self._clock()
            if now >= self._next_poll:
                self._next_poll = now + STOP_POLL_SECONDS
                if self._stop_is_ours(self._stops):
                    self._stopped_in, self._state = self._state, "stopped"
        return self._state == "stopped"

    def _stop_is_ours(self, stops: StopMarks) -> bool:
        # Only the stream's own mark and the asker's press: another person's Stop in the thread
        # is for their answer (core/stops.py).
        streaming = self._state == "streaming" and self._ts is not None
        return ends_answer(
            stream_ended=streaming and stops.stream_stopped(self._channel, str(self._ts)),
            asker_pressed_at=stops.stopped_at(self._channel, self._thread_ts, self._user) if self._user else None,
            asked_at=self._asked_at,
        )

    def begin(self, status: str) -> None:
        """The status, within a second of the question; refused, the placeholder instead."""
        try:
            self._slack.set_status(self._channel, self._thread_ts, status)
        except SlackError as exc:
            log.info("status refused in %s (%s): placeholder and update instead", self._channel, exc.code)
            self._post_placeholder()

    def sentence(self, text: str) -> None:
        if self._state not in ("idle", "streaming") or not text:
            return  # the placeholder gets the whole reply at the end; a stopped answer nothing more
        if self._ts is not None:
            self._gathered += text
            if len(self._gathered) < APPEND_CHARS and self._clock() - self._sent_at < APPEND_SECONDS:
                return
            text, self._gathered = self._gathered, ""
        # Sanitized already (core/checks/sanitize.py, as the final message is); escaped so that Markdown
        # makes no link of what is left, as the final message's verbatim mrkdwn makes none.
        markdown = self._words.markdown(text)
        try:
            if self._ts is None:
                self._ts = self._slack.start_stream(
                    self._channel, self._thread_ts, markdown, user=self._user, team=self._team
                )
                self._state = "streaming"
            else:
                self._slack.append_stream(self._channel, self._ts, markdown)
        except SlackError as exc:
            self._refused(exc)
            return
        self._sent_at = self._clock()

    def finish(self, reply: Message) -> None:
        """End the answer with `reply`. A stream is ended, then its message becomes `reply`: the
        streamed words settled into the reply's usual form, or, when the reply is something
        else (the card after the model failed part-way, or once the whole answer proved unusable),
        replaced by it, so nothing streamed outlives a reply that disowns it."""
        if self._state in ("stopped", "ended"):
            return
        if self._state == "streaming" and self._ts is not None:
            rest, self._gathered = self._gathered, ""
            try:
                self._slack.stop_stream(self._channel, self._ts, self._words.markdown(rest) or None)
            except SlackError as exc:
                if exc.code != STOPPED_BY_USER:
                    raise
                self._stopped_in = None  # Slack ended the stream itself
                self._state = "stopped"
                return
            self._state = "ended"
            # The reply as every other answer reads: its header naming the PR, cited paths as diff
            # links (render/slack/replies.py); for a streamed answer, the words are those streamed.
            self._slack.update(self._channel, self._ts, reply.text, reply.blocks)
            return
        if self._state == "broken" and self._ts is not None:
            # Slack ended the stream on its side, or still holds it open after a refused append:
            # stop it (chat.update answers streaming_state_conflict while it streams), then edit it.
            try:
                self._slack.stop_stream(self._channel, self._ts)
            except SlackError as exc:
                log.debug("stopping a broken stream in %s: %s", self._channel, exc.code)
        if self._state == "idle":
            # Nothing streamed (a choice list, a refusal, a card): today's path, the placeholder
            # then the reply in it, so every answer ends as one edit of its own message.
            self._post_placeholder()
        # The placeholder gets the reply; so does a stream Slack ended on its side (expired,
        # refused an append): the whole reply replaces it, as the SDK suggests (ChatStream.ts).
        self._slack.update(self._channel, str(self._ts), reply.text, reply.blocks)
        self._state = "ended"

    def settle_stopped(self, stopped: Message) -> None:
        """Tidy what a Stop cut short: the status cleared (nothing was posted), a placeholder
        replaced by `stopped`, a stream Slack had not ended, ended. Slack errors are logged only:
        the person asked for nothing more."""
        try:
            if self._stopped_in == "idle":
                self._slack.set_status(self._channel, self._thread_ts, "")
            elif self._stopped_in == "placeholder" and self._ts is not None:
                self._slack.update(self._channel, self._ts, stopped.text, stopped.blocks)
            elif self._stopped_in == "streaming" and self._ts is not None:
                self._slack.stop_stream(self._channel, self._ts)
        except SlackError as exc:
            log.debug("tidying a stopped answer in %s: %s", self._channel, exc.code)
        self._stopped_in = None

    def _refused(self, exc: SlackError) -> None:
        if exc.code == STOPPED_BY_USER:
            self._state = "stopped"
        elif self._ts is None:
            log.info("streaming refused in %s (%s): placeholder and update instead", self._channel, exc.code)
            self._post_placeholder()
        else:
            log.info("streaming in %s ended by Slack (%s): the reply replaces it", self._channel, exc.code)
            self._state = "broken"

    def _post_placeholder(self) -> None:
        self._ts = self._slack.post(
            self._channel, self._placeholder.text, blocks=self._placeholder.blocks, thread_ts=self._thread_ts
        )
        self._state = "placeholder"


def _seconds(ts: str | None) -> float:
    """A Slack ts as seconds; 0 (every Stop counts) when there is none."""
    try:
        return float(ts) if ts else 0.0
    except ValueError:
        return 0.0
