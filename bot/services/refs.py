"""PR references as people type them: owner/repo#N, #N, or a PR URL (pure)."""

from __future__ import annotations

import re

from bot.errors import UsageError
from bot.models import PRRef

_NAME = r"[A-Za-z0-9_.-]+"
_FULL = re.compile(rf"^({_NAME}/{_NAME})#(\d+)$")
_SHORT = re.compile(r"^#?(\d+)$")
# github.com or a GitHub Enterprise host; anything after the number (/files, #discussion) is fine.
_URL = re.compile(rf"^https?://[^/\s]+/({_NAME}/{_NAME})/pull/(\d+)(?:[/?#].*)?$")
_REPO = re.compile(rf"^{_NAME}/{_NAME}$")

EXAMPLES = "owner/repo#123, #123 or https://github.com/owner/repo/pull/123"


def parse_ref(text: str, default_repo: str | None = None) -> PRRef:
    value = text.strip().strip("<>")
    for pattern in (_FULL, _URL):
        match = pattern.match(value)
        if match:
            return PRRef(match.group(1), _number(match.group(2), text))
    match = _SHORT.match(value)
    if match:
        if default_repo is None:
            raise UsageError(f"'{text}' does not say which repository; write owner/repo#{match.group(1)}")
        return PRRef(default_repo, _number(match.group(1), text))
    raise UsageError(f"'{text}' is not a pull request reference; use {EXAMPLES}")


def parse_repo(text: str) -> str:
    if not _REPO.match(text):
        raise UsageError(f"'{text}' is not a repository; use owner/name such as vllm-project/vllm")
    return text


def _number(digits: str, text: str) -> int:
    number = int(digits)
    if number < 1 or number > 10**9:
        raise UsageError(f"'{text}': {number} is not a pull request number; use {EXAMPLES}")
    return number
