"""Channels: what each one follows and how, who is in it, and the languages its people read.

The door: the ChannelDirectory of plans, the subscriptions' refusals and views, and whether
the app is in a channel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ops.doors import exported

if TYPE_CHECKING:
    from bot.channels.directory import ChannelDirectory, ChannelPlan
    from bot.channels.members import ChannelMembers
    from bot.channels.people import PeopleLanguages
    from bot.channels.presence import bot_in_channel
    from bot.channels.subscriptions import ChannelView, EditRefused, FieldErrors, Subscriptions, merged

__all__ = [
    "ChannelDirectory",
    "ChannelMembers",
    "ChannelPlan",
    "ChannelView",
    "EditRefused",
    "FieldErrors",
    "PeopleLanguages",
    "Subscriptions",
    "bot_in_channel",
    "merged",
]

if not TYPE_CHECKING:  # each name is imported when first asked for (bot/ops/doors.py)
    __getattr__ = exported(__name__, __file__)
