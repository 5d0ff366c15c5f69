"""Disclosure: which repository names a reply may carry in a channel.

In a channel shared with another organisation (Slack Connect), a reply names nothing private
the asker did not type: a private repository the reply would bring up on its own (a bare #N's
default, the channel's list, a refusal's reason) is said as "a private repository" instead.
Whether a repository is private and whether a channel is shared are asked of the callables given
(Visibility, AccessPolicy's conversations.info); this module only holds the rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from bot.models import Note

# What a hidden repository is said as (bot/words `repo.private`: "a private repository").
PRIVATE_REPO = Note("repo.private")
# Notes whose sentence reads wrong with "a private repository" for {repo}: said without it.
UNNAMED = {
    "refusal.not_configured": "refusal.not_configured_unnamed",
    "refusal.not_followable": "refusal.not_followable_unnamed",
    "refusal.shared": "refusal.shared_unnamed",
}
# GitHub's names are letters, digits, '-', '_' and '.': a typed name ends where these do.
_NAME_CHAR = r"[A-Za-z0-9_.-]"


class Disclosure:
    def __init__(self, is_private: Callable[[str], bool], externally_shared: Callable[[str], bool]) -> None:
        self._is_private = is_private
        self._externally_shared = externally_shared

    def hides(self, channel: str, repo: str, said: str = "") -> bool:
        """Whether a reply in `channel` must not name `repo`: private, not in what the asker
        typed (`said`), and the channel shared with another organisation. Privacy is asked
        first: a public repository costs no conversations.info."""
        if typed(repo, said) or not self._is_private(repo):
            return False
        return self._externally_shared(channel)

    def name(self, channel: str, repo: str, said: str = "") -> str | None:
        """`repo` as a reply in `channel` may say it, or None: "a private repository"."""
        return self.name_for(repo, said, lambda: self._externally_shared(channel))

    def name_for(self, repo: str, said: str, shared: Callable[[], bool]) -> str | None:
        """`repo` as a reply to someone who typed `said` may say it, where `shared` tells
        whether the channel is shared (asked only for a private repository not typed)."""
        if typed(repo, said) or not self._is_private(repo):
            return repo
        return None if shared() else repo

    def hidden(self, channel: str, repos: Iterable[str], said: str = "") -> frozenset[str]:
        """Those of `repos` (lower case) a reply in `channel` may not name."""
        return frozenset(repo.lower() for repo in repos if self.hides(channel, repo, said))

    def conceal(self, note: Note, channel: str, said: str = "") -> Note:
        """`note` as a reply in `channel` may tell it: each hidden repository it names (nested
        notes too) left out of its sentence, or said as "a private repository"."""
        values: dict[str, str | int | Note | tuple[Note, ...]] = {}
        hidden = False
        for key, value in note.values.items():
            if isinstance(value, Note):
                values[key] = self.conceal(value, channel, said)
            elif isinstance(value, tuple):
                values[key] = tuple(self.conceal(part, channel, said) for part in value)
            elif key == "repo" and isinstance(value, str) and self.hides(channel, value, said):
                values[key] = PRIVATE_REPO
                hidden = True
            else:
                values[key] = value
        if hidden and note.kind in UNNAMED:
            return Note(UNNAMED[note.kind], {key: value for key, value in values.items() if key != "repo"})
        return Note(note.kind, values)


def typed(repo: str, said: str) -> bool:
    """Whether `said` names `repo` (any case; as a whole name, not inside a longer one)."""
    # A '.' may end the sentence: "… about acme/widgets." names acme/widgets.
    pattern = rf"(?<!{_NAME_CHAR}){re.escape(repo)}(?![A-Za-z0-9_-]|\.{_NAME_CHAR})"
    return re.search(pattern, said, re.IGNORECASE) is not None
