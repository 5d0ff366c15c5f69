"""Subscriptions: what each channel follows, from the config file and from Slack, and the rules
for changing it there.

The config file's channels are the baseline. A Slack edit of one of them is refused unless
`[slack] allow_channel_edits`; then it is kept beside the file and overrides the file's values
for that channel. Every value is checked with the file's own rules (core/config.py ChannelConfig),
so a schedule typed in a modal is held to exactly what the TOML file would be. Who may edit
(editors or the channel's members) is asked of Slack by the caller; this module knows no vendor.
In OAuth mode each installed workspace but the home one is held to its caps (`[slack]
workspace_max_repos`, `workspace_max_channels`): the distinct repositories its channels follow,
and the channels that follow any, counted under one lock of the workspace, so that two
channels' follows at once cannot both pass a cap.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import ValidationError

from bot.core.config import MAX_GLOBS, ChannelConfig, FileConfig, SlackConfig
from bot.core.strings.globs import MAX_GLOB_CHARS, MAX_GLOB_WILDCARDS, first_problem
from bot.core.strings.parsing import REPO_PATTERN
from bot.errors import ToldError, quoted
from bot.models import AuditEntry, Note
from bot.store.subscriptions import ChannelEdits, EditValue, SubscriptionStore

log = logging.getLogger(__name__)

Source = Literal["file", "slack", "default"]
# What Slack may set, in the order /pr following and the modal show them (ChannelConfig's names).
EDITABLE = (
    "repos",
    "post_at",
    "timezone",
    "language",
    "quiet_days",
    "cadence",
    "weekly_on",
    "releases",
    "labels_include",
    "labels_exclude",
    "paths",
    "exclude_authors",
)
# A digest of more repositories than this is no longer read; the file may list more.
MAX_REPOS = 20
# The change lock of the whole workspace, taken before a channel's when caps apply (a channel id
# is never "*").
WORKSPACE_LOCK = "*"


@dataclass(frozen=True)
class WorkspaceCaps:
    """What one installed workspace may set up from Slack ([slack] workspace_max_*)."""

    max_repos: int
    max_channels: int


class EditRefused(ToldError):
    """A change from Slack that is not allowed, or not possible; the note says why."""


class FieldErrors(Exception):
    """Values that break the config file's rules, by field: each note says what is wrong with it."""

    def __init__(self, errors: Mapping[str, Note]) -> None:
        super().__init__(", ".join(errors))
        self.errors = dict(errors)


@dataclass(frozen=True)
class ChannelView:
    """A channel as it is followed now: its effective config and where each value comes from."""

    channel: str
    config: ChannelConfig
    sources: Mapping[str, Source]
    in_file: bool
    edits: ChannelEdits | None


def merged(
    channel: str, base: ChannelConfig | None, values: Mapping[str, EditValue], *, saved: bool = False
) -> ChannelConfig:
    """The channel's config with `values` (as the file spells them) over `base`, checked with the
    file's rules (`saved`: values read back from the store, whose glob lists may predate the glob
    limits). Raises FieldErrors naming each field that breaks them."""
    repos = values.get("repos", list(base.repos) if base else [])
    try:
        checked = ChannelConfig.model_validate({**values, "id": channel, "repos": repos}, context={"saved": saved})
    except ValidationError as exc:
        raise FieldErrors(_field_notes(exc, {**values, "repos": repos})) from None
    if base is None:
        return checked
    return base.model_copy(update={name: getattr(checked, name) for name in values})


def _field_notes(error: ValidationError, values: Mapping[str, object]) -> dict[str, Note]:
    notes: dict[str, Note] = {}
    for problem in error.errors():
        name = str(problem["loc"][0]) if problem["loc"] else "id"
        if name not in notes:
            notes[name] = _field_note(name, problem["type"], values.get(name))
    return notes


def _field_note(name: str, kind: str, value: object) -> Note:
    """What is wrong with one field, as a sentence of bot/words (the rules' own messages are English)."""
    if name == "repos":
        if kind == "too_short":
            return Note("subs.bad_no_repos")
        repos = value if isinstance(value, list | tuple) else [value]
        bad = next((repo for repo in repos if not REPO_PATTERN.fullmatch(str(repo))), "")
        return Note("subs.bad_repo", {"value": quoted(str(bad))})
    if name in ("paths", "exclude_authors") and isinstance(value, list | tuple):
        return _glob_note([str(pattern) for pattern in value])
    shown = quoted(value if isinstance(value, str) else ", ".join(map(str, value)) if isinstance(value, list) else "")
    if name in ("post_at", "timezone", "language", "quiet_days"):
        return Note(f"subs.bad_{name}", {"value": shown})
    if name == "id":
        return Note("subs.bad_channel")
    return Note("subs.bad_value", {"value": shown})


def _glob_note(patterns: list[str]) -> Note:
    """The first rule of the glob limits these patterns break (core/config.py _check_globs)."""
    if len(patterns) > MAX_GLOBS:
        return Note("subs.bad_globs_many", {"limit": MAX_GLOBS})
    found = first_problem(patterns, "filter")
    if found is not None:
        problem, shown = found
        return Note(
            f"subs.bad_glob_{problem}",
            {"value": quoted(shown), "limit": MAX_GLOB_CHARS, "wildcards": MAX_GLOB_WILDCARDS},
        )
    return Note("subs.bad_value", {"value": quoted(", ".join(patterns))})


def sources_of(base: ChannelConfig | None, edits: ChannelEdits | None) -> dict[str, Source]:
    slack = edits.values if edits else {}
    fields_set = base.model_fields_set if base else set()
    return {
        name: "slack" if name in slack else "file" if name in fields_set else "default"
        for name in (*EDITABLE, "window")
    }


@dataclass(frozen=True)
class ConfigFile:
    """The config file as one workspace's subscriptions see it: the channels it defines (none for
    a workspace other than the home one) and its path, which a refusal to edit them names."""

    channels: Sequence[ChannelConfig]
    path: str


class Subscriptions:
    def __init__(
        self,
        slack: SlackConfig,
        file: ConfigFile,
        store: SubscriptionStore,
        is_private: Callable[[str], bool],
        now: Callable[[], datetime],
        caps: WorkspaceCaps | None = None,
    ) -> None:
        # None: the single or home workspace, which the operator runs (no caps but MAX_REPOS).
        self._caps = caps
        self._slack = slack
        self._path = file.path
        self._file = {channel.id: channel for channel in file.channels}
        self._store = store
        self._is_private = is_private
        self._now = now

    # -- reading ---------------------------------------------------------------------------

    def channels(self) -> list[ChannelView]:
        """Every channel that follows a repository: the file's first, then Slack's, by id.

        Raises StoreError when the store cannot be read.
        """
        edits = self._store.all()
        views = [self._view(channel, edits.get(channel)) for channel in self._file]
        views += [self._view(channel, edits[channel]) for channel in sorted(edits) if channel not in self._file]
        return [view for view in views if view is not None]

    def configs(self) -> list[ChannelConfig]:
        """The effective config of every channel (what the scheduler plans from)."""
        return [view.config for view in self.channels()]

    def file_config(self, channel: str) -> ChannelConfig | None:
        """The channel as the config file sets it (no store read: safe before ack())."""
        return self._file.get(channel)

    def view(self, channel: str) -> ChannelView | None:
        return self._view(channel, self._store.get(channel))

    def _view(self, channel: str, edits: ChannelEdits | None) -> ChannelView | None:
        base = self._file.get(channel)
        if base is not None and not self._slack.allow_channel_edits:
            edits = None  # edits kept from a time they were allowed no longer count
        if edits is None or (base is None and not edits.values.get("repos")):
            # No repository (the last one unfollowed; its settings kept for a later follow).
            return ChannelView(channel, base, sources_of(base, None), True, None) if base else None
        try:
            config = merged(channel, base, edits.values, saved=True)
        except FieldErrors as exc:
            # Saved under other rules (an older version): the file's values, or nothing, rather
            # than a channel that breaks every tick.
            log.warning("the Slack settings of %s no longer pass the config's rules (%s)", channel, exc)
            return ChannelView(channel, base, sources_of(base, None), True, None) if base else None
        return ChannelView(channel, config, sources_of(base, edits), base is not None, edits)

    def audit(self, channel: str | None = None) -> list[AuditEntry]:
        return self._store.audit(channel)

    # -- who may change what ---------------------------------------------------------------

    def refusal(self, channel: str, user: str, is_member: Callable[[], bool]) -> Note | None:
        """Why `user` may not change `channel`'s subscriptions from Slack, or None when they may.

        `is_member` asks Slack; it is called only when no editors are configured.
        """
        if channel in self._file and not self._slack.allow_channel_edits:
            return Note("subs.refused_file", {"path": self._path})
        editors = self._slack.editors
        if editors and user not in editors:
            return Note("subs.refused_editor")
        if not editors and not is_member():
            return Note("subs.refused_member", {"channel": channel})
        return None

    def feedback_refusal(self, user: str, is_member: Callable[[], bool]) -> Note | None:
        """Why `user` may not clear a channel's feedback, or None when they may: the editors of
        `[slack] editors`, else the channel's members. Feedback is not config, so a channel the
        config file defines may have its feedback cleared too."""
        editors = self._slack.editors
        if editors and user not in editors:
            return Note("feedback.refused_editor")
        if not editors and not is_member():
            return Note("feedback.refused_member")
        return None

    def require_editor(self, channel: str, user: str, is_member: Callable[[], bool]) -> None:
        """Raise EditRefused, saying why, unless `user` may change `channel` from Slack."""
        refusal = self.refusal(channel, user, is_member)
        if refusal is not None:
            raise EditRefused(refusal.kind, **refusal.values)

    # -- changing --------------------------------------------------------------------------

    def follow(self, channel: str, user: str, repos: Sequence[str]) -> tuple[str, ...]:
        """Add `repos`; returns those newly followed. Raises EditRefused or FieldErrors."""
        for repo in repos:
            if not REPO_PATTERN.fullmatch(repo):
                raise EditRefused("subs.bad_repo", value=quoted(repo))
        checked = self._precheck(channel, repos)
        with self._workspace_change(), self._store.changing(channel):
            current = self._current(channel)
            known = {repo.lower() for repo in current}
            new = tuple(dict.fromkeys(repo for repo in repos if repo.lower() not in known))
            self._check_private([repo for repo in new if repo.lower() not in checked])
            if len(current) + len(new) > MAX_REPOS:
                raise EditRefused("subs.too_many", limit=MAX_REPOS)
            if new:
                self._check_caps(channel, [*current, *new])
                entry = AuditEntry(channel=channel, user=user, at=self._now(), action="follow", detail=new)
                self._save(channel, user, {"repos": [*current, *new]}, entry)
            return new

    def unfollow(self, channel: str, user: str, repo: str) -> None:
        """Stop following `repo`; the last one ends the channel's subscription (a Slack-only channel)."""
        with self._store.changing(channel):
            current = self._current(channel)
            left = [name for name in current if name.lower() != repo.lower()]
            if len(left) == len(current):
                raise EditRefused("subs.not_following", repo=quoted(repo))
            entry = AuditEntry(channel=channel, user=user, at=self._now(), action="unfollow", detail=(repo,))
            if not left and channel not in self._file:
                edits = self._store.get(channel)
                rest = {name: value for name, value in (edits.values if edits else {}).items() if name != "repos"}
                if rest:
                    # Its schedule and filters stay for a later follow; with no repository it follows nothing.
                    self._store.save(channel, ChannelEdits(values=rest, by=user, at=self._now()))
                else:
                    self._store.remove(channel)
                self._store.record(entry)
                return
            if not left:
                raise EditRefused("subs.last_file_repo", channel=channel)
            self._save(channel, user, {"repos": left}, entry)

    def save_settings(self, channel: str, user: str, values: Mapping[str, EditValue]) -> ChannelConfig:
        """Replace the channel's Slack values with `values` (the modal's fields that are filled in;
        a blank one goes back to the file's value or the default), after the file's rules and the
        private-repository rule. A value equal to the file's is not kept, so the file stays its
        source. Raises FieldErrors or EditRefused."""
        base = self._file.get(channel)
        if base is not None and not self._slack.allow_channel_edits:
            raise EditRefused("subs.refused_file", path=self._path)
        config = merged(channel, base, values)
        checked = self._precheck(channel, config.repos)
        with self._workspace_change(), self._store.changing(channel):
            known = {repo.lower() for repo in self._current(channel)}
            new = tuple(repo for repo in config.repos if repo.lower() not in known)
            self._check_private([repo for repo in new if repo.lower() not in checked])
            if len(config.repos) > MAX_REPOS:
                raise FieldErrors({"repos": Note("subs.too_many", {"limit": MAX_REPOS})})
            if new:
                self._check_caps(channel, config.repos)
            kept = {
                name: value
                for name, value in values.items()
                if base is None or getattr(base, name) != getattr(config, name)
            }
            changed = tuple(sorted(kept))
            entry = AuditEntry(channel=channel, user=user, at=self._now(), action="settings", detail=changed)
            self._store.save(channel, ChannelEdits(values=kept, by=user, at=self._now()))
            self._store.record(entry)
            return config

    def _current(self, channel: str) -> list[str]:
        view = self.view(channel)
        if view is not None and view.in_file and not self._slack.allow_channel_edits:
            raise EditRefused("subs.refused_file", path=self._path)
        return list(view.config.repos) if view else []

    def _precheck(self, channel: str, repos: Sequence[str]) -> set[str]:
        """The private-repository rule for the repositories the channel does not follow yet, asked
        before the change lock is taken (GitHub may take seconds); returns those checked."""
        known = {repo.lower() for repo in self._current(channel)}
        fresh = [repo for repo in repos if repo.lower() not in known]
        self._check_private(fresh)
        return {repo.lower() for repo in fresh}

    def _workspace_change(self) -> contextlib.AbstractContextManager[None]:
        """The workspace's change lock when caps apply (a cap counts every channel), else nothing."""
        return self._store.changing(WORKSPACE_LOCK) if self._caps is not None else contextlib.nullcontext()

    def _check_caps(self, channel: str, repos: Sequence[str]) -> None:
        """Raise EditRefused when `channel` following `repos` (and new ones among them) would take
        the workspace past a cap. A cap lowered below what is followed already refuses only what
        adds to it: a channel keeps what it follows, and may drop some."""
        caps = self._caps
        if caps is None:
            return
        views = self.channels()
        if channel not in {view.channel for view in views} and len(views) >= caps.max_channels:
            raise EditRefused("subs.workspace_channels", limit=caps.max_channels)
        followed = {repo.lower() for view in views for repo in view.config.repos}
        others = {repo.lower() for view in views if view.channel != channel for repo in view.config.repos}
        after = others | {repo.lower() for repo in repos}
        if len(after) > caps.max_repos and not after <= followed:
            raise EditRefused("subs.workspace_repos", limit=caps.max_repos)

    def _check_private(self, repos: Sequence[str]) -> None:
        """A private repository may be followed from Slack only if the file lists it: the GitHub
        token is the operator's, and would otherwise show any of its repositories to anyone."""
        followable = {repo.lower() for repo in self._slack.followable_private_repos}
        for repo in repos:
            if repo.lower() not in followable and self._is_private(repo):
                raise EditRefused("subs.private", repo=repo)

    def _save(self, channel: str, user: str, values: Mapping[str, EditValue], entry: AuditEntry) -> None:
        edits = self._store.get(channel)
        kept = {**(edits.values if edits else {}), **values}
        self._store.save(channel, ChannelEdits(values=kept, by=user, at=self._now()))
        self._store.record(entry)


def workspace_subscriptions(
    config: FileConfig,
    path: str,
    store: SubscriptionStore,
    is_private: Callable[[str], bool],
    *,
    home: bool,
    now: Callable[[], datetime],
) -> Subscriptions:
    """A workspace's subscriptions. The config file's channels and its followable private
    repositories are the home workspace's (`home`): another one follows public repositories
    only, from Slack, within `[slack] workspace_max_repos` and `workspace_max_channels`."""
    if home:
        return Subscriptions(config.slack, ConfigFile(config.channels, path), store, is_private, now=now)
    slack = config.slack.model_copy(update={"followable_private_repos": ()})
    caps = WorkspaceCaps(config.slack.workspace_max_repos, config.slack.workspace_max_channels)
    return Subscriptions(slack, ConfigFile((), path), store, is_private, now=now, caps=caps)
