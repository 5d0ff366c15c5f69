"""Wording ports: what the services that speak to people need said, without importing render/.

Services own when something is said (the answer's placeholder, its end, a refusal); render/
owns the words and the blocks. These Protocols are implemented in bot/render/ and handed to the
services by whoever builds them (the listener, the wiring). Nothing here imports render/, a
service or a store: only our own values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from bot.core.watches import WatchMatch
from bot.models import Card, Language, PRListing, Reply
from bot.ports.slack import Message


class AnswerWords(Protocol):
    """The words of one answer in a thread (questions/answering.py, questions/stream.py),
    in the asker's language and for the surface's command (both bound when it is made)."""

    def thinking(self) -> Message:
        """The placeholder posted where Slack refuses the status or the stream."""
        ...

    def reply(self, reply: Reply) -> Message:
        """The reply as it ends up (each surface may word refusals its own way)."""
        ...

    def failure(self) -> Message: ...

    def stopped(self) -> Message:
        """What a placeholder becomes when the asker stops the answer before it is shown."""
        ...

    def markdown(self, text: str) -> str:
        """Checked sentences escaped for a streamed `markdown_text` (no link made of them)."""
        ...


class WatchDMWords(Protocol):
    """The daily watch DM's message (watches/dms.py)."""

    def __call__(self, items: Sequence[WatchMatch], day: str, language: Language) -> Message: ...


class UnfurlWords(Protocol):
    """One PR link's unfurl (unfurls/unfurling.py): the attachment chat.unfurl takes."""

    def __call__(self, listing: PRListing, card: Card) -> dict[str, Any]: ...


class PromptWords(Protocol):
    """The Messages tab's prompts (questions/suggestions.py): from whether the person's
    channels follow any repository, the paths of their recent digests and a recent PR of theirs,
    the title and the prompts (each a title and a message) Slack shows."""

    def __call__(
        self, follows: bool, paths: Sequence[str], pr: str | None, language: Language
    ) -> tuple[str, tuple[dict[str, str], ...]]: ...


class DMWords(AnswerWords, Protocol):
    """The words of an answer in a person's DM with the app (questions/dm.py): an
    answer's, with refusals that name nothing, and the DM's own replies."""

    def not_allowed(self) -> Message:
        """A question about what the person may not be told of: refused, naming nothing."""
        ...

    def which_repo(self, number: int, examples: Sequence[str]) -> Message:
        """Asked about "#N" where it could be any of `examples` (their repositories; none: no
        channel of theirs follows one)."""
        ...

    def too_long(self, limit: int) -> Message: ...


class ThreadWords(AnswerWords, Protocol):
    """The words of an answer in a channel (questions/thread.py): an answer's, and the refusals
    told to the asker alone."""

    def not_allowed(self, named: str | None) -> Message:
        """A question naming a repository the channel may not show: `named` as the asker may be
        told it (None: "a private repository")."""
        ...

    def digest_not_allowed(self) -> Message:
        """Asked in a digest's thread none of whose repositories the channel may show now."""
        ...

    def too_long(self, limit: int) -> Message: ...
