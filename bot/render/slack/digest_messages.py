"""DigestBlocks: the posting rules' DigestMessages port, said in Block Kit and mrkdwn (pure).

Owns nothing of its own: it names, for the port (ports/messages.py), the messages render/slack/blocks.py
and render/slack/links.py build, so the services that post a digest never import render. The wiring
hands one to each Publisher it builds.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.followups import Answered
from bot.core.links import CrossLink
from bot.models import Digest, Language
from bot.ports.slack import Message
from bot.render.slack.blocks import lead_message, quiet_message, thread_messages
from bot.render.slack.links import reply_text
from bot.render.slack.weekly import weekly_message


class DigestBlocks:
    """DigestMessages (ports/messages.py) as Slack shows them."""

    def lead(self, digest: Digest, links: Sequence[CrossLink]) -> Message:
        return lead_message(digest, links)

    def quiet(self, digest: Digest) -> Message:
        return quiet_message(digest)

    def thread(self, digest: Digest, links: Sequence[CrossLink], answered: Sequence[Answered]) -> list[Message]:
        return thread_messages(digest, links, answered)

    def reply(self, item: CrossLink, url: str, headline: str, language: Language) -> str:
        return reply_text(item, url, headline, language)

    def weekly(self, digest: Digest, areas: Sequence[tuple[str, int]], answered: Sequence[Answered]) -> Message:
        return weekly_message(digest, areas, answered)
