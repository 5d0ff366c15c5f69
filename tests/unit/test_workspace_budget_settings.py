"""`[slack] workspace_daily_token_budget`, `workspace_max_repos` and `workspace_max_channels`:
their defaults, the example config's values, and bad values named by their key."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.settings import load_settings


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "prdigest.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_each_installed_workspace_gets_a_budget_and_caps_by_default() -> None:
    slack = load_settings({}).config.slack
    assert (slack.workspace_daily_token_budget, slack.workspace_max_repos, slack.workspace_max_channels) == (
        200_000,
        20,
        50,
    )


def test_the_example_config_sets_the_documented_defaults() -> None:
    slack = load_settings({"PRDIGEST_CONFIG": str(Path(__file__).parents[2] / "config" / "prdigest.toml")}).config.slack
    assert (slack.workspace_daily_token_budget, slack.workspace_max_repos, slack.workspace_max_channels) == (
        200_000,
        20,
        50,
    )


def test_the_keys_are_read_and_a_zero_budget_means_no_cap(tmp_path: Path) -> None:
    text = "[slack]\nworkspace_daily_token_budget = 0\nworkspace_max_repos = 3\nworkspace_max_channels = 2\n"
    slack = load_settings({"PRDIGEST_CONFIG": write(tmp_path, text)}).config.slack
    assert (slack.workspace_daily_token_budget, slack.workspace_max_repos, slack.workspace_max_channels) == (0, 3, 2)


@pytest.mark.parametrize(
    "text",
    [
        "workspace_daily_token_budget = -1",
        'workspace_daily_token_budget = "200000"',
        "workspace_daily_token_budget = 1.5",
        "workspace_max_repos = 0",
        "workspace_max_repos = true",
        "workspace_max_channels = -3",
        'workspace_max_channels = "50"',
    ],
)
def test_a_bad_workspace_budget_or_cap_is_one_line_naming_the_key(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, f"[slack]\n{text}\n")
    with pytest.raises(ConfigError) as error:
        load_settings({"PRDIGEST_CONFIG": path})
    key = text.split(" = ", maxsplit=1)[0]
    assert str(error.value).startswith(f"{path}: slack.{key}: ") and "\n" not in str(error.value)
