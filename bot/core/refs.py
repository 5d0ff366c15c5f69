"""PR references as people type them: owner/repo#N, #N, or a PR URL (pure)."""

from __future__ import annotations

from bot.core.strings.patterns import lazy
from bot.errors import UsageError, quoted
from bot.models import PRRef

# Slack keeps at most 40,000 characters of a message's text (chat.postMessage reference: longer
# text is truncated), so no person can send us more: a longer message or command is refused
# before any parsing, which keeps every parse of what people type small as well as linear.
MAX_MESSAGE_CHARS = 40_000

# Matched with fullmatch only: one attempt, and each class stops at a character it excludes, so
# the time is linear in the text.
_NAME = r"[A-Za-z0-9_.-]+"
_FULL = lazy(rf"({_NAME}/{_NAME})#(\d+)")
_SHORT = lazy(r"#?(\d+)")
# github.com or a GitHub Enterprise host; anything after the number (/files, #discussion) is fine.
_URL = lazy(rf"https?://[^/\s]+/({_NAME}/{_NAME})/pull/(\d+)(?:[/?#].*)?")
_REPO = lazy(rf"{_NAME}/{_NAME}")
# A repository's page on github.com or an Enterprise host, as a browser's address bar or a clone
# URL gives it (a trailing slash, .git, a query or a fragment).
_REPO_URL = lazy(rf"https?://[^/\s]+/({_NAME})/({_NAME})/?(?:[?#].*)?")

# Numbers people may type: int() of a few thousand digits raises ValueError (CPython's
# int_max_str_digits), and no repository has a billion pull requests.
MAX_NUMBER = 10**9
MAX_DIGITS = len(str(MAX_NUMBER))


def parse_ref(text: str, default_repo: str | None = None) -> PRRef:
    # fullmatch, not `$`: `$` also matches before a final newline.
    value = text.strip().strip("<>")
    for pattern in (_FULL, _URL):
        match = pattern.fullmatch(value)
        if match:
            return PRRef(match.group(1), _number(match.group(2), text))
    match = _SHORT.fullmatch(value)
    if match:
        if default_repo is None:
            digits = match.group(1) if len(match.group(1)) <= MAX_DIGITS else "123"
            raise UsageError("error.ref_no_repo", text=quoted(text), digits=digits)
        return PRRef(default_repo, _number(match.group(1), text))
    raise UsageError("error.not_a_ref", text=quoted(text))


def parse_repo(text: str) -> str:
    """owner/repo, as typed or from the repository's URL."""
    if _REPO.fullmatch(text):
        return text
    # Slack sends a pasted link as <URL> or <URL|what was shown>.
    match = _REPO_URL.fullmatch(text.strip().strip("<>").split("|", 1)[0])
    if match:
        name = match.group(2).removesuffix(".git")
        if name:
            return f"{match.group(1)}/{name}"
    raise UsageError("error.not_a_repo", text=quoted(text))


GITHUB_WEB = "https://github.com"


def github_web_base(api_url: str) -> str:
    """Where the PRs of the GitHub whose API is at `api_url` are seen in a browser: an Enterprise
    server's own host for its `https://HOST/api/v3`, github.com for anything else."""
    base = api_url.rstrip("/")
    return base.removesuffix("/api/v3") if base.endswith("/api/v3") else GITHUB_WEB


def pr_url(web_base: str, ref: PRRef) -> str:
    """The PR's page, for a PR known only by its reference (no listing read from GitHub)."""
    return f"{web_base}/{ref.repo}/pull/{ref.number}"


def pr_number(digits: str) -> int | None:
    """The PR number `digits` stand for, or None when no pull request can have it."""
    if len(digits) > MAX_DIGITS:
        return None
    number = int(digits)
    return number if 1 <= number <= MAX_NUMBER else None


def _number(digits: str, text: str) -> int:
    number = pr_number(digits)
    if number is None:
        raise UsageError("error.not_a_number", text=quoted(text), digits=quoted(digits))
    return number
