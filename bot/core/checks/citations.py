"""Which PRs a model's prose may cite: the PRs its reply shows (or, about one PR, that PR and
those its own text names), and nothing else.

Owns how a citation is read in prose (`#N`, `owner/repo#N`, "PR N", a link to a pull request or
issue) and the rule that a sentence citing a PR outside the reply's is dropped whole, since what
it says is about a PR the reader is not shown. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from bot.core.checks.sentence_release import SentenceReleaser
from bot.core.strings.patterns import lazy

# A link to a pull request (or to the issue page GitHub redirects a PR's number to), on any host:
# an Enterprise server's too. Slack's `<url|label>` and Markdown's `[label](url)` hold the same URL.
_LINKED = lazy(r"https?://[^\s/<>|()]+/([\w.-]+/[\w.-]+)/(?:pull|pulls|issues)/(\d+)")
# `owner/repo#N`: the repository named, so it must be that repository's PR.
_QUALIFIED = lazy(r"(?<![\w./-])([\w.-]+/[\w.-]+)#(\d+)\b")
# `#N`, "PR 123", "PR #123", "pull request 123": the repository asked about. Not `&#39;` (an
# HTML entity), nor the `#N` of `owner/repo#N` (read above).
_BARE = lazy(r"(?<![\w&#/])#(\d+)\b|\b(?:PRs?|pull requests?)[ \t]*#?(\d+)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Citable:
    """The PRs a reply's prose may cite, as (repository, number), the repository case-folded.
    A bare `#N` may be any of them of that number."""

    refs: frozenset[tuple[str, int]]

    @classmethod
    def of(cls, refs: Iterable[tuple[str, int]]) -> Citable:
        return cls(frozenset((repo.lower(), number) for repo, number in refs))

    def allows(self, repo: str | None, number: int) -> bool:
        if repo is None:
            return any(known == number for _, known in self.refs)
        return (repo.lower(), number) in self.refs


def cited(text: str) -> list[tuple[str | None, int]]:
    """The PRs `text` cites, in order: (repository or None for a bare `#N`, number)."""
    found: list[tuple[str | None, int]] = []
    rest = text
    for match in _LINKED.finditer(text):
        found.append((match.group(1), int(match.group(2))))
    rest = _LINKED.sub(" ", rest)  # a link's own path is not read again as `owner/repo#N`
    for match in _QUALIFIED.finditer(rest):
        found.append((match.group(1), int(match.group(2))))
    rest = _QUALIFIED.sub(" ", rest)
    for match in _BARE.finditer(rest):
        found.append((None, int(match.group(1) or match.group(2))))
    return found


def cites_only(text: str, citable: Citable) -> bool:
    """Whether every PR `text` cites is one it may cite."""
    return all(citable.allows(repo, number) for repo, number in cited(text))


# However long an answer is, it is cut by the sanitizer first (core/sanitize.ANSWER_MAX_CHARS):
# this only keeps the releaser from cutting it again.
_NO_LIMIT = 1_000_000


def keep_cited(text: str, citable: Citable) -> str:
    """`text` without the sentences that cite a PR outside `citable`, cut where a streamed
    answer's sentences are (core/checks/sentence_release.py)."""
    releaser = SentenceReleaser(lambda sentence: sentence if cites_only(sentence, citable) else None, _NO_LIMIT)
    releaser.feed(text)
    releaser.finish()
    return releaser.text.strip()
