"""SlackPort: what prdigest asks of Slack's Web API, in our own words and values.

Owns the shape of every call the surface and the posting rules make (post, update, ephemeral,
streams, status and prompts, views, unfurls, conversations and users reads, history, auth); not
how they reach Slack (slack/web.py, the one adapter) nor what is said (render/). Block Kit and
views travel as the plain dicts render/ builds. Every method raises bot.errors.SlackError: its
`code` is Slack's error name, or SlackError.TRANSPORT when no answer came.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

# Slack's answers that say "not now" rather than "no": asking later can succeed.
TRANSIENT = frozenset({"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"})

Blocks = Sequence[Mapping[str, Any]]
# A message's metadata as chat.postMessage takes it: {"event_type": …, "event_payload": {…}}.
Metadata = Mapping[str, Any]


@dataclass(frozen=True)
class Message:
    """What chat.postMessage takes: `text` is the notification and screen-reader fallback (mrkdwn).
    render/ builds these; the posting rules hand them to the port without looking inside."""

    text: str
    blocks: tuple[dict[str, Any], ...]


class SlackPort(Protocol):
    """One workspace's Slack, as one token speaks to it."""

    # -- messages ----------------------------------------------------------------------------

    def post(
        self,
        channel: str,
        text: str,
        *,
        blocks: Blocks | None = None,
        thread_ts: str | None = None,
        metadata: Metadata | None = None,
    ) -> str:
        """Post a message (links never unfurled); its ts."""
        ...

    def post_ephemeral(
        self, channel: str, user: str, text: str, *, blocks: Blocks | None = None, thread_ts: str | None = None
    ) -> None:
        """A message only `user` sees."""
        ...

    def update(self, channel: str, ts: str, text: str, blocks: Blocks) -> None:
        """Replace the message at `ts` (links never unfurled)."""
        ...

    def permalink(self, channel: str, ts: str) -> str: ...

    def unfurl(
        self,
        unfurls: Mapping[str, Any],
        *,
        channel: str | None = None,
        ts: str | None = None,
        unfurl_id: str | None = None,
        source: str | None = None,
    ) -> None:
        """Unfurl a message's links (channel and ts), or a composer's (unfurl_id and source)."""
        ...

    # -- answers as they are made --------------------------------------------------------------

    def set_status(self, channel: str, thread_ts: str, status: str) -> None:
        """The thread's "is thinking…" status ("" clears it)."""
        ...

    def suggest_prompts(self, channel: str, title: str, prompts: Sequence[Mapping[str, str]]) -> None:
        """The Messages tab's suggested prompts in the DM `channel`."""
        ...

    def start_stream(self, channel: str, thread_ts: str, markdown: str, *, user: str | None, team: str | None) -> str:
        """Start a streamed reply in a thread, for `user` of `team`; the streamed message's ts."""
        ...

    def append_stream(self, channel: str, ts: str, markdown: str) -> None: ...

    def stop_stream(self, channel: str, ts: str, markdown: str | None = None) -> None: ...

    # -- views ---------------------------------------------------------------------------------

    def publish_home(self, user: str, view: Mapping[str, Any]) -> None: ...

    def open_view(self, trigger_id: str, view: Mapping[str, Any]) -> None: ...

    # -- reads ---------------------------------------------------------------------------------

    def channel_info(self, channel: str) -> Mapping[str, Any]:
        """conversations.info's channel object ({} when it has none)."""
        ...

    def members_page(self, channel: str, limit: int, cursor: str | None) -> tuple[list[str], str]:
        """One page of a channel's members, and the cursor of the next ("" after the last)."""
        ...

    def user_info(self, user: str, *, locale: bool = False) -> Mapping[str, Any]:
        """users.info's user object ({} when it has none); with `locale`, its locale too."""
        ...

    def open_dm(self, user: str) -> str:
        """The id of the app's DM with `user`."""
        ...

    def recent_messages(self, channel: str, limit: int) -> list[Mapping[str, Any]]:
        """The newest `limit` top-level messages of a channel, one page, metadata included."""
        ...

    def thread_messages(self, channel: str, ts: str) -> Iterator[Mapping[str, Any]]:
        """The messages of the thread at `ts`, metadata included: each further page is asked
        for only when the one before has been read."""
        ...

    def identity(self) -> Mapping[str, Any]:
        """auth.test's answer: who the token is (team, user…)."""
        ...
