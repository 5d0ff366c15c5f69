"""What a channel follows, in words and as the settings modal (pure).

`/pr following`, the App Home and `prdigest following` show each value with its source (the
config file, Slack, or the default); the modal shows the values that are set and leaves the
rest blank, so a blank field means "the file's value or the default", as an absent TOML key does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    InputBlock,
    MarkdownTextObject,
    Option,
    PlainTextInputElement,
    PlainTextObject,
    StaticSelectElement,
    TimePickerElement,
)
from slack_sdk.models.views import View

from bot.core.config import ChannelConfig, Defaults
from bot.core.strings.parsing import WEEKDAYS, duration_text
from bot.core.strings.patterns import lazy
from bot.models import AuditEntry, DigestNow, DigestRun, Language, Note
from bot.ports.slack import Message
from bot.render.mrkdwn import escape, link
from bot.render.slack.blocks import text_message
from bot.words import said, text

SETTINGS_CALLBACK = "channel_settings"
SETTINGS_ACTION = "open_channel_settings"  # the App Home's button
VALUE_ACTION = "value"  # every input's action_id: the block_id names the field
# plain_text_input holds at most 3,000 characters (slack_sdk PlainTextInputElement.max_length).
MAX_INPUT_CHARS = 3000
LIST_FIELDS = ("labels_include", "labels_exclude", "paths", "exclude_authors")
# The fields of the modal (ChannelConfig's names); what /pr following shows adds the window.
MODAL_FIELDS = (
    "repos",
    "post_at",
    "timezone",
    "language",
    "quiet_days",
    "cadence",
    "weekly_on",
    "releases",
    *LIST_FIELDS,
)
SHOWN_FIELDS = (
    "repos",
    "post_at",
    "timezone",
    "window",
    "language",
    "quiet_days",
    "cadence",
    "weekly_on",
    "releases",
    *LIST_FIELDS,
)
# A channel's own keys with no [defaults] counterpart, and what an unset one means.
CHANNEL_DEFAULTS: dict[str, object] = {"cadence": "daily", "weekly_on": 0, "releases": "off"}
CADENCES = ("daily", "weekly", "both")
RELEASES = ("off", "post")
# Fields chosen from a list in the modal (a static select): their value is the option's.
SELECTED = ("language", "quiet_days", "cadence", "weekly_on", "releases")
LANGUAGES: tuple[Language, ...] = ("en", "zh-CN")
QUIET_DAYS = ("note", "silent")
_CHANNEL_ID = lazy(r"[CG][A-Z0-9]{2,}")


def run_text(run: DigestRun | None, language: Language) -> str:
    """A channel's last digest run in one line (its problems are the caller's to tell)."""
    if run is None:
        return text(language, "home.never")
    return text(
        language,
        "home.run",
        day=run.day,
        prs=run.prs,
        messages=run.posted_messages,
        time=f"{run.finished_at:%H:%M}",
    )


def digest_now_text(now: DigestNow, language: Language, command: str) -> str:
    """`/pr digest`'s answer (digests/now.py), told to the asker alone."""
    match now.outcome:
        case "none":
            return told(language, "subs.none", cmd=command)
        case "not_in_channel":
            return told(language, "subs.invite_first")
        case "failed":
            reason = said(language, now.reason) if now.reason is not None else now.reason_text
            return told(language, "subs.digest_failed", day=now.day, reason=reason)
        case "busy":
            return told(language, "subs.digest_busy", day=now.day)
        case "posted":
            return told(language, "subs.digest_posted", day=now.day)
    next_at = now.next_at
    upcoming = (
        text(language, "subs.next", time=f"{next_at:%H:%M}", zone=now.zone, day=f"{next_at:%Y-%m-%d}")
        if next_at is not None
        else ""
    )
    shown = link(now.permalink, now.day) if now.permalink else now.day
    # Every value is ours (a day, a time, a link built from Slack's permalink): nothing to escape.
    return text(language, "subs.digest_already", day=now.day, link=shown, next=upcoming)


def told(language: Language, key: str, **values: str | int) -> str:
    """A sentence of bot/words told to the person who typed a subcommand, escaped as mrkdwn (its
    values may be what they typed)."""
    return escape(text(language, key, **values))


def told_notes(language: Language, *notes: Note) -> str:
    """Refusals (each a sentence of bot/words by key, with its values), one per line, escaped."""
    return escape("\n".join(said(language, note) for note in notes))


def spelled(name: str, value: Any) -> str | list[str]:
    """A field's value as the config file spells it ("09:30", "Asia/Shanghai", "24h")."""
    if isinstance(value, tuple):
        return list(value)
    if name == "post_at":
        return f"{value:%H:%M}"
    if name == "timezone":
        return str(value.key)
    if name == "window":
        return duration_text(value)
    if name == "weekly_on":
        return WEEKDAYS[int(value)].capitalize()
    return str(value)


def effective(name: str, config: ChannelConfig, defaults: Defaults) -> Any:
    """A field's value for the channel: its own, else the default's."""
    value = getattr(config, name)
    if value is not None:
        return value
    return CHANNEL_DEFAULTS[name] if name in CHANNEL_DEFAULTS else getattr(defaults, name)


def shown_value(name: str, config: ChannelConfig, defaults: Defaults, language: Language) -> str:
    """A field's effective value as a person reads it (the default's when the channel sets none)."""
    value = effective(name, config, defaults)
    if name in ("repos", *LIST_FIELDS):
        return ", ".join(value) if value else text(language, "subs.empty")
    if name in ("post_at", "timezone", "window"):
        return str(spelled(name, value))
    if name == "language":
        return text(language, f"language.{value}")
    if name == "quiet_days":
        return text(language, f"subs.quiet_{value}")
    if name == "cadence":
        return text(language, f"subs.cadence_{value}")
    if name == "weekly_on":
        return text(language, f"subs.weekday_{WEEKDAYS[int(value)]}")
    if name == "releases":
        return text(language, f"subs.releases_{value}")
    return str(value)


def saved_text(config: ChannelConfig, defaults: Defaults, language: Language) -> str:
    """What the settings modal saved, said back: when the digest, the weekly roll-up or both come."""
    cadence = effective("cadence", config, defaults)
    time = shown_value("post_at", config, defaults, language)
    zone = shown_value("timezone", config, defaults, language)
    day = shown_value("weekly_on", config, defaults, language)
    return text(language, f"subs.saved_{cadence}", time=time, zone=zone, day=day)


def unnamed(values: Sequence[str], hidden: frozenset[str], language: Language) -> list[str]:
    """`values` with each repository of `hidden` (lower case) said as "a private repository"."""
    return [text(language, "repo.private") if value.lower() in hidden else value for value in values]


def change_text(entry: AuditEntry, language: Language, hidden: frozenset[str] = frozenset()) -> str:
    """One audit entry: who did what, when (mrkdwn: the person is a mention); the repositories
    of `hidden` unnamed."""
    detail = ", ".join(unnamed(entry.detail, hidden, language)) if entry.detail else text(language, "subs.empty")
    action = text(language, f"subs.action_{entry.action}", detail=escape(detail))
    user = f"<@{entry.user}>" if entry.user.isalnum() else escape(entry.user)
    return text(language, "subs.change", action=action, user=user, time=f"{entry.at.astimezone(UTC):%Y-%m-%d %H:%M}")


@dataclass(frozen=True)
class Following:
    """What `/pr following` shows of a channel: its effective config (None: it follows nothing)
    and where each value comes from, its last run (in words) and last change, and `hidden`, the
    repositories (lower case) the reply may not name, said as "a private repository"."""

    config: ChannelConfig | None
    sources: Mapping[str, str]
    last_run: str
    last_change: AuditEntry | None
    hidden: frozenset[str] = frozenset()


def following_message(following: Following, defaults: Defaults, language: Language, command: str) -> Message:
    """`/pr following`: each value, where it comes from, the last run and the last change."""
    config, sources, hidden = following.config, following.sources, following.hidden
    last_run, last_change = following.last_run, following.last_change
    if config is None:
        return text_message(escape(text(language, "subs.none", cmd=command)))
    lines = [text(language, "subs.title")]
    for name in SHOWN_FIELDS:
        source = text(language, f"subs.source_{sources.get(name, 'default')}")
        field = text(language, f"subs.field_{name}")
        value = shown_value(name, config, defaults, language)
        if name == "repos" and config.repos:
            value = ", ".join(unnamed(config.repos, hidden, language))
        lines.append(text(language, "subs.line", field=field, value=escape(value), source=source))
    lines.append(text(language, "subs.last_run", last=escape(last_run)))
    if last_change is not None:
        lines.append(text(language, "subs.last_change", change=change_text(last_change, language, hidden)))
    return text_message("\n".join(lines))


def _channel(channel: str) -> str:
    """A link to the channel; the id is checked, since a link is the one mrkdwn we do not escape."""
    return f"<#{channel}>" if _CHANNEL_ID.fullmatch(channel) else escape(channel)


def _input(
    name: str, element: Any, language: Language, *, optional: bool = True, hint: str | None = None
) -> InputBlock:
    return InputBlock(
        block_id=name,
        label=PlainTextObject(text=text(language, f"subs.field_{name}")),
        element=element,
        optional=optional,
        hint=PlainTextObject(text=text(language, hint)) if hint else None,
    )


def _text_input(value: str, *, multiline: bool = False, placeholder: str | None = None) -> PlainTextInputElement:
    return PlainTextInputElement(
        action_id=VALUE_ACTION,
        initial_value=value[:MAX_INPUT_CHARS] or None,
        multiline=multiline,
        max_length=MAX_INPUT_CHARS,
        placeholder=PlainTextObject(text=placeholder) if placeholder else None,
    )


def _select(choices: Sequence[tuple[str, str]], chosen: str | None) -> StaticSelectElement:
    options = [Option(value=value, text=PlainTextObject(text=label)) for value, label in choices]
    initial = next((option for option in options if option.value == chosen), None)
    return StaticSelectElement(action_id=VALUE_ACTION, options=options, initial_option=initial)


def settings_modal(channel: str, config: ChannelConfig | None, language: Language) -> dict[str, Any]:
    """The settings modal of `channel`, its fields filled with the values the channel sets."""
    repos = "\n".join(config.repos) if config else ""
    post_at = config.post_at if config else None
    zone = config.timezone if config else None
    lists = {name: ", ".join(getattr(config, name)) if config else "" for name in LIST_FIELDS}
    chosen_language = config.language if config else None
    quiet = config.quiet_days if config else None
    cadence = config.cadence if config else None
    weekday = WEEKDAYS[config.weekly_on] if config and config.weekly_on is not None else None
    releases = config.releases if config else None
    blocks: list[Block] = [
        ContextBlock(elements=[MarkdownTextObject(text=text(language, "subs.modal_intro", channel=_channel(channel)))]),
        _input("repos", _text_input(repos, multiline=True), language, optional=False, hint="subs.hint_repos"),
        _input(
            "post_at",
            TimePickerElement(action_id=VALUE_ACTION, initial_time=f"{post_at:%H:%M}" if post_at else None),
            language,
        ),
        _input("timezone", _text_input(zone.key if zone else ""), language, hint="subs.hint_timezone"),
        _input(
            "language",
            _select([(name, text(language, f"language.{name}")) for name in LANGUAGES], chosen_language),
            language,
        ),
        _input(
            "quiet_days",
            _select([(name, text(language, f"subs.quiet_{name}")) for name in QUIET_DAYS], quiet),
            language,
        ),
        _input(
            "cadence", _select([(name, text(language, f"subs.cadence_{name}")) for name in CADENCES], cadence), language
        ),
        _input(
            "weekly_on",
            _select([(name, text(language, f"subs.weekday_{name}")) for name in WEEKDAYS], weekday),
            language,
        ),
        _input(
            "releases",
            _select([(name, text(language, f"subs.releases_{name}")) for name in RELEASES], releases),
            language,
        ),
        *(_input(name, _text_input(lists[name]), language, hint="subs.hint_list") for name in LIST_FIELDS),
    ]
    view = View(
        type="modal",
        callback_id=SETTINGS_CALLBACK,
        private_metadata=json.dumps({"channel": channel}),
        title=PlainTextObject(text=text(language, "subs.modal_title")),
        submit=PlainTextObject(text=text(language, "subs.modal_save")),
        close=PlainTextObject(text=text(language, "subs.modal_cancel")),
        blocks=blocks,
    )
    shown: dict[str, Any] = view.to_dict()
    return shown


def modal_channel(view: Mapping[str, Any]) -> str | None:
    """The channel a submitted settings modal is about (its private_metadata, which we wrote)."""
    try:
        channel = json.loads(str(view.get("private_metadata") or "")).get("channel")
    except (ValueError, AttributeError):
        return None
    return channel if isinstance(channel, str) else None


def _split(value: str) -> list[str]:
    return [part for part in (piece.strip() for piece in value.replace("\n", ",").split(",")) if part]


def modal_values(view: Mapping[str, Any]) -> dict[str, str | list[str]]:
    """The submitted fields, as the config file spells them; blank ones are left out (repos stays,
    since a channel needs one)."""
    state = (view.get("state") or {}).get("values") or {}
    values: dict[str, str | list[str]] = {}
    for name in MODAL_FIELDS:
        element = (state.get(name) or {}).get(VALUE_ACTION) or {}
        if not isinstance(element, dict):
            continue
        if name == "repos":
            values[name] = [part for piece in _split(str(element.get("value") or "")) for part in piece.split()]
        elif name == "post_at":
            if element.get("selected_time"):
                values[name] = str(element["selected_time"])
        elif name in SELECTED:
            option = element.get("selected_option") or {}
            if isinstance(option, dict) and option.get("value"):
                values[name] = str(option["value"])
        elif name in LIST_FIELDS:
            parts = _split(str(element.get("value") or ""))
            if parts:
                values[name] = parts
        elif str(element.get("value") or "").strip():
            values[name] = str(element["value"]).strip()
    return values
