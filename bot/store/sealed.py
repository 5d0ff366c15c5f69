"""Sealer: secrets (Slack tokens) encrypted before they reach Redis, with PRDIGEST_SECRET_KEY.

Fernet (cryptography): AES-128-CBC with an HMAC-SHA256, so a value changed in Redis fails to open
instead of opening as someone else's token. Redis, its dumps and its replicas never hold a token
in the clear; the key lives only in the environment of the processes that use the tokens.
"""

from __future__ import annotations

from cryptography.fernet import Fernet, InvalidToken


class Unreadable(Exception):
    """A sealed value this key cannot open: sealed with another key, or changed in Redis."""


class Sealer:
    def __init__(self, key: str) -> None:
        self._fernet = Fernet(key.encode("ascii"))  # settings.py has checked its form

    def seal(self, secret: str) -> str:
        return self._fernet.encrypt(secret.encode()).decode("ascii")

    def open(self, sealed: str) -> str:
        try:
            return self._fernet.decrypt(sealed.encode("ascii")).decode()
        except (InvalidToken, UnicodeError) as exc:
            raise Unreadable from exc
