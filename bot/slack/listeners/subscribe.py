"""`/pr follow`, `unfollow`, `following`, `digest` and `settings`: a channel's subscriptions from Slack.

commands.py hands over the command's words; only parsing happens here before ack(). Everything
that asks Redis, GitHub or Slack runs on the work pool and answers through the response_url,
to the asker alone, in the channel's language. A command payload is acted on once (guards.py's
ReplayGuard, before any listener).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import Ack, Respond

from bot.channels import EditRefused, FieldErrors, bot_in_channel
from bot.core.refs import parse_repo
from bot.errors import ChannelBusy, PrdigestError, StoreError
from bot.models import Language
from bot.ports.slack import SlackPort
from bot.render.slack.replies import refused_text, say
from bot.render.slack.subscriptions import (
    Following,
    digest_now_text,
    following_message,
    run_text,
    settings_modal,
    shown_value,
    told,
    told_notes,
)
from bot.slack.deps import SlackDeps

log = logging.getLogger(__name__)

SUBCOMMANDS = ("follow", "unfollow", "following", "settings", "digest", "feedback")
# A follow names a few repositories; more than this in one command is a paste gone wrong.
MAX_FOLLOW_ARGS = 20


def handle(
    deps: SlackDeps, ack: Ack, command: dict[str, Any], respond: Respond, slack: SlackPort, language: Language
) -> None:
    """Acknowledge `/pr <subcommand> …` (refusing bad input at once) and hand the work on."""
    words = str(command.get("text") or "").split()
    name, args = words[0].lower(), words[1:]
    cmd = deps.tenant.command
    try:
        if name == "follow":
            if not args or len(args) > MAX_FOLLOW_ARGS:
                ack(text=told(language, "subs.usage_follow", cmd=cmd))
                return
            args = [parse_repo(arg.strip(",")) for arg in args]
        elif name == "unfollow":
            if len(args) != 1:
                ack(text=told(language, "subs.usage_unfollow", cmd=cmd))
                return
            args = [parse_repo(args[0])]
        elif name == "feedback" and [arg.lower() for arg in args] != ["reset"]:
            ack(text=told(language, "feedback.usage", cmd=cmd))
            return
    except PrdigestError as exc:
        ack(text=refused_text(exc, language))
        return
    if name == "settings":
        ack()  # the modal is the answer; views.open must follow within 3 s of the trigger
    else:
        ack(text=say(language, "thinking"))
    deps.work.submit(_run, deps, name, args, command, respond, slack, language)


def _run(
    deps: SlackDeps,
    name: str,
    args: list[str],
    command: dict[str, Any],
    respond: Respond,
    slack: SlackPort,
    language: Language,
) -> None:
    def answer(message: str) -> None:
        try:
            respond(text=message, replace_original=True, response_type="ephemeral")
        except Exception:
            log.exception("/pr %s: the response_url refused the answer", name)

    channel, user = str(command.get("channel_id", "")), str(command.get("user_id", ""))
    try:
        actions: dict[str, Callable[[], str | None]] = {
            "follow": lambda: _follow(deps, slack, channel, user, args, language),
            "unfollow": lambda: _unfollow(deps, slack, channel, user, args[0], language),
            "following": lambda: _following(deps, channel, language),
            "digest": lambda: _digest(deps, slack, channel, language),
            "feedback": lambda: _reset_feedback(deps, slack, channel, user, language),
            "settings": lambda: _open_settings(
                deps, slack, channel, user, str(command.get("trigger_id", "")), language
            ),
        }
        message = actions[name]()
    except Exception as exc:
        message = change_refused(exc, language)
        if message is None:
            log.exception("/pr %s failed", name)
            message = say(language, "failed")
    if message is not None:
        answer(message)


def change_refused(error: Exception, language: Language) -> str | None:
    """What the asker is told of a change of subscriptions that did not happen (a refusal, a bad
    value, another change under way, Redis away); None for an error nobody expected."""
    if isinstance(error, EditRefused | ChannelBusy):
        return refused_text(error, language)
    if isinstance(error, FieldErrors):
        return told_notes(language, *error.errors.values())
    if isinstance(error, StoreError):
        return told(language, "subs.store_down")
    return None


def _may_edit(deps: SlackDeps, slack: SlackPort, channel: str, user: str) -> None:
    tenant = deps.tenant
    tenant.subscriptions.require_editor(channel, user, lambda: tenant.members.is_member(slack, channel, user))


def _schedule(deps: SlackDeps, channel: str, language: Language) -> tuple[str, str]:
    tenant = deps.tenant
    view = tenant.subscriptions.view(channel)
    if view is None:
        return "", ""
    return (
        shown_value("post_at", view.config, tenant.defaults, language),
        shown_value("timezone", view.config, tenant.defaults, language),
    )


def _follow(deps: SlackDeps, slack: SlackPort, channel: str, user: str, repos: list[str], language: Language) -> str:
    tenant = deps.tenant
    if not bot_in_channel(slack, channel):
        return told(language, "subs.invite_first")
    _may_edit(deps, slack, channel, user)
    new = tenant.subscriptions.follow(channel, user, repos)
    if not new:
        return told(language, "subs.already", repos=", ".join(repos))
    tenant.directory.refresh()  # this replica at once; the others at their next tick
    time, zone = _schedule(deps, channel, language)
    return told(language, "subs.followed", repos=", ".join(new), time=time, zone=zone, cmd=tenant.command)


def _reset_feedback(deps: SlackDeps, slack: SlackPort, channel: str, user: str, language: Language) -> str:
    tenant = deps.tenant
    refusal = tenant.subscriptions.feedback_refusal(user, lambda: tenant.members.is_member(slack, channel, user))
    if refusal is not None:
        return told_notes(language, refusal)
    tenant.votes.reset(channel)  # StoreError: change_refused says Redis is away
    return told(language, "feedback.reset_done")


def _unfollow(deps: SlackDeps, slack: SlackPort, channel: str, user: str, repo: str, language: Language) -> str:
    tenant = deps.tenant
    _may_edit(deps, slack, channel, user)
    tenant.subscriptions.unfollow(channel, user, repo)
    tenant.directory.refresh()
    still = tenant.subscriptions.view(channel)
    return told(language, "subs.unfollowed" if still else "subs.unfollowed_last", repo=repo)


def _following(deps: SlackDeps, channel: str, language: Language) -> str:
    tenant = deps.tenant
    found = tenant.channel_digest.following(channel)
    view = found.view
    following = Following(
        view.config if view else None,
        view.sources if view else {},
        run_text(found.last_run, language),
        found.last_change,
        found.hidden,
    )
    return following_message(following, tenant.defaults, language, tenant.command).text


def _digest(deps: SlackDeps, slack: SlackPort, channel: str, language: Language) -> str:
    """The last completed window's digest, through the scheduler's own lease and ledger."""
    now = deps.tenant.channel_digest.post_now(slack, channel)
    return digest_now_text(now, language, deps.tenant.command)


def _open_settings(
    deps: SlackDeps, slack: SlackPort, channel: str, user: str, trigger_id: str, language: Language
) -> str | None:
    tenant = deps.tenant
    if not bot_in_channel(slack, channel):
        return told(language, "subs.invite_first")  # the form would set up a digest it cannot post
    _may_edit(deps, slack, channel, user)
    view = tenant.subscriptions.view(channel)
    if view is not None and tenant.access.hidden(channel, view.config.repos):
        # The form lists every repository, to save them: it would name a private one.
        return told(language, "subs.settings_shared", cmd=tenant.command)
    modal = settings_modal(channel, view.config if view else None, language)
    slack.open_view(trigger_id, modal)
    return None
