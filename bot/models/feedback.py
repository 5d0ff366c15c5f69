"""A channel's feedback as values: one person's `Vote` on one PR, and the `Boost` it gives a card
within its verdict group. digests/feedback.py tallies and ranks; store/feedback.py keeps votes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Vote:
    """One person's feedback on one PR, with the PR's areas as they were when clicked."""

    pr: str  # owner/repo#N
    up: bool
    areas: tuple[str, ...]


@dataclass(frozen=True)
class Boost:
    """Why a card moved within its verdict group: the area whose channel feedback moved it most,
    and how many of the channel's PRs in that area were marked (never who marked them)."""

    area: str
    prs: int
    up: bool
