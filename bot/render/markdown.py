"""Standard Markdown for Slack's `markdown_text` (streamed answers): nothing in it becomes a link (pure).

Owns the escaping of sanitized text for Markdown, as render/mrkdwn.py owns it for mrkdwn. Which
links may be kept is core/checks/sanitize.py's rule, the same for streamed and final text; this module
only makes sure that Markdown does not build a link of its own from what is left: the final
message is mrkdwn with `verbatim` (no auto-linking), and `markdown_text` has no such switch.
"""

from __future__ import annotations

from bot.core.strings.patterns import lazy

# Slack's markdown block honours CommonMark's backslash escapes ("Escaping special characters:
# \*This is special text\*", markdown-block reference); CommonMark §2.4 lets any ASCII
# punctuation be escaped and shows it without the backslash.
#
# Escaped everywhere: what opens a link or an image (`[`, `]`), an autolink, HTML or Slack's
# `<url|label>` (`<`, `>`), an entity that could spell them (`&`), a code span or fence (a
# backquote: inside one no escape works, and which backquotes pair up is only known once the
# whole answer has come), and the backslash itself, so the model's own cannot undo ours.
# Escaped inside a word: the `.`, `:` and `@` that make an address for an autolinker
# (`evil.example/x`, `www.x`, `http:x`, `a@b.c`: GFM's autolink extension, Slack's own linking
# of bare domains). Before white space (a sentence's full stop) they are left as written.
_LINK_MAKERS = lazy(r"[\\`\[\]<>&]|[.:@](?!\s)")


def markdown_text(text: str) -> str:
    """`text` (already sanitized) as Markdown that shows the same words and makes no link.

    Character by character (a `.` ending a piece is escaped, as the next piece may go on from
    it), so the pieces of a streamed answer, each escaped as it is sent, show what the escaped
    whole would.
    """
    return _LINK_MAKERS.sub(lambda match: "\\" + match[0], text)
