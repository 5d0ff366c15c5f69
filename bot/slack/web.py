"""SlackWeb: the SlackPort (ports/slack.py) over one slack_sdk WebClient, and the one place that
reads SlackApiError and its kin.

Owns how each of our calls is spelled for the Web API and the translation of whatever the
client raises into SlackError (`slack_errors`), as httpx maps httpcore's errors in one context
manager. It holds no rule: what a refusal means is the caller's. The client, its token, retries
and counted calls are slack/clients.py's; one SlackWeb per client (per workspace in OAuth mode),
and a Bolt listener's is `web_of(context)`, over the client Bolt made for the request.

Nothing of an exception's text is kept: slack_sdk's message repeats the whole response, and a
proxy's error page with it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from http.client import HTTPException
from typing import TYPE_CHECKING, Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackRequestError

from bot.core.strings.patterns import lazy
from bot.errors import SlackError
from bot.ports.slack import Blocks, Metadata, SlackPort

if TYPE_CHECKING:
    # Only for a listener's `web_of`: the CLI's posting path never imports Bolt.
    from slack_bolt import BoltContext

__all__ = ["SlackWeb", "slack_error", "slack_errors", "web_of"]

# Slack's error names are lower-case words joined by underscores. Anything else in `error` is
# slack_sdk's note about a body that was not JSON (it quotes a proxy's HTML page): not repeated.
_ERROR_NAME = lazy(r"[a-z0-9_]{1,64}")
# missing_scope's `needed`: scope names such as chat:write or users:read.email, comma-separated.
_SCOPES = lazy(r"[a-z0-9_:.,]{1,200}")
UNREADABLE = "unreadable_response"
UNKNOWN = "unknown_error"

# What urllib and http.client raise when no answer came (URLError and socket timeouts are
# OSError; RemoteDisconnected, IncompleteRead and InvalidURL are HTTPException), and what
# slack_sdk raises for a request it would not send (a URL that is not http(s)).
TRANSPORT_ERRORS = (OSError, HTTPException, SlackRequestError)


class SlackWeb:
    """One workspace's Slack through `client`. Every call is made inside `slack_errors()`."""

    def __init__(self, client: WebClient) -> None:
        self._client = client

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
        with slack_errors():
            posted = self._client.chat_postMessage(
                channel=channel,
                text=text,
                blocks=_listed(blocks),
                thread_ts=thread_ts,
                unfurl_links=False,
                unfurl_media=False,
                metadata=dict(metadata) if metadata is not None else None,
            )
        return str(posted["ts"])

    def post_ephemeral(
        self, channel: str, user: str, text: str, *, blocks: Blocks | None = None, thread_ts: str | None = None
    ) -> None:
        with slack_errors():
            self._client.chat_postEphemeral(
                channel=channel, user=user, thread_ts=thread_ts, text=text, blocks=_listed(blocks)
            )

    def update(self, channel: str, ts: str, text: str, blocks: Blocks) -> None:
        # No unfurl_links / unfurl_media: chat.postMessage takes them, chat.update does not
        # (https://docs.slack.dev/reference/methods/chat.update), and Slack ignores them there.
        with slack_errors():
            self._client.chat_update(channel=channel, ts=ts, text=text, blocks=_listed(blocks))

    def permalink(self, channel: str, ts: str) -> str:
        with slack_errors():
            return str(self._client.chat_getPermalink(channel=channel, message_ts=ts)["permalink"])

    def unfurl(
        self,
        unfurls: Mapping[str, Any],
        *,
        channel: str | None = None,
        ts: str | None = None,
        unfurl_id: str | None = None,
        source: str | None = None,
    ) -> None:
        with slack_errors():
            self._client.chat_unfurl(unfurls=dict(unfurls), channel=channel, ts=ts, unfurl_id=unfurl_id, source=source)

    # -- answers as they are made --------------------------------------------------------------

    def set_status(self, channel: str, thread_ts: str, status: str) -> None:
        with slack_errors():
            self._client.assistant_threads_setStatus(channel_id=channel, thread_ts=thread_ts, status=status)

    def suggest_prompts(self, channel: str, title: str, prompts: Sequence[Mapping[str, str]]) -> None:
        with slack_errors():
            # No thread_ts: the Messages tab's own prompts (agent messaging experience).
            self._client.assistant_threads_setSuggestedPrompts(
                channel_id=channel, title=title, prompts=[dict(prompt) for prompt in prompts]
            )

    def start_stream(self, channel: str, thread_ts: str, markdown: str, *, user: str | None, team: str | None) -> str:
        with slack_errors():
            started = self._client.chat_startStream(
                channel=channel,
                thread_ts=thread_ts,
                markdown_text=markdown,
                recipient_user_id=user,
                recipient_team_id=team,
            )
        return str(started["ts"])

    def append_stream(self, channel: str, ts: str, markdown: str) -> None:
        with slack_errors():
            self._client.chat_appendStream(channel=channel, ts=ts, markdown_text=markdown)

    def stop_stream(self, channel: str, ts: str, markdown: str | None = None) -> None:
        with slack_errors():
            self._client.chat_stopStream(channel=channel, ts=ts, markdown_text=markdown)

    # -- views ---------------------------------------------------------------------------------

    def publish_home(self, user: str, view: Mapping[str, Any]) -> None:
        with slack_errors():
            self._client.views_publish(user_id=user, view=dict(view))

    def open_view(self, trigger_id: str, view: Mapping[str, Any]) -> None:
        with slack_errors():
            self._client.views_open(trigger_id=trigger_id, view=dict(view))

    # -- reads ---------------------------------------------------------------------------------

    def channel_info(self, channel: str) -> Mapping[str, Any]:
        with slack_errors():
            info = self._client.conversations_info(channel=channel)
        return _object(info.get("channel"))

    def members_page(self, channel: str, limit: int, cursor: str | None) -> tuple[list[str], str]:
        with slack_errors():
            page = self._client.conversations_members(channel=channel, limit=limit, cursor=cursor)
        members = [member for member in page.get("members") or [] if isinstance(member, str)]
        return members, str((page.get("response_metadata") or {}).get("next_cursor") or "")

    def user_info(self, user: str, *, locale: bool = False) -> Mapping[str, Any]:
        with slack_errors():
            info = self._client.users_info(user=user, include_locale=True if locale else None)
        return _object(info.get("user"))

    def open_dm(self, user: str) -> str:
        with slack_errors():
            opened = self._client.conversations_open(users=user)
        return str((opened.get("channel") or {})["id"])

    def recent_messages(self, channel: str, limit: int) -> list[Mapping[str, Any]]:
        with slack_errors():
            page = self._client.conversations_history(channel=channel, include_all_metadata=True, limit=limit)
        return list(page.get("messages") or [])

    def thread_messages(self, channel: str, ts: str) -> Iterator[Mapping[str, Any]]:
        with slack_errors():
            # A SlackResponse iterates page by page; each further page is a request, made here.
            for page in self._client.conversations_replies(channel=channel, ts=ts, include_all_metadata=True):
                yield from page.get("messages") or []

    def identity(self) -> Mapping[str, Any]:
        with slack_errors():
            return _object(self._client.auth_test().data)


def web_of(context: BoltContext) -> SlackPort:
    """The port over the client Bolt made for this request (its workspace's token)."""
    client = context.client
    assert client is not None  # Bolt sets it before any listener runs
    return SlackWeb(client)


def _listed(blocks: Blocks | None) -> list[dict[str, Any]] | None:
    # None stays None: slack_sdk leaves an absent argument out of the request.
    return None if blocks is None else [dict(block) for block in blocks]


def _object(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


# -- the translation ---------------------------------------------------------------------------


@contextmanager
def slack_errors() -> Iterator[None]:
    """Raise SlackError, from the original, for whatever a WebClient call inside raises."""
    try:
        yield
    except (SlackApiError, *TRANSPORT_ERRORS) as exc:
        raise slack_error(exc) from exc


def slack_error(exc: SlackApiError | OSError | HTTPException | SlackRequestError) -> SlackError:
    if not isinstance(exc, SlackApiError):
        return SlackError(SlackError.TRANSPORT, kind=type(exc).__name__)
    response: Any = exc.response  # a SlackResponse: its JSON body in `data`, and `headers`
    body = getattr(response, "data", response)
    body = body if isinstance(body, Mapping) else {}
    error = body.get("error")
    if error is None:
        code = UNKNOWN
    else:
        code = error if isinstance(error, str) and _ERROR_NAME.fullmatch(error) else UNREADABLE
    needed = body.get("needed")
    headers = getattr(response, "headers", None)
    return SlackError(
        code,
        needed=needed if isinstance(needed, str) and _SCOPES.fullmatch(needed) else None,
        retry_after=_retry_after(headers if isinstance(headers, Mapping) else {}),
    )


def _retry_after(headers: Mapping[str, Any]) -> float | None:
    """Seconds Slack asks us to wait (its 429 answers carry Retry-After), or None."""
    value = headers.get("Retry-After", headers.get("retry-after"))
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return seconds if 0 <= seconds < float("inf") else None
