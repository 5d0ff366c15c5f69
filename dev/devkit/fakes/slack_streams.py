"""The fake Slack's streamed messages: chat.startStream, chat.appendStream, chat.stopStream,
with the rules of Slack's reference (slack-platform.md §7, slack_kit `chat.*Stream.json`).

- `recipient_user_id` and `recipient_team_id` are required when streaming to a channel
  (`missing_recipient_user_id`, `missing_recipient_team_id`); a stream is a reply (`thread_ts`).
- `markdown_text` (or the text of `chunks`) is at most 12,000 characters a call (`msg_too_long`),
  and not sent with `text` or `blocks` (`markdown_text_conflict`).
- After chat.stopStream the message takes no more (`message_not_in_streaming_state`); after the
  person pressed stop (`press_stop`), appends and stops answer `stopped_by_user`.
- chat.update on a message still streaming answers `streaming_state_conflict` (`check_updatable`).

A mixin of FakeSlack: its methods run with the state lock held, like FakeSlack's own.
"""

from __future__ import annotations

from typing import Any

MAX_MARKDOWN_TEXT = 12_000
# Conversations that are not a channel: a DM needs no recipient (Slack's ids: D… for a DM).
_DM_PREFIX = "D"


class StreamingMethods:
    """chat.*Stream for FakeSlack. Messages streamed are stored like any other, with `stream` set to
    "streaming", "stopped" or "stopped_by_user", and `stream_calls` counting their calls."""

    _messages: list[dict[str, Any]]
    _user_stops: bool

    def stream_handlers(self) -> dict[str, Any]:
        return {
            "chat.startStream": self._start_stream,
            "chat.appendStream": self._append_stream,
            "chat.stopStream": self._stop_stream,
        }

    def press_stop(self) -> None:
        """The person presses stop on every message streaming now (and any started later)."""
        with self._lock_of_state():
            self._user_stops = True
            for message in self._messages:
                if message.get("stream") == "streaming":
                    message["stream"] = "stopped_by_user"

    def stop_in_thread(self, channel: str, thread_ts: str, recipient: str | None = None) -> list[str]:
        """The person presses the agent's Stop in one thread: Slack ends the app's messages
        streaming there and returns their ts, as agent_session_stopped's streaming_message_ts
        lists them (empty when nothing was streaming: the event is sent all the same). Slack's
        reference does not say whether a Stop ends streams made for other people in the thread;
        with `recipient`, only those streamed to that person (recipient_user_id) are ended."""
        stopped: list[str] = []
        with self._lock_of_state():
            for message in self._messages:
                if (
                    message.get("stream") == "streaming"
                    and message.get("channel") == channel
                    and message.get("thread_ts") == thread_ts
                    and recipient in (None, message.get("recipient_user_id"))
                ):
                    message["stream"] = "stopped_by_user"
                    stopped.append(str(message["ts"]))
        return stopped

    def streamed(self) -> list[dict[str, Any]]:
        """Every message made by chat.startStream, oldest first (copies)."""
        return [m for m in self._select(lambda m: "stream" in m)]

    # -- methods ---------------------------------------------------------------------------

    def _start_stream(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(args, "channel", member=True)
        if not args.get("thread_ts"):
            raise self._refused("invalid_arguments", "thread_ts is required: a stream replies to a request")
        if not channel.startswith(_DM_PREFIX):
            if not args.get("recipient_user_id"):
                raise self._refused("missing_recipient_user_id", "required when streaming to a channel")
            if not args.get("recipient_team_id"):
                raise self._refused("missing_recipient_team_id", "required when streaming to a channel")
        text = self._markdown_of(args)
        bot = self.workspaces.known[self._team]
        thread_ts = self._thread_root(channel, args["thread_ts"])
        message = self._store(channel, {"text": text, "thread_ts": thread_ts}, user=bot.bot_user_id, bot_id=bot.bot_id)
        message["stream"] = "stopped_by_user" if self._user_stops else "streaming"
        message["recipient_user_id"] = args.get("recipient_user_id")
        message["recipient_team_id"] = args.get("recipient_team_id")
        return {"channel": channel, "ts": message["ts"]}

    def _append_stream(self, args: dict[str, Any]) -> dict[str, Any]:
        message = self._streaming(args)
        message["text"] = (message["text"] or "") + self._markdown_of(args)
        return {"channel": message["channel"], "ts": message["ts"]}

    def _stop_stream(self, args: dict[str, Any]) -> dict[str, Any]:
        message = self._streaming(args)
        message["text"] = (message["text"] or "") + self._markdown_of(args, required=False)
        if args.get("blocks") is not None:
            problem = self._blocks_problem(args["blocks"])
            if problem:
                raise self._refused(*problem)
            message["blocks"] = args["blocks"]
        message["stream"] = "stopped"
        return {"channel": message["channel"], "ts": message["ts"], "message": self._wire(message)}

    def check_updatable(self, message: dict[str, Any]) -> None:
        """chat.update's rule: a message still streaming cannot be edited."""
        if message.get("stream") == "streaming":
            raise self._refused("streaming_state_conflict", f"{message['ts']} is still streaming")

    # -- helpers ---------------------------------------------------------------------------

    def _streaming(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(args, "channel")
        message = self._find(channel, args.get("ts"))
        state = message.get("stream")
        if state == "stopped_by_user":
            raise self._refused("stopped_by_user", "the person stopped this answer")
        if state != "streaming":
            raise self._refused("message_not_in_streaming_state", f"{message['ts']} is {state or 'not a stream'}")
        return message

    def _markdown_of(self, args: dict[str, Any], *, required: bool = True) -> str:
        if args.get("markdown_text") is not None and (args.get("text") is not None or args.get("blocks") is not None):
            raise self._refused("markdown_text_conflict", "markdown_text with text or blocks")
        text = args.get("markdown_text")
        parts = [text] if isinstance(text, str) else []
        for chunk in args.get("chunks") or ():
            if isinstance(chunk, dict) and chunk.get("type") == "markdown_text" and isinstance(chunk.get("text"), str):
                parts.append(chunk["text"])
        joined = "".join(parts)
        if len(joined) > MAX_MARKDOWN_TEXT:
            raise self._refused("msg_too_long", f"markdown_text is {len(joined)} characters (max {MAX_MARKDOWN_TEXT})")
        return joined

    # Provided by FakeSlack.
    def _lock_of_state(self) -> Any:
        raise NotImplementedError

    def _select(self, keep: Any) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _channel(self, args: dict[str, Any], name: str, *, member: bool = False) -> str:
        raise NotImplementedError

    def _find(self, channel: str, ts: Any, error: str = "message_not_found") -> dict[str, Any]:
        raise NotImplementedError

    def _store(self, channel: str, args: dict[str, Any], *, user: str, bot_id: str | None) -> dict[str, Any]:
        raise NotImplementedError

    def _thread_root(self, channel: str, thread_ts: Any) -> str | None:
        raise NotImplementedError

    def _wire(self, message: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _refused(self, error: str, detail: str = "") -> Exception:
        raise NotImplementedError

    def _blocks_problem(self, blocks: Any) -> tuple[str, str] | None:
        raise NotImplementedError

    workspaces: Any
    _team: str
