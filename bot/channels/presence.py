"""Whether the bot is a member of a channel: it can post a digest only where it is.

Asked of conversations.info at each follow (not remembered: a /invite must count at once). A
private channel the bot is not in answers channel_not_found, which means the same thing here.
"""

from __future__ import annotations

import logging

from bot.errors import SlackError
from bot.ports.slack import SlackPort

log = logging.getLogger(__name__)


def bot_in_channel(slack: SlackPort, channel: str) -> bool:
    try:
        info = slack.channel_info(channel)
    except SlackError as exc:
        if exc.code == SlackError.TRANSPORT:
            raise  # no answer: the caller says something went wrong, not "invite me"
        if exc.code != "channel_not_found":
            log.warning("cannot tell whether the bot is in %s (%s)", channel, exc.code)
        return False
    return bool(info.get("is_member"))
