"""The OAuth manifest and the settings agree: the scopes asked for when SLACK_SCOPES is unset are
the manifest's, and Slack's redirect comes to the path Bolt serves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.settings import DEFAULT_BOT_SCOPES

CONFIG = Path(__file__).resolve().parents[2] / "config"


def bot_scopes(manifest: str) -> tuple[str, ...]:
    block = manifest.split("    bot:\n", 1)[1].split("settings:", 1)[0]
    return tuple(re.findall(r"^      - ([a-z:._]+)", block, flags=re.MULTILINE))


@pytest.mark.parametrize("name", ["manifest.yml", "manifest.oauth.yml"])
def test_default_scopes_are_the_manifests(name: str) -> None:
    assert bot_scopes((CONFIG / name).read_text(encoding="utf-8")) == DEFAULT_BOT_SCOPES


def test_the_oauth_manifest_redirects_to_bolts_path_and_rotates_tokens() -> None:
    manifest = (CONFIG / "manifest.oauth.yml").read_text(encoding="utf-8")
    assert re.search(r"redirect_urls:\n    - https://[^/]+/slack/oauth_redirect\n", manifest)
    assert "token_rotation_enabled: true" in manifest
    assert "- app_uninstalled" in manifest and "- tokens_revoked" in manifest
