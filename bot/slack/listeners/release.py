"""`/pr release [OWNER/REPO] [TAG]`: a release's lead and "before you upgrade", to the asker only,
with a Share button that posts the release (lead and thread) for the channel.

Only parsing happens before ack(); the release is built on the work pool (its range from the
store or GitHub's compare, its cards from the cache) and answered through the response_url.
The channel's repository is the default; one it may not be shown is refused without naming it.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App, BoltContext, Respond

from bot.core.refs import parse_repo
from bot.errors import PrdigestError, StoreError, UsageError
from bot.models import Language, ReleaseShared
from bot.releases import ReleaseAsked
from bot.render.slack.blocks import text_message
from bot.render.slack.release_blocks import (
    SHARE_RELEASE_ACTION,
    TOLD_ERRORS,
    read_share_release_value,
    release_error_text,
    release_reply,
    release_share_text,
)
from bot.render.slack.replies import refused_text, say
from bot.slack.deps import SlackDeps, deps_of, id_of

log = logging.getLogger(__name__)

SUBCOMMANDS = ("release",)


def _asked(words: list[str], default_repo: str | None) -> tuple[str, str | None]:
    """(repository, tag or None for the latest) from `/pr release`'s words; UsageError else."""
    repo: str | None = None
    tag: str | None = None
    for word in words:
        if repo is None and ("/" in word or word.startswith("http")):
            repo = parse_repo(word)
        elif tag is None:
            tag = word
        else:
            raise UsageError("release.usage")
    repo = repo or default_repo
    if repo is None:
        raise UsageError("release.which_repo")
    return repo, tag


def handle(deps: SlackDeps, ack: Ack, command: dict[str, Any], respond: Respond, language: Language) -> None:
    """Acknowledge `/pr release …` (refusing bad input at once) and hand the work on."""
    channel = str(command.get("channel_id", ""))
    words = str(command.get("text") or "").split()[1:]
    try:
        repo, tag = _asked(words, deps.tenant.releases.default_repo(channel))
    except PrdigestError as exc:
        ack(text=refused_text(exc, language))
        return
    ack(text=say(language, "thinking"))
    deps.work.submit(_answer, deps, command, (repo, tag), language, respond)


def _answer(
    deps: SlackDeps, command: dict[str, Any], asked: tuple[str, str | None], language: Language, respond: Respond
) -> None:
    channel, user = str(command.get("channel_id", "")), str(command.get("user_id", ""))
    repo, tag = asked
    try:
        reply = deps.tenant.releases.release(repo, tag, channel, user or None, str(command.get("text") or ""))
        message = release_reply(reply, language, share_for=user or None)
    except Exception as exc:
        if not isinstance(exc, StoreError):
            log.exception("/pr release failed")
        message = text_message(release_error_text(exc, language))
    try:
        respond(text=message.text, blocks=list(message.blocks), replace_original=True, response_type="ephemeral")
    except Exception:
        log.exception("/pr release: the response_url refused the answer")


def register(app: App, _: SlackDeps) -> None:
    @app.action(SHARE_RELEASE_ACTION)
    def on_share(
        ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond, context: BoltContext
    ) -> None:
        ack()
        deps = deps_of(context)
        deps.work.submit(_share, deps, body, action, respond)


def _share(deps: SlackDeps, body: dict[str, Any], action: dict[str, Any], respond: Respond) -> None:
    releases = deps.tenant.releases
    channel = id_of(body.get("channel"))
    language = releases.language(channel)

    def tell(message: str) -> None:
        respond(text=message, replace_original=False, response_type="ephemeral")

    share = read_share_release_value(str(action.get("value", "")))
    if share is None:
        return  # not a value we wrote: nothing to share
    try:
        asked = ReleaseAsked(channel, share.repo, share.tag, share.base, language)
        outcome = releases.share(asked, share.requester, clicked_by=id_of(body.get("user")))
    except Exception as exc:
        if not isinstance(exc, StoreError | TOLD_ERRORS):
            log.exception("sharing a release failed")
        tell(release_error_text(exc, language))
        return
    told = release_share_text(outcome, language)
    if told is not None:
        tell(told)
    elif isinstance(outcome, ReleaseShared) and outcome.posted:
        respond(delete_original=True)
