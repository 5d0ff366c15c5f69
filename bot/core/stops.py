"""Whose answer a Stop ends: the one rule for Slack's Stop (agent_session_stopped), pure.

Several people may be waiting for answers in one thread, and Slack's Stop is pressed in the
thread. A Stop ends the streams Slack says it stopped (the event's `streaming_message_ts`) and
the presser's own answers there that were asked before it (an answer not yet streaming: only a
status, or a placeholder); never another person's answer, nor one asked after the Stop (a late
or repeated delivery of it). Where the marks are kept is store/threads.py's.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StopPress:
    """One press of Stop, as agent_session_stopped tells it."""

    channel: str
    thread_ts: str
    user: str | None  # who pressed it; Slack always says, an event without it ends only `streams`
    at: float  # Slack's clock (event_ts), as a question's ts is
    streams: tuple[str, ...]  # the ts of the streamed messages Slack ended for it


def ends_answer(*, stream_ended: bool, asker_pressed_at: float | None, asked_at: float) -> bool:
    """Whether an answer in progress is stopped: Slack ended its stream, or its asker pressed Stop
    in its thread after asking (`asked_at`, the question's ts; 0 when unknown: any press counts)."""
    return stream_ended or (asker_pressed_at is not None and asker_pressed_at >= asked_at)
