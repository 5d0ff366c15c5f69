"""Channels: what each one follows and how, who is in it, and the languages its people read."""
