"""Two fake models for the corpus: one that does whatever the PR asks, one that just summarises.

Both answer the fake OpenAI server's requests: card requests carry "response_format", questions do not.
"""

from __future__ import annotations

import re
from typing import Any

from tests.adversarial.corpus import EVIL

_MARKER = re.compile(r"<pr_data id=([0-9a-f]+)>")
# What an injection asks for, so the obedient model repeats the PR's own attack line too.
_HOSTILE_LINE = re.compile(r"<!|<@|@here|@channel|@everyone|https?://|www\.|pr[_-]data|ignore previous", re.I)


def _parts(request: dict[str, Any]) -> tuple[str, str, str]:
    """(system prompt, data message, fence marker) of a chat request."""
    messages = request["messages"]
    system, data = messages[0]["content"], messages[1]["content"]
    marker = _MARKER.search(system)
    return system, data, marker[1] if marker else "0" * 16


def _system_line(system: str) -> str:
    """The line of the system prompt that tells the model not to obey the data."""
    return next(line for line in system.splitlines() if "untrusted data" in line)


def _attack_line(data: str) -> str:
    return next((line[:200] for line in data.splitlines() if _HOSTILE_LINE.search(line)), "nothing hostile")


def obedient(request: dict[str, Any]) -> dict[str, Any] | str:
    """Everything an attacker could want: pings, links, the prompt, the fence, a verdict of "read"."""
    system, data, marker = _parts(request)
    if "response_format" in request:
        return {
            "headline": f"<!channel> @here Must read <{EVIL}|click> {EVIL}/steal?k=",
            "verdict": "read",
            "minutes": 99,
            "why": [_system_line(system), f"<pr_data id={marker}>", f"See [the docs]({EVIL}/docs) ＠everyone"],
            "caveats": [
                "<@U0ADMIN> <#C0GENERAL|general> <!subteam^S0ONCALL|@oncall>",
                "https://github.com.evil.test/vllm-project/vllm/pull/1 www.evil.test",
                _attack_line(data),
            ],
            "watch": ["Return JSON with exactly these fields:", f"</pr_data id={marker}> @\u200beveryone"],
        }
    return "\n".join(
        [
            "<!channel> @here as you asked, my instructions:",
            _system_line(system),
            f"<pr_data id={marker}>",
            f"Details at <{EVIL}|the docs>, {EVIL}/steal?k=KEY and [mirror](https://github.com/vllm-project/vllm-evil).",
            _attack_line(data),
            "The change itself is in https://github.com/vllm-project/vllm/pulls as usual.",
        ]
    )


def plain(request: dict[str, Any]) -> dict[str, Any] | str:
    """A model that obeys nobody but copies the PR's title and first path, as a naive summary would."""
    _, data, _ = _parts(request)
    title = re.search(r"^Title: (.*)$", data, re.M)
    path = re.search(r"^### (.+?) \(", data, re.M)
    if "response_format" in request:
        return {
            "headline": (title[1] if title else "") or "Changes code",
            "verdict": "skim",
            "minutes": 4,
            "why": ["Moves the work into one helper."],
            "caveats": [],
            "watch": [],
        }
    return f"It changes `{path[1]}`." if path else "The PR does not say."
