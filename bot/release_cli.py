"""`prdigest release OWNER/REPO TAG [--since TAG]`: a release's PRs with their cards, grouped by
area, with what to know before upgrading (services/releases.py), in the terminal or as JSON."""

from __future__ import annotations

import argparse
import json
import sys

from bot.errors import UsageError, quoted
from bot.models import Language
from bot.render.releases import release_data, render_release
from bot.services.refs import parse_repo
from bot.waiting import Waiting, model_failed_line
from bot.wiring.process import Process
from bot.wiring.releases import release_digests

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
    with Waiting.for_model(settings, language, enabled=built.model is not None, per_card=True) as waiting:
        release = digests.build(repo, tag, since, language=language, progress=lambda done, total: waiting.output())
    digest = release.digest
    if digest.model_failures:
        print(model_failed_line(settings, digest.model_failures, digest.shown, language), file=sys.stderr)
    if args.format == "json":
        print(json.dumps(release_data(release), ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(render_release(release, colour=colour))
