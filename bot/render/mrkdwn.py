"""Slack mrkdwn text: escaping what we did not write, links we build, model answers made safe (pure).

Owns the rule that no `<…>` reaches Slack unless this module built it. Builds no blocks
(render/slack/blocks.py does) and never trusts a URL that did not come from GitHub's API fields.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from bot.core.strings.patterns import lazy

# Fits one section block: Block Kit caps a section's text at 3,000 characters (section-block
# reference; slack_sdk SectionBlock.text_max_length), less room for a closing line.
MAX_ANSWER_CHARS = 2900

ELLIPSIS = "…"

# A `|` ends a link's URL and starts its label (Slack formatting reference: `<url|label>`), and no
# escape exists for it inside a label, so labels show a look-alike instead.
_LABEL_PIPE = "¦"

# Characters that would end or split `<url|label>`: percent-encoded (RFC 3986), never dropped.
_URL_BREAKERS = lazy(r"[<>|\s]")

# Model answers are untrusted text: each pattern stops at the next character that could start
# another match ("[", "(", "*"), so no attempt rescans the rest of a line (linear, not
# quadratic, on "[a](" * n or "**a" * n).
_MD_LINK = lazy(r"!?\[([^\[\]\n]+)\]\([^()\[\]\n]*\)")
_MD_HEADING = lazy(r"^[ \t]*#{1,6}[ \t]+(.+)$", re.MULTILINE)
_MD_BULLET = lazy(r"^([ \t]*)[-*+][ \t]+", re.MULTILINE)
_MD_BOLD = lazy(r"\*\*(?=[^\s*])([^*\n]+)(?<=\S)\*\*")
# A single-backtick code span, not part of a ``` fence.
_CODE_SPAN = lazy(r"(?<!`)`([^`\n]+)`(?!`)")


def escape(text: str) -> str:
    """Slack's three control characters as entities, `&` first (Slack formatting reference, "Escaping text")."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _safe_url(url: str) -> str:
    encoded = _URL_BREAKERS.sub(lambda match: "".join(f"%{byte:02X}" for byte in match[0].encode()), url)
    return encoded.replace("&", "&amp;")


def link(url: str, label: str) -> str:
    """`<url|label>`: the URL comes from GitHub's API fields; the label is escaped and keeps no `|`."""
    return f"<{_safe_url(url)}|{escape(label).replace('|', _LABEL_PIPE)}>"


def diff_url(pr_url: str, path: str) -> str:
    """The file's anchor on the PR's "Files changed" tab: GitHub names it `diff-<sha256 of the path>`."""
    return f"{pr_url.rstrip('/')}/files#diff-{hashlib.sha256(path.encode()).hexdigest()}"


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a line or word boundary, ending in "…".

    Never splits an entity (`&amp;`) or a link we built (`<url|label>`).
    """
    if len(text) <= limit:
        return text
    cut = text[: max(limit - len(ELLIPSIS), 0)]
    # A boundary only when it keeps at least half the room (CJK text has no spaces).
    for boundary in ("\n", " "):
        position = cut.rfind(boundary)
        if position >= len(cut) // 2:
            cut = cut[:position]
            break
    if cut.rfind("<") > cut.rfind(">"):
        cut = cut[: cut.rfind("<")]
    if cut.rfind("&") > cut.rfind(";"):
        cut = cut[: cut.rfind("&")]
    return cut.rstrip() + ELLIPSIS


def _heading(match: re.Match[str]) -> str:
    # The closing hashes and spaces are stripped here: in the pattern, a lazy group before
    # `[ \t#]*$` rescans every run of spaces.
    title = match[1].rstrip(" \t#").replace("**", "")
    return f"*{title}*"


def _link_paths(text: str, pr_url: str, paths: Iterable[str]) -> str:
    # Code spans are matched in the escaped text, so look the paths up by their escaped form.
    by_escaped = {escape(path): path for path in paths}

    def replace(match: re.Match[str]) -> str:
        path = by_escaped.get(match[1])
        return match[0] if path is None else link(diff_url(pr_url, path), path)

    return _CODE_SPAN.sub(replace, text)


def answer_text(answer: str, pr_url: str | None, paths: Iterable[str]) -> str:
    """A model's answer (plain text, light Markdown) as safe Slack mrkdwn within one section.

    Its own links are reduced to their labels (we pass on no link we did not build); the PR's
    changed files named in backticks become links to their diffs.
    """
    text = escape(answer.strip())
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_HEADING.sub(_heading, text)
    text = _MD_BULLET.sub(r"\1• ", text)
    text = _MD_BOLD.sub(r"*\1*", text)
    if pr_url is not None:
        text = _link_paths(text, pr_url, paths)
    return clip(text, MAX_ANSWER_CHARS)


def cited_paths(answer: str, paths: Iterable[str]) -> tuple[str, ...]:
    """The PR's changed files an answer names in backticks, in the order named, each once: the
    files answer_text links to their diffs, for a surface that lists them (terminal, JSON)."""
    changed = set(paths)
    named = (match[1] for match in _CODE_SPAN.finditer(answer))
    return tuple(dict.fromkeys(path for path in named if path in changed))
