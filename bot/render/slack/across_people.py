"""The lines of a reply across days about the people a name was (pure): several authors of
that name, each listed, and the authors whose name GitHub could not give, so were not matched.

Display names are GitHub profiles' (anyone writes their own): one line each, cut, and made safe
for the surface by the `shown` it passes (Slack's escaping, or a terminal's one clean line).
"""

from __future__ import annotations

from collections.abc import Callable

from bot.core.strings.text import clean_line
from bot.models import AcrossMatches, Language
from bot.words import CATALOGUES, text

# GitHub allows a profile name of 255 characters; a line of people is read at a glance.
MAX_NAME_CHARS = 60


def people_lines(reply: AcrossMatches, language: Language, shown: Callable[[str], str]) -> list[str]:
    lines = []
    if reply.people and reply.author is not None:
        people = CATALOGUES[language]["list.sep"].join(
            text(
                language,
                "reply.across_person",
                name=shown(clean_line(name or login, MAX_NAME_CHARS)),
                login=shown(login),
            )
            for login, name in reply.people
        )
        said = shown(clean_line(reply.author, MAX_NAME_CHARS))
        lines.append(text(language, "reply.across_people", said=said, n=len(reply.people), people=people))
    if reply.unread and reply.unread_why is not None:
        lines.append(text(language, "reply.across_unread", n=reply.unread, why=reply.unread_why))
    elif reply.unread:
        lines.append(text(language, "reply.across_unread_later", n=reply.unread))
    return lines
