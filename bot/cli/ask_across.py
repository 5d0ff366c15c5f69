"""`prdigest ask OWNER/REPO "what merged this week about MoE?"`: a question across days in the
terminal, answered as a Slack thread answers it (questions/across/days.py), in the configured zone.

The CLI may name any repository (DESIGN.md §4); a question that is not across days (no span, no
revert asked about) is one line and exit 1, since OWNER/REPO alone names no PR to ask about.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

from bot.cli.waiting import Waiting
from bot.errors import SourceError, UsageError, quoted
from bot.models import AcrossRefused, Audience, InRelease, Language, Question
from bot.questions import AcrossDays, Known, summarized
from bot.releases import ReleaseQuestions
from bot.render.across import across_data, across_terminal, in_release_data, in_release_terminal
from bot.spending import CLI
from bot.wiring.process import Process
from bot.wiring.releases import release_digests


def ask_across(args: argparse.Namespace, built: Process, repo: str, language: Language) -> None:
    question = " ".join(args.question).strip()
    if not question:
        raise UsageError("error.empty_question")
    zone = built.settings.defaults.timezone
    across = AcrossDays(
        built.cards,
        now=built.timing.now,
        zone_of=lambda _: zone,
        known=Known(
            lambda: (repo,),
            people=built.authors.named,
            releases=ReleaseQuestions(release_digests(built), built.cards, built.web_base),
        ),
        # A PR known only by its reference (a revert's target) links to the GitHub read.
        web_base=built.web_base,
    )
    # The terminal may ask about the repository it names, and only that one; its days are the
    # configured zone's (zone_of above).
    audience = Audience(CLI, frozenset({repo.lower()}), language)
    asked = across.read(question, audience)
    if asked is None:
        raise UsageError("error.ask_not_across", repo=quoted(repo))
    reply = across.answer(asked, replace(audience, default_repo=repo))
    if isinstance(reply, AcrossRefused):
        if reply.why is not None:  # GitHub's rate limit: said as `card` says it, with its reset
            raise SourceError(reply.why.kind, **reply.why.values)
        if reply.reason in {"unavailable", "not_found"}:
            raise SourceError(f"reply.across_{reply.reason}", repo=reply.repo)
        raise UsageError(f"reply.across_{reply.reason}", max=reply.days, said=reply.said, repo=reply.repo)
    if isinstance(reply, InRelease):
        data, said = in_release_data(reply), in_release_terminal(reply, language)
    else:
        # With a model, its summary of the matches stands above their list, as in a thread.
        with Waiting.for_model(built.settings, language, enabled=built.answerer is not None):
            reply = summarized(built.answerer, reply, Question(question, (), language), built.spending)
        data, said = across_data(reply), across_terminal(reply, language)
    print(json.dumps(data, ensure_ascii=False, indent=2) if args.format == "json" else said)
