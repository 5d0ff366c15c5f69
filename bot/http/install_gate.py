"""GET /slack/install before Bolt sees it: a start over InstallStarts' limits (workspaces/installs.py)
is answered 429 with Retry-After and writes no OAuth state. Parsing and replying only."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from bot.core.addresses import client_address
from bot.errors import StoreError
from bot.http.httpd import StartResponse
from bot.models import Language
from bot.words import text
from bot.workspaces import InstallStarts

log = logging.getLogger(__name__)

INSTALL_PATH = "/slack/install"  # Bolt's OAuthSettings.install_path, which we keep


def refused(starts: InstallStarts, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes] | None:
    """The 429 (or 503 without Redis) for a start that may not write a state now; None to go on."""
    address = client_address(str(environ.get("REMOTE_ADDR") or ""), environ.get("HTTP_X_FORWARDED_FOR"))
    try:
        wait = starts.admit(address)
    except StoreError:
        return _answer(start_response, "503 Service Unavailable", b"Redis is unreachable: try again shortly\n", [])
    if wait is None:
        return None
    log.debug("install start from %s refused for %d s", address, wait)
    language: Language = "zh-CN" if str(environ.get("HTTP_ACCEPT_LANGUAGE") or "").lower().startswith("zh") else "en"
    body = (text(language, "oauth.install_busy", seconds=wait) + "\n").encode()
    return _answer(start_response, "429 Too Many Requests", body, [("Retry-After", str(wait))])


def _answer(start_response: StartResponse, status: str, body: bytes, extra: list[tuple[str, str]]) -> list[bytes]:
    headers = [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body))), *extra]
    start_response(status, headers)
    return [body]
