"""CardLookup: one PR's card for one person (`/pr owner/repo#N`, and its Share button), or why
they get none.

The front door a surface calls with the request's Audience; it answers with a Reply, a refusal
included, and never with words: the surface renders it (render/slack/replies.py
`looked_up_message`). The card is made for the asker's channel, paid from its workspace's budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.cards.service import CardService
from bot.errors import NotFound, PrdigestError, RateLimited, SourceError
from bot.models import Audience, CardReply, NotAllowed, NotYours, PRNotFound, PRRef, Unavailable
from bot.workspaces.spending import Payer

# What a lookup answers: the card, or why there is none.
LookedUp = CardReply | NotAllowed | PRNotFound | Unavailable


@dataclass(frozen=True)
class CardLookup:
    cards: CardService
    scope: str | None  # the workspace asking (None: the single or home one): it pays for the card

    def card(self, ref: PRRef, audience: Audience) -> LookedUp:
        if not audience.may_see(ref.repo):
            # "#2" in a shared channel: its private repository is not named back (access/disclosure.py).
            return NotAllowed(ref, audience.named(ref.repo))
        try:
            snapshot = self.cards.snapshot_by_ref(ref)
            payer = Payer(audience.channel, self.scope)
            card = self.cards.card(snapshot, audience.language, payer=payer).card
        except NotFound:
            return PRNotFound(ref)
        except RateLimited as exc:  # when the limit resets, as every surface says it
            return Unavailable(ref, exc.note)
        except SourceError:
            return Unavailable(ref)
        return CardReply(snapshot.listing, card, tuple(change.path for change in snapshot.files))

    def shared(self, ref: PRRef, audience: Audience, clicked_by: str) -> LookedUp | NotYours:
        """The card a Share click posts for everyone in the channel. Only the person it was shown
        to (`audience.user`) may post it; anything that keeps the card from being read is told
        as the PR being unavailable (the rate limit with when it resets)."""
        if clicked_by != audience.user:
            return NotYours()
        try:
            return self.card(ref, audience)
        except PrdigestError:
            return Unavailable(ref)
