"""URLs as they may be shown to a person or written to a log: without the credentials in them.

Service URLs from the environment often carry a secret: `redis://:password@host:6379/0`,
`http://user:pass@proxy/v1`, `https://TOKEN@ghe.example.com/api/v3`, `redis://host?password=…`.
Everything that prints such a URL (doctor, error lines, "waiting for …" notes) goes through
here, so none of them has to remember what a URL may hide.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from bot.core.strings.patterns import lazy

MASK = "***"
# Everything up to the last "@" (user, password, a token used as a user name). Not only the
# authority's: a password typed raw may hold "/" or "#", which would end the authority early and
# leave the rest of it showing. Service URLs have no "@" elsewhere, so this masks no more than
# it must in practice. Anchored, with one greedy run, so it takes linear time on any input; the
# scheme is optional because a URL typed without one ("user:pw@host") hides a password as well.
_USERINFO = lazy(r"^([A-Za-z][A-Za-z0-9+.\-]*://)?.*@", re.DOTALL)
# Query parameters whose value is a secret (redis-py reads `?password=`, proxies take `?token=`,
# signed URLs `?sig=`); matched as parts of the name, case-insensitively.
_SECRET_NAMES = ("pass", "pwd", "token", "key", "secret", "auth", "sig", "cred")


def redact_url(url: str) -> str:
    """`url` with its user name, password and secret-looking query values replaced by ***."""
    text = _USERINFO.sub(lambda match: f"{match.group(1) or ''}{MASK}@", url, count=1)
    head, question, rest = text.partition("?")
    if not question:
        return text
    query, hash_mark, fragment = rest.partition("#")
    return f"{head}?{'&'.join(_redact_param(param) for param in query.split('&'))}{hash_mark}{fragment}"


def _redact_param(param: str) -> str:
    name, equals, value = param.partition("=")
    if equals and value and any(word in name.lower() for word in _SECRET_NAMES):
        return f"{name}={MASK}"
    return param


def url_host(url: str) -> str:
    """The host (and port) a URL points at, for "waiting for the model at HOST": nothing else."""
    shown = redact_url(url)  # parsed only once redacted: a raw "/" in a password would pass for a port
    try:
        parts = urlsplit(shown)
        host, port = parts.hostname, parts.port
    except ValueError:  # "http://[::1" or a port that is not a number
        return shown
    if not host:
        return shown
    named = f"[{host}]" if ":" in host else host
    return f"{named}:{port}" if port is not None else named


# Secrets by their shape, for log lines (bot/ops/logs.py), which may quote any library's message:
# Slack's tokens (xoxb-, xoxp-, xoxe.xoxp-, xapp-), GitHub's (ghp_, gho_, ghs_, ghu_, ghr_,
# github_pat_), OpenAI-style keys (sk-…), an Authorization header's credentials, a URL's user
# info, and query values whose name says they are secret. Each is one linear pattern.
_SECRET_SHAPES = (
    lazy(r"\bx(?:ox[a-z]|app)(?:\.xox[a-z])?-[A-Za-z0-9-]+"),
    lazy(r"\b(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]+"),
    lazy(r"\bsk-[A-Za-z0-9_-]{8,}"),
)
_AUTH_HEADER = lazy(r"(?i)(\bauthorization['\"]?\s*[:=]\s*['\"]?)[^'\",}\r\n]+")
_BEARER = lazy(r"\b([Bb]earer\s+)[A-Za-z0-9._~+/=-]+")
# Up to the last "@" before the URL ends, as redact_url does: a raw password may hold "/".
_URL_USERINFO = lazy(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^\s'\"]*@")
_SECRET_PARAM = lazy(r"(?i)([?&][^=&\s]*(?:" + "|".join(_SECRET_NAMES) + r")[^=&\s]*=)[^&\s#'\"]+")
# An OAuth code (Slack's redirect after "Allow"): good once, for the workspace's token, to whoever
# exchanges it first. It has no shape of its own, so it is found by its name: `code=…` in a query
# or a form, `'code': '…'` in slack_sdk's debug line of the request it sends to oauth.v2.access,
# and "with code: …" in Bolt's warning when that exchange fails (slack_bolt/oauth/oauth_flow.py).
_OAUTH_CODE = (
    lazy(r"(\bcode=)[^&\s#'\"]+"),
    lazy(r"""(['"]code['"]\s*:\s*['"])[^'"]+"""),
    lazy(r"(\bwith code: )[^\s'\"]+"),
)


def scrub(text: str) -> str:
    """`text` with anything shaped like a token, a key, a URL's credentials or an OAuth code
    replaced by ***."""
    for shape in _SECRET_SHAPES:
        text = shape.sub(MASK, text)
    for credentials in (_AUTH_HEADER, _BEARER):
        text = credentials.sub(lambda match: match.group(1) + MASK, text)
    text = _URL_USERINFO.sub(lambda match: match.group(1) + MASK + "@", text)
    for named in (_SECRET_PARAM, *_OAUTH_CODE):
        text = named.sub(lambda match: match.group(1) + MASK, text)
    return text
