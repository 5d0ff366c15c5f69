"""Whatever people type or put in the config file: a value, or our own error saying what was wrong
and what works, on one line. Never another exception (a traceback from re, int, zoneinfo,
tomllib or pydantic is a bug in the surface that let it through)."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.core.refs import MAX_NUMBER, parse_ref, parse_repo
from bot.digests.windows import parse_date, parse_since, window_for_date, window_since
from bot.errors import MAX_QUOTED, ConfigError, UsageError, one_line
from bot.models import Card, Coverage, DigestItem, PRRef, Turn, Window
from bot.questions.which_pr import find_refs, resolve
from bot.settings import Settings, load_settings
from tests.unit.builders import make_listing

REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
# An error message: our words plus at most MAX_QUOTED characters of the input (escaped, so a
# character may take up to 10), never the whole of a pasted page.
MAX_MESSAGE = 200 + 10 * MAX_QUOTED

# Pieces of what people paste into a terminal or a Slack box, glued together at random.
FRAGMENTS = [
    "owner/repo", "vllm-project/vllm", "#", "#12", "12", "0", "/", "pull/", "https://github.com/a/b/pull/",
    "http://ghe.example.com/", "<", ">", "<!channel>", "<@U123>", "<https://x.test|x>", " ", "\n", "\r\n", "\t",
    "\x00", "\x1b[31m", "\x85", "\u2028", "\u2029", "\u200b", "\u202e", "\ufeff", "中文", "看看", "号", "１２",
    "٣", "🚀", "👩‍💻", "é", "..", "-", "_", "9" * 12, "24h", "7d", "90m", "2026-08-05", "0001-01-01",
]  # fmt: skip
pasted = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=6), max_size=30).map("".join)
very_long = st.builds(
    lambda piece, times: piece * times, st.sampled_from(["1", "a/b", "中", "\n", "x#"]), st.integers(2000, 6000)
)
ANY_TEXT = st.text() | pasted | very_long


def one_line_and_short(message: str) -> bool:
    return len(message.splitlines()) == 1 and len(message) <= MAX_MESSAGE


def valid_ref(ref: PRRef) -> bool:
    return bool(REPO.fullmatch(ref.repo)) and 1 <= ref.number <= MAX_NUMBER


# -- PR references and repositories ---------------------------------------------------------------


@settings(max_examples=500, deadline=None)
@given(text=ANY_TEXT, default_repo=st.none() | st.just("default/repo"))
@example(text="a/b#" + "1" * 5000, default_repo=None)  # int() refuses more than 4,300 digits
@example(text="a/b#1\n>", default_repo=None)
@example(text="#" + "9" * 11, default_repo="default/repo")
def test_a_reference_is_parsed_or_the_error_says_what_works(text: str, default_repo: str | None) -> None:
    try:
        ref = parse_ref(text, default_repo)
    except UsageError as error:
        message = str(error)
        assert "owner/repo#" in message
        assert one_line_and_short(message), message
    else:
        assert valid_ref(ref) or ref.repo == default_repo, ref


@settings(max_examples=300, deadline=None)
@given(text=ANY_TEXT)
@example(text="a/b\n")  # `$` matches before a final newline
@example(text="http://0/0/0")  # a repository's page on some host: its owner/name
def test_a_repository_is_owner_slash_name_or_the_error_says_so(text: str) -> None:
    try:
        repo = parse_repo(text)
    except UsageError as error:
        assert "owner/name" in str(error)
        assert one_line_and_short(str(error))
    else:
        # As typed, or the owner/name of a repository's URL (github.com's or an Enterprise host's).
        assert REPO.fullmatch(repo) and (repo == text or (text.startswith(("http", "<http")) and f"/{repo}" in text))


# -- references in questions ----------------------------------------------------------------------


def item(number: int, title: str) -> DigestItem:
    card = Card(
        headline=title,
        verdict="read",
        minutes=5,
        why=(),
        caveats=(),
        watch=(),
        source="heuristic",
        coverage=Coverage(files_total=1, files_read=1),
        language="en",
    )
    return DigestItem(make_listing(repo="default/repo", number=number, title=title), card, 10)


ITEMS = (item(1, "Faster moe routing kernel"), item(2, "Faster moe scheduler"), item(3, "Tokenizer cache"))
HISTORIES = st.sampled_from([[], [Turn("user", "what about #1?", pr="default/repo#1"), Turn("bot", "It…")]])


@settings(max_examples=400, deadline=None)
@given(text=ANY_TEXT, default_repo=st.none() | st.just("default/repo"), history=HISTORIES)
@example(text="a/b#" + "1" * 5000, default_repo=None, history=[])
def test_questions_never_raise_and_name_only_real_prs(text: str, default_repo: str | None, history: list[Turn]) -> None:
    refs = find_refs(text, default_repo)
    assert all(valid_ref(ref) for ref in refs), refs
    paths: dict[PRRef, tuple[str, ...]] = {ITEMS[0].listing.ref: ("vllm/moe/router.py",)}
    resolution = resolve(text, ITEMS, history, paths, default_repo)
    assert resolution.kind in ("pr", "choose", "digest")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("这个vllm-project/vllm#12怎么样", [PRRef("vllm-project/vllm", 12)]),
        ("看看#12号", [PRRef("default/repo", 12)]),
        ("a/b#0 and c/d#99999999999", []),
    ],
)
def test_references_inside_chinese_text_and_impossible_numbers(text: str, expected: list[PRRef]) -> None:
    assert find_refs(text, "default/repo") == expected


# -- windows ------------------------------------------------------------------------------------

NOWS = st.datetimes(min_value=datetime(2008, 1, 2), max_value=datetime(2100, 1, 1), timezones=st.just(UTC))
ZONES = st.sampled_from(["UTC", "Asia/Shanghai", "Pacific/Kiritimati", "Pacific/Pago_Pago", "America/Los_Angeles"])
DURATIONS = st.from_regex(r"\A[0-9]{1,14}[mhd]\Z") | ANY_TEXT
DATES = st.dates().map(date.isoformat) | ANY_TEXT


def a_window_or_usage_error(make: Callable[[], Window], option: str) -> None:
    try:
        window = make()
    except UsageError as error:
        assert str(error).startswith(option) and one_line_and_short(str(error)), str(error)
    else:
        assert window.start < window.end
        assert window.start.astimezone(UTC) < window.end.astimezone(UTC)  # a UTC search can be built


@settings(max_examples=400, deadline=None)
@given(now=NOWS, since=DURATIONS)
@example(now=datetime(2026, 8, 6, tzinfo=UTC), since="99999999999d")  # timedelta overflows
@example(now=datetime(2026, 8, 6, tzinfo=UTC), since="999999999d")  # now - span overflows
@example(now=datetime(2026, 8, 6, tzinfo=UTC), since="1" * 5000 + "d")
def test_since_is_a_window_or_a_usage_error(now: datetime, since: str) -> None:
    a_window_or_usage_error(lambda: window_since(now, parse_since(since)), "--since: ")


@settings(max_examples=400, deadline=None)
@given(now=NOWS, day=DATES, zone=ZONES)
@example(now=datetime(2026, 8, 6, tzinfo=UTC), day="0001-01-01", zone="Pacific/Kiritimati")
def test_date_is_a_window_or_a_usage_error(now: datetime, day: str, zone: str) -> None:
    a_window_or_usage_error(lambda: window_for_date(parse_date(day), ZoneInfo(zone), now), "--date: ")


# -- the config file ----------------------------------------------------------------------------


def load(content: str | bytes) -> tuple[str, Settings | ConfigError]:
    with tempfile.TemporaryDirectory() as directory:
        path = str(Path(directory) / "prdigest.toml")
        if isinstance(content, bytes):
            Path(path).write_bytes(content)
        else:
            Path(path).write_text(content, encoding="utf-8")
        try:
            return path, load_settings({"PRDIGEST_CONFIG": path})
        except ConfigError as error:
            return path, error


@settings(max_examples=400, deadline=None)
@given(
    text=st.text()
    | pasted
    | st.lists(st.sampled_from(["[", "]", "=", '"', "{", "}", "a", "\n", ".", ","])).map("".join)
)
@example(text="x = " + "[" * 5000)  # tomllib recurses per nesting level
def test_any_text_is_a_config_or_a_config_error_naming_the_file(text: str) -> None:
    path, outcome = load(text)
    if isinstance(outcome, ConfigError):
        assert str(outcome).startswith(f"{path}: ")
        assert one_line_and_short(str(outcome)), str(outcome)


@settings(max_examples=100, deadline=None)
@given(content=st.binary())
@example(content=b"\xff\xfe[defaults]\n")
def test_bytes_that_are_not_utf8_are_invalid_toml(content: bytes) -> None:
    path, outcome = load(content)
    if isinstance(outcome, ConfigError):
        message = str(outcome)
        assert message.startswith(f"{path}: ") and one_line_and_short(message)
        try:
            content.decode("utf-8")
        except UnicodeDecodeError:
            assert message.startswith(f"{path}: not valid TOML")


# A config that loads, and the mutations that make it almost valid: one key at a time.
VALID: dict[str, Any] = {
    "defaults": {
        "language": "en",
        "timezone": "Europe/Paris",
        "post_at": "09:30",
        "window": "24h",
        "model": "gpt-5-mini",
        "concurrency": 8,
        "token_budget": 12000,
        "quiet_days": "note",
    },
    "slack": {"command": "/pr"},
    "channels": [
        {
            "id": "C0123456789",
            "repos": ["vllm-project/vllm"],
            "language": "zh-CN",
            "timezone": "Asia/Shanghai",
            "post_at": "10:00",
            "window": "7d",
            "quiet_days": "silent",
            "exclude_authors": ["dependabot[bot]"],
            "labels_include": [],
            "labels_exclude": ["no-digest"],
            "paths": ["vllm/"],
        }
    ],
}
TABLES: list[tuple[str, *tuple[int, ...]]] = [("defaults",), ("slack",), ("channels", 0)]
LEAVES = [
    (*table, key) for table in TABLES for key in (VALID[table[0]][table[1]] if len(table) == 2 else VALID[table[0]])
]
TOML_SCALARS = (
    st.text(max_size=20)
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats()
    | st.booleans()
    | st.datetimes()
    | st.dates()
    | st.times()
)
TOML_VALUES = st.recursive(
    TOML_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
TIME_ZONES = st.sampled_from(["America", "Mars/Base", "", "/etc/localtime", "../UTC", "a" * 300, "UTC\n"]) | st.text()
TIMES = st.sampled_from(["24:00", "9:30", "09:60", "0930", "09:30\n", "٠٩:٣٠"]) | st.text(max_size=8)
WINDOWS = st.from_regex(r"\A[0-9]{1,14}[mhd]\Z") | st.sampled_from(["0h", "366d", "٢٤h", "24h\n"]) | st.text(max_size=8)


@st.composite
def almost_valid(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """VALID with one thing wrong, and the key the error must name."""
    config: dict[str, Any] = {
        "defaults": dict(VALID["defaults"]),
        "slack": dict(VALID["slack"]),
        "channels": [dict(VALID["channels"][0])],
    }

    def table(where: tuple[str | int, ...]) -> dict[str, Any]:
        return config[where[0]] if len(where) == 1 else config[where[0]][where[1]]  # type: ignore[index]

    kind = draw(st.sampled_from(["wrong type", "unknown key", "bad value"]))
    if kind == "unknown key":
        where = draw(st.sampled_from([(), *TABLES]))
        key = draw(st.text(max_size=12).filter(lambda k: k not in (table(where) if where else config)))
        (table(where) if where else config)[key] = draw(TOML_SCALARS)
        return config, dotted((*where, key))
    if kind == "wrong type":
        where = draw(st.sampled_from([*LEAVES, ("defaults",), ("slack",), ("channels",)]))
        value = draw(TOML_VALUES)
    else:
        where, value = draw(
            st.sampled_from(["defaults", ("channels", 0)]).flatmap(
                lambda table_: st.one_of(
                    st.tuples(st.just(path(table_, "language")), st.text(max_size=8)),
                    st.tuples(st.just(path(table_, "quiet_days")), st.text(max_size=8)),
                    st.tuples(st.just(path(table_, "timezone")), TIME_ZONES),
                    st.tuples(st.just(path(table_, "post_at")), TIMES),
                    st.tuples(st.just(path(table_, "window")), WINDOWS),
                )
            )
            | st.tuples(st.just(("channels", 0, "repos")), st.sampled_from([[], ["a/b\n"], ["vllm"], [""]]))
            | st.tuples(st.just(("channels", 0, "id")), st.text(max_size=12))
            | st.tuples(st.just(("slack", "command")), st.text(max_size=12))
        )
    if len(where) == 1:
        config[str(where[0])] = value
    else:
        table(where[:-1])[str(where[-1])] = value
    return config, dotted(where)


def path(table: str | Sequence[str | int], key: str) -> tuple[str | int, ...]:
    return (table, key) if isinstance(table, str) else (*table, key)


def dotted(where: tuple[str | int, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in where).removeprefix(".")


@settings(max_examples=500, deadline=None)
@given(case=almost_valid())
def test_an_almost_valid_config_is_an_error_naming_the_key(case: tuple[dict[str, Any], str]) -> None:
    config, key = case
    path, outcome = load(to_toml(config))
    if isinstance(outcome, ConfigError):
        message = str(outcome)
        assert message.startswith(f"{path}: "), message
        assert one_line_and_short(message), message
        named = message.removeprefix(f"{path}: ")
        # The key, escaped and cut as quoted() shows it (an unknown key may hold anything).
        assert named.startswith(shown(key)) or named.startswith(f"unknown key '{shown(key)}"), (key, message)


def test_the_valid_config_loads() -> None:
    _, outcome = load(to_toml(VALID))
    assert isinstance(outcome, Settings)


def shown(key: str) -> str:
    return one_line(key[: MAX_QUOTED - 1])


# -- a TOML writer for the tests (tomllib only reads) -------------------------------------------


def to_toml(config: dict[str, Any]) -> str:
    return "".join(f"{toml_key(key)} = {toml_value(value)}\n" for key, value in config.items())


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else toml_string(key)


def toml_string(text: str) -> str:
    # TOML basic strings allow no control character but tab (TOML 1.0, "String").
    escaped = "".join(
        f"\\u{ord(char):04X}" if (ord(char) < 0x20 and char != "\t") or char == "\x7f" else char
        for char in text.replace("\\", "\\\\").replace('"', '\\"')
    )
    return f'"{escaped}"'


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return {"inf": "inf", "-inf": "-inf", "nan": "nan"}.get(repr(value), repr(value))
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(type(value))


@settings(max_examples=200, deadline=None)
@given(value=TOML_VALUES)
def test_the_toml_writer_round_trips(value: Any) -> None:
    import math
    import tomllib

    def same(a: Any, b: Any) -> bool:
        if isinstance(a, float) and math.isnan(a):
            return isinstance(b, float) and math.isnan(b)
        if isinstance(a, list):
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        return bool(a == b)

    assert same(tomllib.loads(to_toml({"x": value}))["x"], value)
