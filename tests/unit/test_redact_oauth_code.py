"""An OAuth code in a log line is masked, in each way a library writes one (bot/ops/redact.py)."""

from __future__ import annotations

import pytest

from bot.ops.redact import MASK, scrub

CODE = "8414526601.6202918811.3b2d0c5e7a"


@pytest.mark.parametrize(
    "line",
    [
        # slack_sdk's debug line for the exchange (BaseClient._perform_urllib_http_request).
        f"Sending a request - url: https://slack.com/api/oauth.v2.access, query_params: {{}}, "
        f"body_params: {{'code': '{CODE}', 'redirect_uri': 'https://h/slack/oauth_redirect'}}, files: {{}}",
        # Bolt's warning when the exchange is refused (OAuthFlow.run_installation).
        f"Failed to fetch oauth.v2.access result with code: {CODE} - error: invalid_code",
        # Slack's redirect, as a URL or a query, and the code as JSON.
        f"GET https://h/slack/oauth_redirect?code={CODE}&state=abc HTTP/1.1",
        f"code={CODE}&state=abc",
        f'{{"code": "{CODE}"}}',
    ],
)
def test_an_oauth_code_is_masked(line: str) -> None:
    scrubbed = scrub(line)
    assert CODE not in scrubbed and MASK in scrubbed


def test_words_about_codes_are_left_alone() -> None:
    for line in ("status_code=500", "HTTP status code: 500", "exit code 1", "the code of conduct", "errcode=7"):
        assert scrub(line) == line
