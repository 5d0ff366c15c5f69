"""The links Slack could make of a `markdown_text` (chat.startStream, appendStream, stopStream).

Slack's markdown block reference lists `[text](url)` links and backslash escapes; how far its
auto-linking goes is not documented, so this counts, to be safe, every form a Markdown renderer
or Slack's own linking is known to make a link of: inline links and images, reference
definitions, autolinks and Slack's `<url|label>`, and, in text, a scheme (with `//` or without),
`www.`, a host after two slashes or backslashes, an email address and a bare domain
(`name.tld`). A character escaped with a backslash (CommonMark §2.4) makes none of them.
"""

from __future__ import annotations

import re

# An escaped ASCII punctuation character shows as itself but is never syntax: a NUL stands for
# it, which no pattern below matches.
_ESCAPED = re.compile(r"\\[!-/:-@\[-`{-~]")
_FORMS = {
    "inline link": re.compile(r"\]\("),
    "reference definition": re.compile(r"^ {0,3}\[[^\]\n]+\]:", re.MULTILINE),
    "angle link": re.compile(r"<[a-z][a-z0-9+.\-]*:[^<>\s]*[^<>]*>|<[^<>\s@]+@[^<>\s]+>", re.IGNORECASE),
    "scheme": re.compile(r"\b[a-z][a-z0-9+.\-]*:[^\s\x00]", re.IGNORECASE),
    "www": re.compile(r"\bwww\.\w", re.IGNORECASE),
    "slashed host": re.compile(r"[/\\]{2}[\w-]+\.\w"),
    "email": re.compile(r"[\w.+-]+@[\w-]+\.\w"),
    "bare domain": re.compile(r"\b[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b", re.IGNORECASE),
}


def links_in_markdown(text: str) -> list[tuple[str, str]]:
    """Every (form, text) in `text` that Slack could render as a link; [] for none."""
    plain = _ESCAPED.sub("\x00", text)
    return [(form, match[0]) for form, pattern in _FORMS.items() for match in pattern.finditer(plain)]


def shown_text(text: str) -> str:
    """`text` as Slack shows it: each backslash escape is the character it escapes."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)
