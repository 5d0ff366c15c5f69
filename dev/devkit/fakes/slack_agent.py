"""What the fake Slack knows of the agent messaging experience and of link unfurling: the checks
Slack makes on assistant.threads.setSuggestedPrompts and chat.unfurl (pure), and the events it
sends for them (app_home_opened on the Messages tab, message.im, link_shared), shaped as Slack's
event reference shows them, so tests sign and send what Slack would.

Errors are Slack's own names (chat.unfurl and assistant.threads.setSuggestedPrompts references).
"""

from __future__ import annotations

import time
from typing import Any

# "Each prompt should be supplied with its title and message"; Slack shows at most four.
MAX_PROMPTS = 4
UNFURL_SOURCES = ("composer", "conversations_history")


def prompts_problem(args: dict[str, Any]) -> tuple[str, str] | None:
    """The (error, detail) Slack answers to these setSuggestedPrompts arguments, or None."""
    if not isinstance(args.get("channel_id"), str) or not args["channel_id"]:
        return "channel_not_found", "channel_id is required"
    prompts = args.get("prompts")
    if not isinstance(prompts, list) or not 1 <= len(prompts) <= MAX_PROMPTS:
        return "invalid_arguments", f"prompts must be a list of 1 to {MAX_PROMPTS} prompts"
    for i, prompt in enumerate(prompts):
        if not isinstance(prompt, dict) or set(prompt) != {"title", "message"}:
            return "invalid_arguments", f"prompts[{i}] must have exactly a title and a message"
        if not all(isinstance(prompt[key], str) and prompt[key].strip() for key in ("title", "message")):
            return "invalid_arguments", f"prompts[{i}]: title and message must be non-empty strings"
    title = args.get("title")
    if title is not None and not isinstance(title, str):
        return "invalid_arguments", "title must be a string"
    return None


def unfurl_target(args: dict[str, Any]) -> tuple[str, str] | tuple[str, str, str]:
    """Which unfurl a chat.unfurl call addresses: ("ts", channel, ts) or ("id", unfurl_id, source);
    or ("error", detail) with Slack's error name first when neither pair is complete."""
    channel, ts, unfurl_id, source = (args.get(k) for k in ("channel", "ts", "unfurl_id", "source"))
    if unfurl_id or source:
        if not unfurl_id:
            return "missing_unfurl_id", "unfurl_id and source go together"
        if not source:
            return "missing_source", "unfurl_id and source go together"
        if source not in UNFURL_SOURCES:
            return "invalid_source", f"source={source!r}"
        return "id", str(unfurl_id), str(source)
    if not channel:
        return "missing_channel", "channel and ts, or unfurl_id and source"
    if not ts:
        return "missing_ts", "channel and ts, or unfurl_id and source"
    return "ts", str(channel), str(ts)


def unfurls_problem(unfurls: Any) -> tuple[str, str] | None:
    """Slack's answer to an `unfurls` that is not a map of URLs to {"blocks": [...]}, or None."""
    if unfurls is None:
        return "missing_unfurls", "unfurls is required"
    if not isinstance(unfurls, dict) or not unfurls:
        return "invalid_unfurls_format", "unfurls must be a JSON object of URL → unfurl"
    for url, unfurl in unfurls.items():
        if not isinstance(unfurl, dict) or not isinstance(unfurl.get("blocks"), list):
            return "cannot_parse_attachment", f"{url}: an unfurl needs blocks"
    return None


# -- events, as Slack sends them (api.slack.com/events/…) -------------------------------------


def messages_tab_opened(user: str, channel: str) -> dict[str, Any]:
    """app_home_opened when a person opens the app's Messages tab (the DM with the app)."""
    return {"type": "app_home_opened", "user": user, "channel": channel, "tab": "messages", "event_ts": "1.000100"}


def im_message(user: str, channel: str, text: str, ts: str, **extra: Any) -> dict[str, Any]:
    """message.im: a person writes in their DM with the app."""
    return {
        "type": "message",
        "channel": channel,
        "channel_type": "im",
        "user": user,
        "text": text,
        "ts": ts,
        "event_ts": ts,
        **extra,
    }


def agent_session_stopped(
    user: str, channel: str, thread_ts: str, streaming: list[str], *, at: float | None = None
) -> dict[str, Any]:
    """agent_session_stopped: the person clicked Stop while the app was working in a thread (at
    `at`, now by default); `streaming` is the ts of the streamed messages Slack stopped
    (docs.slack.dev/reference/events/agent_session_stopped)."""
    return {
        "type": "agent_session_stopped",
        "channel": channel,
        "thread_ts": thread_ts,
        "user": user,
        "streaming_message_ts": streaming,
        "event_ts": f"{time.time() if at is None else at:.6f}",
    }


def link_shared(
    user: str,
    channel: str,
    message_ts: str,
    urls: list[str],
    *,
    unfurl_id: str | None = None,
    source: str | None = None,
) -> dict[str, Any]:
    """link_shared for links on a domain the app unfurls (github.com)."""
    event: dict[str, Any] = {
        "type": "link_shared",
        "channel": channel,
        "is_bot_user_member": True,
        "user": user,
        "message_ts": message_ts,
        "links": [{"domain": "github.com", "url": url} for url in urls],
        "event_ts": message_ts,
    }
    if unfurl_id is not None:
        event |= {"unfurl_id": unfurl_id, "source": source or "conversations_history"}
    return event
