"""`/pr watch REPO GLOB | REF`, `/pr watch list`, `/pr unwatch PATTERN|all`: a person's own watches.

commands.py hands over the command's words; only parsing happens before ack() (bad input is
answered at once). Redis, GitHub and Slack are asked on the work pool, and the answer goes to the
asker alone through the response_url. A watch on a private repository the person may not see, or
on one that does not exist, is refused with one sentence for both, so nothing is learnt of a
private repository's existence. A command payload is acted on once (guards.py).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import Ack, Respond

from bot.core.refs import parse_ref, parse_repo
from bot.core.strings.globs import MAX_GLOB_CHARS, MAX_GLOB_WILDCARDS
from bot.core.watches import MAX_WATCHES, Watch, glob_problem
from bot.errors import PrdigestError, StoreError, UsageError, quoted
from bot.models import Language
from bot.render.mrkdwn import escape
from bot.render.slack.replies import say
from bot.render.slack.watches import watch_list_text
from bot.slack.deps import SlackDeps
from bot.watches import WatchDMs
from bot.words import text

log = logging.getLogger(__name__)

SUBCOMMANDS = ("watch", "unwatch")


def parse(words: list[str], default_repo: str | None, cmd: str) -> Watch | str:
    """The watch `/pr watch <words>` adds, or "list"; raises UsageError (with its sentence)."""
    if [word.lower() for word in words] == ["list"]:
        return "list"
    if len(words) == 1:
        ref = parse_ref(words[0], default_repo)
        return Watch(ref.repo, "pr", number=ref.number)
    if len(words) == 2:
        repo, glob = parse_repo(words[0]), words[1]
        problem = glob_problem(glob)
        if problem is not None:
            raise UsageError(problem, limit=MAX_GLOB_CHARS, wildcards=MAX_GLOB_WILDCARDS)
        return Watch(repo, "path", pattern=glob)
    raise UsageError("watch.usage", cmd=cmd)


def handle(deps: SlackDeps, ack: Ack, command: dict[str, Any], respond: Respond, language: Language) -> None:
    """Acknowledge `/pr watch …` or `/pr unwatch …` (refusing bad input at once) and hand the work on."""
    tenant = deps.tenant
    words = str(command.get("text") or "").split()
    name, args = words[0].lower(), words[1:]
    cmd = tenant.command
    channel = str(command.get("channel_id", ""))
    dms = tenant.watch_dms
    if dms is None:
        ack(text=escape(text(language, "watch.off")))
        return
    work: Callable[[str], str]
    try:
        if name == "watch":
            if not args:
                ack(text=escape(text(language, "watch.usage", cmd=cmd)))
                return
            wanted = parse(args, tenant.directory.default_repo(channel), cmd)
            if isinstance(wanted, Watch):
                said = " ".join(args)

                def named(repo: str, said: str = said) -> str | None:
                    # Asked on the work pool (in _watch), as the audience may ask GitHub and Slack.
                    return tenant.access.named(tenant.access.audience(channel, said=said), repo)

                work = functools.partial(_watch, dms, watch=wanted, said=said, named=named, cmd=cmd, language=language)
            else:
                work = functools.partial(_list, dms, cmd=cmd, language=language)
        else:
            if not args:
                ack(text=escape(text(language, "watch.usage_unwatch", cmd=cmd)))
                return
            work = functools.partial(_unwatch, dms, said=" ".join(args), cmd=cmd, language=language)
    except PrdigestError as exc:
        ack(text=escape(exc.in_language(language)))
        return
    ack(text=say(language, "thinking"))
    deps.work.submit(_run, deps, name, work, command, respond, language)


def _run(
    deps: SlackDeps,
    name: str,
    work: Callable[[str], str],
    command: dict[str, Any],
    respond: Respond,
    language: Language,
) -> None:
    user = str(command.get("user_id", ""))
    try:
        message = work(user)
    except StoreError:
        message = escape(text(language, "subs.store_down"))
    except Exception:
        log.exception("/pr %s failed", name)
        message = say(language, "failed")
    try:
        respond(text=message, replace_original=True, response_type="ephemeral")
    except Exception:
        log.exception("/pr %s: the response_url refused the answer", name)


def _list(dms: WatchDMs, user: str, *, cmd: str, language: Language) -> str:
    return watch_list_text(dms.watches.of(user), cmd, language)


def _watch(
    dms: WatchDMs,
    user: str,
    *,
    watch: Watch,
    said: str,
    named: Callable[[str], str | None],
    cmd: str,
    language: Language,
) -> str:
    if named(watch.repo) is None:
        # A bare #N in a shared channel: its private default is neither named back nor assumed
        # (access/disclosure.py; asked here, on the work pool, as it may ask GitHub and Slack).
        return escape(text(language, "error.ref_no_repo", text=quoted(said), digits=str(watch.number)))
    mine = dms.watches.of(user)
    if any(kept.key == watch.key for kept in mine):
        return escape(text(language, "watch.already", watch=watch.shown, cmd=cmd))
    if len(mine) >= MAX_WATCHES:
        return escape(text(language, "watch.too_many", limit=MAX_WATCHES, cmd=cmd))
    if not dms.may_see(user, watch.repo):
        return escape(text(language, "watch.not_visible", repo=watch.repo))
    dms.watches.add(user, watch)
    zone = dms.zone(user).key
    return escape(text(language, "watch.added", watch=watch.shown, zone=zone, cmd=cmd))


def _unwatch(dms: WatchDMs, user: str, *, said: str, cmd: str, language: Language) -> str:
    mine = dms.watches.of(user)
    if not mine:
        return escape(text(language, "watch.none", cmd=cmd))
    gone = mine if said.lower() == "all" else [watch for watch in mine if watch.named_by(said)]
    if not gone:
        return escape(text(language, "watch.unknown", pattern=said[:200], cmd=cmd))
    for watch in gone:
        dms.watches.remove(user, watch)
    return escape(text(language, "watch.removed", watches=", ".join(watch.shown for watch in gone)))
