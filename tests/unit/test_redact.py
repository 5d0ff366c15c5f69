from __future__ import annotations

import pytest

from bot.ops.redact import MASK, redact_url, scrub, url_host


@pytest.mark.parametrize(
    ("url", "shown", "host"),
    [
        ("http://user:s3cret@proxy.local/v1", "http://***@proxy.local/v1", "proxy.local"),
        ("redis://:s3cret@cache:6379/0", "redis://***@cache:6379/0", "cache:6379"),
        ("https://s3cret@ghe.example.com/api/v3", "https://***@ghe.example.com/api/v3", "ghe.example.com"),
        ("rediss://cache:6380/0?password=s3cret&db=1", "rediss://cache:6380/0?password=***&db=1", "cache:6380"),
        ("http://127.0.0.1:8000/v1?api_key=s3cret#x", "http://127.0.0.1:8000/v1?api_key=***#x", "127.0.0.1:8000"),
        # A password typed raw, with "/" or "@" in it, is masked whole; so is one with no scheme.
        ("redis://:s3/cret@cache:6379/0", "redis://***@cache:6379/0", "cache:6379"),
        ("redis://:s3@cret@cache:6379/0", "redis://***@cache:6379/0", "cache:6379"),
        ("http://user:1234/s3cret@host:8/v1", "http://***@host:8/v1", "host:8"),
        ("user:s3cret@host", "***@host", "***@host"),
        # Nothing to hide: unchanged.
        ("https://api.github.com", "https://api.github.com", "api.github.com"),
        ("http://[::1]:8000/v1", "http://[::1]:8000/v1", "[::1]:8000"),
        ("rediss//localhost", "rediss//localhost", "rediss//localhost"),
        ("http://[::1", "http://[::1", "http://[::1"),
    ],
)
def test_credentials_never_show(url: str, shown: str, host: str) -> None:
    assert redact_url(url) == shown
    assert url_host(url) == host
    assert "s3cret" not in redact_url(url) + url_host(url)


def test_long_input_is_handled_in_one_pass() -> None:
    # What the environment holds is the operator's, but a pasted blob must not hang doctor.
    text = "http://" + "a:" * 200_000 + "b"
    assert redact_url(text) == text


@pytest.mark.parametrize(
    ("line", "hidden"),
    [
        ("posting with xoxb-1111-2222-AbCd", "xoxb-1111"),
        ("rotated to xoxe.xoxp-1-Mi0yLTE", "Mi0yLTE"),
        ("socket mode with xapp-1-A0-123-abc", "xapp-1"),
        ("GitHub said no to ghp_0123456789abcdefABCDEF", "ghp_0123"),
        ("token github_pat_11ABC_defGHI", "github_pat_11ABC"),
        ("key sk-proj-0123456789abcdef", "sk-proj"),
        ("{'Authorization': 'token gho_secret', 'User-Agent': 'PyGithub'}", "gho_secret"),
        ("headers: Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
        ("sent Bearer abc.def-ghi", "abc.def"),
        ("connecting to redis://:hunter2@cache:6379/0", "hunter2"),
        ("connecting to redis://:hun/ter2@cache:6379/0 now", "ter2"),
        ("proxy http://h/v1?api_key=abc123&x=1", "abc123"),
    ],
)
def test_scrub_masks_secrets_in_a_log_line(line: str, hidden: str) -> None:
    scrubbed = scrub(line)
    assert hidden not in scrubbed and MASK in scrubbed


def test_scrub_leaves_ordinary_words_alone() -> None:
    for line in ("the token was refused", "a key: value", "mail dev@example.com", "skip-this and task-1"):
        assert scrub(line) == line
