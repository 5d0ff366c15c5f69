"""CardLookup: one PR's card for one person (`/pr owner/repo#N`, and its Share button), or why
they get none.

The front door a surface calls: it reads what was typed (which PR, in the channel's language),
builds the request's Audience once (access/policy.py), and answers with a Reply, a refusal
included, and never with words: the surface renders it (render/slack/replies.py
`looked_up_message`). The card is made for the asker's channel, paid from its workspace's budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.access import AccessPolicy
from bot.cards.service import CardService
from bot.channels import ChannelDirectory
from bot.core.refs import parse_ref
from bot.errors import NotFound, PrdigestError, RateLimited, SourceError
from bot.models import Audience, CardReply, Language, NotAllowed, NotYours, PRNotFound, PRRef, Unavailable
from bot.spending import Payer

# What a lookup answers: the card, or why there is none.
LookedUp = CardReply | NotAllowed | PRNotFound | Unavailable


@dataclass(frozen=True)
class CardLookup:
    cards: CardService
    directory: ChannelDirectory
    access: AccessPolicy
    scope: str | None  # the workspace asking (None: the single or home one): it pays for the card

    def language(self, channel: str) -> Language:
        """The language `channel` is answered in."""
        return self.directory.language(channel)

    def asked(self, said: str, channel: str) -> PRRef:
        """The PR `said` names ("#123" is the channel's repository's); UsageError when none."""
        return parse_ref(said, self.directory.default_repo(channel))

    def card_for(self, ref: PRRef, channel: str, user: str | None, said: str) -> LookedUp:
        """`ref`'s card for `user`, who asked in `channel` by typing `said`."""
        return self.card(ref, self.access.audience(channel, user=user, said=said))

    def shared_for(self, ref: PRRef, channel: str, requester: str, clicked_by: str) -> LookedUp | NotYours:
        """The card `requester` was shown, shared in `channel` by a click of `clicked_by`."""
        return self.shared(ref, self.access.audience(channel, user=requester), clicked_by)

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
