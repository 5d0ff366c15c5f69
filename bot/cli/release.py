"""`prdigest release OWNER/REPO TAG [--since TAG]`: a release's PRs with their cards, grouped by
area, with what to know before upgrading (releases/digests.py), in the terminal or as JSON."""

from __future__ import annotations

import argparse
import json
import logging
import sys

from bot.cli.posting import checked_post, chosen_team
from bot.cli.waiting import Waiting, model_failed_line
from bot.core.refs import parse_repo
from bot.errors import PrdigestError, UsageError, quoted
from bot.models import Language
from bot.ports.slack import SlackPort
from bot.releases import ReleaseAsked
from bot.render.releases import release_data, render_release
from bot.wiring.process import Process
from bot.wiring.releases import release_digests
from bot.words import text

log = logging.getLogger(__name__)

# A tag is a git ref name: no spaces, no "..", nothing a shell or URL would mangle.
MAX_TAG_CHARS = 100


def parse_tag(text: str) -> str:
    tag = text.strip()
    if not tag or len(tag) > MAX_TAG_CHARS or ".." in tag or any(char.isspace() or char in "~^:?*[\\" for char in tag):
        raise UsageError("error.not_a_tag", text=quoted(text))
    return tag


def run_release(args: argparse.Namespace, built: Process, language: Language, colour: bool) -> None:
    repo = parse_repo(args.repo)
    digests = release_digests(built)
    tag = parse_tag(args.tag) if args.tag else digests.latest_tag(repo)
    since = parse_tag(args.since) if args.since else None
    settings = built.settings
    if args.post:
        post_release(args, built, ReleaseAsked(args.post, repo, tag, since, args.lang or language))
        return
    with Waiting.for_model(settings, language, enabled=built.model is not None, per_card=True) as waiting:
        release = digests.build(repo, tag, since, language=language, progress=lambda done, total: waiting.output())
    digest = release.digest
    if digest.model_failures:
        print(model_failed_line(settings, digest.model_failures, digest.shown, language), file=sys.stderr)
    if args.format == "json":
        print(json.dumps(release_data(release), ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(render_release(release, colour=colour))


def post_release(args: argparse.Namespace, built: Process, asked: ReleaseAsked) -> None:
    """`--post CHANNEL`: the release posted as `releases = "post"` posts it, once per channel."""
    from bot.wiring.slack import wire_slack

    checked_post(args, built.settings)
    wired = wire_slack(built)
    tenant = wired.tenants.get(chosen_team(args.team, wired))
    result = tenant.releases.post(asked)
    if result is None:
        print(
            f"prdigest: {text(asked.language, 'cli.release_posting_elsewhere', channel=asked.channel)}", file=sys.stderr
        )
    elif result.posted == 0 and result.thread_ts is not None:
        print(posted_before(tenant.slack, asked, result.thread_ts))
    else:
        print(
            text(
                asked.language,
                "cli.release_posted",
                channel=asked.channel,
                posted=result.posted,
                already=result.already,
            )
        )


def posted_before(slack: SlackPort, asked: ReleaseAsked, lead_ts: str) -> str:
    """A release already in the channel: said so, with a link to its lead (Slack's permalink), or
    the lead's ts when Slack cannot give one (the message deleted since, say)."""
    said = {"repo": asked.repo, "tag": asked.tag, "channel": asked.channel}
    try:
        link = slack.permalink(asked.channel, lead_ts)
    except PrdigestError as exc:
        log.warning("no permalink for the release lead %s in %s (%s)", lead_ts, asked.channel, exc)
        return text(asked.language, "cli.release_posted_before_unlinked", ts=lead_ts, **said)
    return text(asked.language, "cli.release_posted_before", link=link, **said)
