"""Tokens as values: what a model endpoint reported for one response, and what one scope spent
over some days (core/usage.py counts them; spending/budgets.py keeps them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Usage:
    """Prompt ("in") and completion ("out") tokens, as OpenAI's `usage` names them."""

    prompt: int = 0
    completion: int = 0

    @property
    def total(self) -> int:
        return self.prompt + self.completion

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.prompt + other.prompt, self.completion + other.completion)


@dataclass(frozen=True)
class Spent:
    """Tokens of one scope over some days, and their estimated cost (None: no price configured)."""

    usage: Usage
    cost: float | None


@dataclass(frozen=True)
class Period:
    """One scope's tokens today and over the report's days."""

    today: Spent
    days: Spent
