"""Channels: what each one follows and how, who is in it, and the languages its people read.

The door: the ChannelDirectory of plans, the subscriptions' refusals and views, and whether
the app is in a channel.
"""

from __future__ import annotations

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
