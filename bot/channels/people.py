"""PeopleLanguages: which of our languages a person reads, from their Slack locale.

For what belongs to one person rather than to a channel (the App Home). Read from users.info
with include_locale (scope users:read) and remembered briefly (store/repos/facts.py); "zh-…" locales
read Simplified Chinese, every other one English. When Slack cannot say, the configured default
language stands in, and nothing is remembered so the next visit asks again.
"""

from __future__ import annotations

import logging

from bot.errors import SlackError
from bot.models import Language
from bot.ports.slack import SlackPort
from bot.store.repos.facts import FactStore

log = logging.getLogger(__name__)


def language_of(locale: str) -> Language:
    """Our language for a Slack locale such as "zh-CN" or "en-US"."""
    return "zh-CN" if locale.lower().startswith("zh") else "en"


class PeopleLanguages:
    def __init__(self, facts: FactStore, default: Language) -> None:
        self._facts = facts
        self._default = default

    def language(self, slack: SlackPort, user: str) -> Language:
        cached = self._facts.language(user)
        if cached is not None:
            return cached
        try:
            locale = slack.user_info(user, locale=True).get("locale")
        except SlackError as exc:
            if exc.code == SlackError.TRANSPORT:
                raise  # no answer at all: the caller's failure, as before any answer was read
            log.warning("cannot read the locale of %s (%s)", user, exc.code)
            return self._default
        if not isinstance(locale, str) or not locale:
            return self._default
        language = language_of(locale)
        self._facts.remember_language(user, language)
        return language
