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
from bot.errors import PrdigestError, PublishError, SourceError, StoreError, UsageError, quoted
from bot.models import Language
from bot.ports.slack import Message
from bot.releases.posting import ReleaseAsked
from bot.render.mrkdwn import escape
from bot.render.slack.blocks import text_message
from bot.render.slack.release_blocks import SHARE_RELEASE_ACTION, read_share_release_value, release_lead
from bot.render.slack.replies import not_allowed_text, say
from bot.slack.deps import SlackDeps, deps_of, id_of
from bot.words import text

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
        repo, tag = _asked(words, deps.tenant.directory.default_repo(channel))
    except PrdigestError as exc:
        ack(text=escape(exc.in_language(language)))
        return
    ack(text=say(language, "thinking"))
    deps.work.submit(_answer, deps, command, (repo, tag), language, respond)


def _answer(
    deps: SlackDeps, command: dict[str, Any], asked: tuple[str, str | None], language: Language, respond: Respond
) -> None:
    try:
        message = _release(deps, command, asked, language)
    except StoreError:
        message = text_message(say(language, "try_later"))
    except Exception:
        log.exception("/pr release failed")
        message = text_message(say(language, "failed"))
    try:
        respond(text=message.text, blocks=list(message.blocks), replace_original=True, response_type="ephemeral")
    except Exception:
        log.exception("/pr release: the response_url refused the answer")


def _release(deps: SlackDeps, command: dict[str, Any], asked: tuple[str, str | None], language: Language) -> Message:
    tenant = deps.tenant
    channel, user = str(command.get("channel_id", "")), str(command.get("user_id", ""))
    repo, tag = asked
    audience = tenant.access.audience(channel, user=user or None, said=str(command.get("text") or ""))
    if not audience.may_see(repo):
        return text_message(not_allowed_text(language, tenant.access.named(audience, repo)))
    releases = tenant.releases
    if releases is None:
        return text_message(say(language, "failed"))
    try:
        found = releases.build(repo, tag or releases.latest_tag(repo), language=language, payer=tenant.payer(channel))
    except UsageError as exc:
        return text_message(escape(exc.in_language(language)))
    except SourceError:
        return text_message(escape(text(language, "release.unavailable", repo=quoted(repo))))
    return release_lead(found, share_for=user or None)


def register(app: App, deps: SlackDeps) -> None:
    @app.action(SHARE_RELEASE_ACTION)
    def on_share(
        ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond, context: BoltContext
    ) -> None:
        ack()
        deps.work.submit(_share, deps_of(context), body, action, respond)


def _share(deps: SlackDeps, body: dict[str, Any], action: dict[str, Any], respond: Respond) -> None:
    tenant = deps.tenant
    channel = id_of(body.get("channel"))
    language = tenant.directory.language(channel)

    def tell(message: str) -> None:
        respond(text=message, replace_original=False, response_type="ephemeral")

    try:
        share = read_share_release_value(str(action.get("value", "")))
        if share is None or tenant.release_posting is None:
            return
        if id_of(body.get("user")) != share.requester:
            tell(say(language, "share_not_yours"))
            return
        audience = tenant.access.audience(channel, user=share.requester)
        if not audience.may_see(share.repo):
            tell(not_allowed_text(language, tenant.access.named(audience, share.repo)))
            return
        asked = ReleaseAsked(channel, share.repo, share.tag, share.base, language)
        tenant.release_posting.run(asked)
    except StoreError:
        tell(say(language, "try_later"))
        return
    except (PublishError, SourceError, UsageError) as exc:
        tell(escape(exc.in_language(language)))
        return
    except Exception:
        log.exception("sharing a release failed")
        tell(say(language, "failed"))
        return
    respond(delete_original=True)
