from __future__ import annotations

from datetime import time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.channels.directory import ChannelDirectory
from bot.errors import ConfigError
from bot.settings import duration_text, load_settings, parse_duration

REPO_ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "prdigest.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_checked_in_example_config_is_valid() -> None:
    settings = load_settings({"PRDIGEST_CONFIG": str(REPO_ROOT / "config" / "prdigest.toml")})
    assert settings.config.channels == ()  # posts nowhere until a real channel is set
    assert settings.defaults.token_budget == 12000
    assert settings.defaults.model_timeout == 120
    assert settings.defaults.watch_days == 30


def test_the_example_channel_table_is_valid_once_uncommented(tmp_path: Path) -> None:
    example = (REPO_ROOT / "config" / "prdigest.toml").read_text(encoding="utf-8")
    start = example.index("# [[channels]]")
    table, rest = example[start:].split("\n\n", 1)
    uncommented = "\n".join(line.removeprefix("# ") for line in table.splitlines() if not line.startswith("#  "))
    settings = load_settings({"PRDIGEST_CONFIG": write(tmp_path, example[:start] + uncommented + "\n\n" + rest)})
    assert settings.config.channels[0].repos == ("vllm-project/vllm",)


def test_unknown_key_is_named_with_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, '[defaults]\nmodle = "gpt"\n')
    with pytest.raises(ConfigError) as error:
        load_settings({"PRDIGEST_CONFIG": path})
    assert str(error.value) == f"{path}: unknown key 'defaults.modle'"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[defaults]\nlanguage = "fr"\n', "defaults.language"),
        ('[defaults]\ntimezone = "Mars/Base"\n', "unknown time zone 'Mars/Base'"),
        ('[defaults]\npost_at = "25:00"\n', "defaults.post_at: '25:00' is not a time of day"),
        ('[defaults]\nwindow = "yesterday"\n', "defaults.window: 'yesterday' is not a duration"),
        ("[defaults]\nconcurrency = 0\n", "defaults.concurrency"),
        ('[[channels]]\nid = "C0123456789"\nrepos = ["not-a-repo"]\n', "channels[0].repos: 'not-a-repo'"),
        ('[[channels]]\nid = "general"\nrepos = ["a/b"]\n', "channels[0].id: 'general' is not a Slack channel id"),
        ('[[channels]]\nid = "C0123456789"\nrepos = ["a/b"]\ncolour = "red"\n', "unknown key 'channels[0].colour'"),
        ('[slack]\ncommand = "pr"\n', "slack.command"),
    ],
)
def test_bad_values_name_the_key(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as error:
        load_settings({"PRDIGEST_CONFIG": path})
    assert expected in str(error.value)
    assert str(error.value).startswith(path)


@pytest.mark.parametrize("value", ["0", "-5", '"120"', '"2m"', "true", "nan", "inf", "3601", "[120]"])
def test_model_timeout_must_be_a_positive_number_of_seconds(tmp_path: Path, value: str) -> None:
    path = write(tmp_path, f"[defaults]\nmodel_timeout = {value}\n")
    with pytest.raises(ConfigError) as error:
        load_settings({"PRDIGEST_CONFIG": path})
    assert str(error.value).startswith(f"{path}: defaults.model_timeout: ")
    assert "is not a number of seconds" in str(error.value)


def test_model_timeout_defaults_to_two_minutes_and_takes_fractions(tmp_path: Path) -> None:
    assert load_settings({}).defaults.model_timeout == 120
    path = write(tmp_path, "[defaults]\nmodel_timeout = 2.5\n")
    assert load_settings({"PRDIGEST_CONFIG": path}).defaults.model_timeout == 2.5


@pytest.mark.parametrize("value", ["0", "-1", "366", '"30"', "30.0", "true", "[30]"])
def test_watch_days_must_be_a_whole_number_of_days_up_to_a_year(tmp_path: Path, value: str) -> None:
    path = write(tmp_path, f"[defaults]\nwatch_days = {value}\n")
    with pytest.raises(ConfigError) as error:
        load_settings({"PRDIGEST_CONFIG": path})
    message = str(error.value)
    assert message.startswith(f"{path}: defaults.watch_days: ") and "\n" not in message
    assert "is not a number of days; use a whole number from 1 to 365, such as 30" in message


def test_watch_days_defaults_to_a_month(tmp_path: Path) -> None:
    assert load_settings({}).defaults.watch_days == 30
    path = write(tmp_path, "[defaults]\nwatch_days = 365\n")
    assert load_settings({"PRDIGEST_CONFIG": path}).defaults.watch_days == 365


def test_values_are_parsed_once_into_their_types(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[defaults]\ntimezone = "Asia/Shanghai"\npost_at = "08:15"\nwindow = "36h"\n\n'
        '[[channels]]\nid = "C0123456789"\nrepos = ["a/b"]\npost_at = "00:00"\nwindow = "90m"\nquiet_days = "silent"\n',
    )
    settings = load_settings({"PRDIGEST_CONFIG": path})
    assert settings.defaults.timezone == ZoneInfo("Asia/Shanghai")
    assert settings.defaults.post_at == time(8, 15)
    assert settings.defaults.window == timedelta(hours=36)
    (plan,) = ChannelDirectory(settings.config).plans
    assert (plan.timezone, plan.post_at, plan.window, plan.quiet_days) == (
        ZoneInfo("Asia/Shanghai"),
        time(0, 0),
        timedelta(minutes=90),
        "silent",
    )


def test_built_in_defaults_are_typed_values() -> None:
    defaults = load_settings({}).defaults
    assert (defaults.timezone, defaults.post_at, defaults.window) == (ZoneInfo("UTC"), time(9, 0), timedelta(hours=24))


@pytest.mark.parametrize("value", ["09:30:00", "930", '["09:30"]'])
def test_a_time_of_day_must_be_written_as_text(tmp_path: Path, value: str) -> None:
    # TOML has its own time type; the config has always taken "HH:MM" strings only.
    path = write(tmp_path, f"[defaults]\npost_at = {value}\n")
    with pytest.raises(ConfigError) as error:
        load_settings({"PRDIGEST_CONFIG": path})
    assert str(error.value) == f"{path}: defaults.post_at: Input should be a valid string"


def test_invalid_toml_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "[defaults\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings({"PRDIGEST_CONFIG": path})


def test_missing_config_named_by_environment_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such config file"):
        load_settings({"PRDIGEST_CONFIG": str(tmp_path / "absent.toml")})


def test_no_config_file_gives_defaults_and_environment_wins() -> None:
    settings = load_settings({"PRDIGEST_MODEL": "qwen3", "GITHUB_API_URL": "http://127.0.0.1:9/api/v3/"})
    assert settings.config_path is None
    assert settings.model == "qwen3"
    assert settings.github_api_url == "http://127.0.0.1:9/api/v3"
    assert settings.openai_api_key is None
    assert settings.redis_url is None


def test_durations() -> None:
    assert parse_duration("90m").total_seconds() == 5400
    assert parse_duration("24h").total_seconds() == 86400
    assert parse_duration("7d").days == 7
    for bad in ("0h", "h", "24", "1w", "-1d"):
        with pytest.raises(ValueError, match="is not a duration"):
            parse_duration(bad)


@pytest.mark.parametrize(
    ("text", "shown"), [("24h", "24h"), ("1d", "24h"), ("7d", "7d"), ("90m", "90m"), ("120m", "2h")]
)
def test_a_duration_is_shown_as_the_config_writes_one(text: str, shown: str) -> None:
    assert duration_text(parse_duration(text)) == shown
    assert parse_duration(shown) == parse_duration(text)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("rediss//:hunter2@localhost", "REDIS_URL is not a Redis URL"),
        ("localhost:6379", "REDIS_URL is not a Redis URL"),
        ("http://:hunter2@localhost:6379", "REDIS_URL is not a Redis URL"),
        ("redis://:hunter2@localhost:99999/0", "REDIS_URL has a port that is not a number"),
        ("redis://:hunter2@localhost:six/0", "REDIS_URL has a port that is not a number"),
        ("redis://:hunter2@[::1:6379", "REDIS_URL has a host that cannot be read"),
        ("unix://", "REDIS_URL names no socket"),
    ],
)
def test_a_malformed_redis_url_is_named_without_its_password(url: str, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_settings({"REDIS_URL": url})
    assert str(error.value).startswith(message)
    assert "hunter2" not in str(error.value)


@pytest.mark.parametrize(
    "url", ["redis://localhost:6379/0", "rediss://:secret@cache.internal", "unix:///run/redis.sock"]
)
def test_redis_urls_redis_py_reads_are_accepted(url: str) -> None:
    assert load_settings({"REDIS_URL": url}).redis_url == url


# -- [models."NAME"] ---------------------------------------------------------------------------------


def test_a_model_s_table_applies_to_the_model_in_use(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[defaults]\nmodel = "gpt-5-mini"\n\n[models."gemma3:270m"]\nmode = "json_object"\ncontext_window = 8192\n'
        "max_output_tokens = 1024\ntemperature = 0\nseed = 7\n",
    )
    options = load_settings({"PRDIGEST_CONFIG": path, "PRDIGEST_MODEL": "gemma3:270m"}).model_options
    assert (options.mode, options.context_window, options.max_output_tokens) == ("json_object", 8192, 1024)
    assert (options.temperature, options.seed) == (0.0, 7)
    # Another model has no table: nothing pinned, nothing bounded, the server's sampling.
    other = load_settings({"PRDIGEST_CONFIG": path}).model_options
    assert (other.mode, other.context_window, other.max_output_tokens, other.temperature) == (None, None, None, None)


def test_design_s_model_table_with_prices_and_no_system_role_is_read(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[models."gpt-5-mini"]\ncontext_window = 128000\nmax_output_tokens = 1200\nmode = "json_schema"\n'
        "input_per_million = 0.25\noutput_per_million = 2.0\nsystem_role = false\n",
    )
    options = load_settings({"PRDIGEST_CONFIG": path, "PRDIGEST_MODEL": "gpt-5-mini"}).model_options
    assert (options.input_per_million, options.output_per_million, options.system_role) == (0.25, 2.0, False)
    assert load_settings({}).model_options.system_role is True


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('mode = "yaml"', "models.m.mode: Input should be 'json_schema', 'tools', 'json_object' or 'text'"),
        ('context_window = "8192"', "models.m.context_window: Input should be a valid integer"),
        ("context_window = 512", "models.m.context_window: Input should be greater than or equal to 1000"),
        ("temperature = true", "models.m.temperature: Input should be a valid number"),
        ("temperature = 2.5", "models.m.temperature"),
        ("seed = 1.5", "models.m.seed"),
        ("max_output_tokens = 0", "models.m.max_output_tokens"),
        ('system_role = "no"', "models.m.system_role: Input should be a valid boolean"),
        ("input_per_million = -1", "models.m.input_per_million"),
        (
            "context_window = 2048\nmax_output_tokens = 1500",
            "models.m: max_output_tokens 1500 leaves less than 1000 tokens of context_window 2048 for the prompt",
        ),
        ("num_ctx = 8192", "unknown key 'models.m.num_ctx'"),
    ],
)
def test_bad_model_keys_are_named_with_the_file(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, f'[models."m"]\n{text}\n')
    with pytest.raises(ConfigError) as error:
        load_settings({"PRDIGEST_CONFIG": path})
    assert str(error.value).startswith(f"{path}: ") and expected in str(error.value)


def test_a_model_name_that_breaks_lines_is_shown_on_one(tmp_path: Path) -> None:
    path = write(tmp_path, '[models."a\\nb"]\nmode = "yaml"\n')
    with pytest.raises(ConfigError) as error:
        load_settings({"PRDIGEST_CONFIG": path})
    assert "\n" not in str(error.value) and "models.a\\nb.mode" in str(error.value)


def test_budget_and_skip_classes_default_to_none_and_are_read() -> None:
    defaults = load_settings({}).defaults
    assert defaults.daily_token_budget == 0 and defaults.skip_model_for == ()


def test_skip_model_for_takes_the_known_classes(tmp_path: Path) -> None:
    path = write(tmp_path, '[defaults]\nskip_model_for = ["bot-bumps", "lockfile-only", "ci-one-line"]\n')
    settings = load_settings({"PRDIGEST_CONFIG": path})
    assert settings.defaults.skip_model_for == ("bot-bumps", "lockfile-only", "ci-one-line")


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('skip_model_for = ["bot-bumps", "typos"]', "defaults.skip_model_for[1]"),
        ('skip_model_for = "bot-bumps"', "defaults.skip_model_for"),
        ("daily_token_budget = -5", "defaults.daily_token_budget"),
        ('daily_token_budget = "100000"', "defaults.daily_token_budget"),
        ("daily_token_budget = 1.5", "defaults.daily_token_budget"),
    ],
)
def test_a_bad_budget_or_skip_class_is_one_line_naming_the_key(tmp_path: Path, text: str, key: str) -> None:
    path = write(tmp_path, f"[defaults]\n{text}\n")
    with pytest.raises(ConfigError) as error:
        load_settings({"PRDIGEST_CONFIG": path})
    assert str(error.value).startswith(f"{path}: {key}: ") and "\n" not in str(error.value)


def test_a_price_needs_both_directions(tmp_path: Path) -> None:
    text = '[models."a"]\ninput_per_million = 0.15\noutput_per_million = 0.6\n[models."b"]\ninput_per_million = 1\n'
    models = load_settings({"PRDIGEST_CONFIG": write(tmp_path, text)}).config.models
    price = models["a"].price
    assert price is not None and (price.input_per_million, price.output_per_million) == (0.15, 0.6)
    assert models["b"].price is None


@pytest.mark.parametrize(
    "url",
    ["garbage", "ftp://github.example.com/api/v3", "https://", "api.github.com", "https://gh.example.com:port/api/v3"],
)
def test_a_github_api_url_pygithub_cannot_read_is_one_line_with_an_example(url: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_settings({"GITHUB_API_URL": url})
    assert str(error.value).startswith("GITHUB_API_URL ")
    assert "https://HOST/api/v3" in str(error.value) and "https://api.github.com" in str(error.value)


@pytest.mark.parametrize("url", ["https://api.github.com", "https://ghe.example.com/api/v3/", "http://127.0.0.1:9"])
def test_github_api_urls_pygithub_reads_are_accepted(url: str) -> None:
    assert load_settings({"GITHUB_API_URL": url}).github_api_url == url.rstrip("/")
