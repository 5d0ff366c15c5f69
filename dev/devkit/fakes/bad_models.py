"""Scripted models that answer badly, as responders for FakeOpenAI (`FakeOpenAI(responder=…)`).

Each writes prose whatever it is asked, as a small local model does (Gemma 3 270M wrote a fluent
paragraph citing no PR in `scripts/e2e_model.sh --questions`): asked for a card or for a
question's reading, it writes the same prose, which is no JSON, so every card is the rules' own
and every reading the rules', as without a model. The runs with them differ from a run without
a model in the written answers alone.

- `fluent`: a confident paragraph that cites no PR and states no figure.
- `wrong`: prose that cites PRs outside the ones it was shown (by `#N`, `owner/repo#N` and a
  link to the PR; numbers no repository here has, and the one after the newest it was shown) and
  states figures none of them has ("cuts latency by 37%").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Responder = Callable[[dict[str, Any]], "dict[str, Any] | str"]

# The PRs in what the model is shown: the material names each as `owner/repo#N`.
_SHOWN = re.compile(r"([\w.-]+/[\w.-]+)#(\d+)")
DEFAULT_REPO = "vllm-project/vllm"
# Numbers no data set here holds as a PR, however many PRs it has.
FOREIGN = (912_345, 987_654, 931_337)

FLUENT = (
    "Most of this work tightens existing code paths rather than adding new features. "
    "The changes look careful and well reviewed, and the riskier parts come with tests. "
    "A couple of them deserve a closer read before the next release; the rest are routine upkeep."
)


def fluent(request: dict[str, Any]) -> str:
    """Fluent prose, citing nothing, whatever was asked."""
    return FLUENT


def shown(request: dict[str, Any]) -> tuple[str, set[int]]:
    """The repository and the PR numbers the request's messages show the model."""
    text = "\n".join(str(message.get("content") or "") for message in request.get("messages", []))
    found = _SHOWN.findall(text)
    repo = found[0][0] if found else DEFAULT_REPO
    return repo, {int(number) for _, number in found}


def wrong(request: dict[str, Any]) -> str:
    """Prose citing PRs the model was not shown, and figures no PR states."""
    repo, numbers = shown(request)
    first, second, third = (n for n in FOREIGN if n not in numbers)
    # And one a real repository may well hold, just past the newest the model was shown.
    near = max(numbers) + 1 if numbers else first
    return (
        f"The most important change is #{first}, which cuts latency by 37% on H100. "
        f"It builds on {repo}#{second} and https://github.com/{repo}/pull/{third}, so read those first. "
        f"See #{near} for the details of the rollout. "
        "Together these PRs make decode 3.5x faster and save 12 GiB of memory per GPU. "
        "The rest are routine maintenance."
    )


RESPONDERS: dict[str, Responder] = {"fluent": fluent, "wrong": wrong}
