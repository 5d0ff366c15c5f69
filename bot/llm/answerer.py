"""Answerer: questions about one PR, or about a whole digest, answered by the model from the
same fenced context the card was written from, plus the card and the thread's earlier turns.

Returns plain text; the Slack renderer escapes it and turns cited paths into diff links.
Failures are raised as SummarizerError for the caller to word.
"""

from __future__ import annotations

import logging

import openai
from openai.types.chat import ChatCompletionMessageParam

from bot.core.context import build_context
from bot.core.prompts import answer_overhead, answer_prompt
from bot.core.text import clean_line, estimate_tokens
from bot.errors import SummarizerError
from bot.llm.deadline import DEFAULT_RETRIES, Budget
from bot.models import Card, DigestItem, Language, PRSnapshot, Turn

log = logging.getLogger(__name__)

# A Slack section holds 3,000 characters; answers are asked to be short, this is the backstop.
ANSWER_MAX_CHARS = 2900
# Earlier turns sent with a question: enough for "and its tests?", not a whole transcript.
HISTORY_TURNS = 6
HISTORY_TURN_CHARS = 1200
# Room kept for the conversation and the answer when the budget is counted.
CONVERSATION_RESERVE = 2500
DIGEST_PATHS_PER_PR = 8


def card_text(card: Card) -> str:
    lines = [f"Card headline: {card.headline}", f"Card verdict: {card.verdict}"]
    lines += [f"Card point: {point}" for point in (*card.why, *card.caveats, *card.watch)]
    return "\n".join(lines)


def digest_text(items: tuple[DigestItem, ...], paths: dict[str, tuple[str, ...]]) -> str:
    blocks = []
    for item in items:
        listing = item.listing
        ref = f"{listing.repo}#{listing.number}"
        files = ", ".join(paths.get(ref, ())[:DIGEST_PATHS_PER_PR]) or "(files not read)"
        blocks.append(
            f"{ref} [{item.card.verdict}] {clean_line(listing.title)}\n"
            f"  headline: {clean_line(item.card.headline)}\n  files: {clean_line(files, 2000)}"
        )
    return "\n".join(blocks)


class Answerer:
    def __init__(
        self,
        client: openai.OpenAI,
        model: str,
        *,
        token_budget: int,
        timeout: float | None = None,
        retries: int = DEFAULT_RETRIES,
    ) -> None:
        self._client = client
        self.model = model
        self._token_budget = token_budget
        # An answer waits for the model as long as a card may (model_timeout, which the shared
        # client was built with), quick failures retried within it: not the SDK's 3 × timeout.
        self.time_budget = Budget(timeout, retries) if timeout is not None else Budget.of(client, retries)

    def _budget(self, language: Language) -> int:
        return max(self._token_budget - estimate_tokens(answer_overhead(language)) - CONVERSATION_RESERVE, 500)

    def answer_pr(
        self, snapshot: PRSnapshot, card: Card, question: str, history: list[Turn], language: Language
    ) -> str:
        budget = self._budget(language)
        card_part = card_text(card)
        context = build_context(snapshot, max(budget - estimate_tokens(card_part), 300))
        return self._ask(f"{card_part}\n\n{context.text}", question, history, language, str(snapshot.ref))

    def answer_digest(
        self,
        items: tuple[DigestItem, ...],
        paths: dict[str, tuple[str, ...]],
        question: str,
        history: list[Turn],
        language: Language,
    ) -> str:
        data = digest_text(items, paths)
        limit = self._budget(language) * 3  # chars/3 is the estimate's own rule
        return self._ask(data[:limit], question, history, language, "the digest")

    def _ask(self, data: str, question: str, history: list[Turn], language: Language, about: str) -> str:
        prompt = answer_prompt(data, language)
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user},
        ]
        for turn in history[-HISTORY_TURNS:]:
            text = turn.text[:HISTORY_TURN_CHARS]
            if turn.role == "user":
                messages.append({"role": "user", "content": text})
            else:
                messages.append({"role": "assistant", "content": text})
        messages.append({"role": "user", "content": question[:HISTORY_TURN_CHARS]})
        try:
            completion = self.time_budget.start().call(
                self._client, lambda client: client.chat.completions.create(model=self.model, messages=messages)
            )
        except (openai.OpenAIError, SummarizerError) as exc:
            log.warning("model call for a question about %s failed: %s", about, type(exc).__name__)
            raise SummarizerError(f"the model could not answer about {about}") from exc
        content = completion.choices[0].message.content if completion.choices else None
        if not content or not content.strip():
            raise SummarizerError(f"the model gave an empty answer about {about}")
        return content.strip()[:ANSWER_MAX_CHARS]
