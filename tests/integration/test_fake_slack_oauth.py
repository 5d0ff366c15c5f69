"""FakeSlack's oauth.v2.access and workspaces, driven by the real slack_sdk: the answers and
refusals the app's OAuth flow and token rotation meet in real Slack."""

from __future__ import annotations

import pytest
from devkit.fakes.slack import FakeSlack
from devkit.fakes.slack_oauth import CLIENT_ID, CLIENT_SECRET
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from tests.integration import fake_slack_server

# The module's one fake Slack, reset before each test.
server, slack = fake_slack_server.server, fake_slack_server.slack


@pytest.fixture
def app_client(slack: FakeSlack) -> WebClient:
    return WebClient(base_url=slack.api_url, timeout=5)


def error_of(call: object) -> str:
    with pytest.raises(SlackApiError) as raised:
        call()  # type: ignore[operator]
    return str(raised.value.response["error"])


def test_a_code_is_exchanged_once_for_a_token_of_that_workspace(slack: FakeSlack, app_client: WebClient) -> None:
    code = slack.install_code("T0SECOND", scopes=("chat:write", "commands"))

    answer = app_client.oauth_v2_access(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, code=code)

    assert answer["token_type"] == "bot" and answer["access_token"].startswith("xoxb-")
    assert answer["team"]["id"] == "T0SECOND" and answer["scope"] == "chat:write,commands"
    assert answer["enterprise"] is None and answer["is_enterprise_install"] is False
    assert "refresh_token" not in answer.data  # rotation off
    who = WebClient(token=answer["access_token"], base_url=slack.api_url).auth_test()
    assert (who["team_id"], who["user_id"]) == ("T0SECOND", answer["bot_user_id"])
    assert error_of(
        lambda: app_client.oauth_v2_access(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, code=code)
    ) == ("invalid_code")


def test_wrong_client_credentials_are_refused(slack: FakeSlack, app_client: WebClient) -> None:
    code = slack.install_code("T0SECOND")
    assert error_of(lambda: app_client.oauth_v2_access(client_id="1.1", client_secret=CLIENT_SECRET, code=code)) == (
        "invalid_client_id"
    )
    assert error_of(lambda: app_client.oauth_v2_access(client_id=CLIENT_ID, client_secret="nope", code=code)) == (
        "bad_client_secret"
    )


def test_rotation_hands_out_expiring_tokens_and_refreshes_them(slack: FakeSlack, app_client: WebClient) -> None:
    slack.workspaces.rotation = True
    code = slack.install_code("T0SECOND")
    first = app_client.oauth_v2_access(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, code=code)
    assert first["access_token"].startswith("xoxe.xoxb-") and first["expires_in"] == 43200
    assert first["refresh_token"].startswith("xoxe-1-")

    refreshed = app_client.oauth_v2_access(
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        grant_type="refresh_token",
        refresh_token=first["refresh_token"],
    )

    assert refreshed["access_token"] != first["access_token"] and refreshed["token_type"] == "bot"
    assert WebClient(token=refreshed["access_token"], base_url=slack.api_url).auth_test()["team_id"] == "T0SECOND"
    assert (
        error_of(
            lambda: app_client.oauth_v2_access(
                client_id=CLIENT_ID, client_secret=CLIENT_SECRET, grant_type="refresh_token", refresh_token="xoxe-1-x"
            )
        )
        == "invalid_refresh_token"
    )


def test_an_uninstalled_workspaces_token_is_revoked(slack: FakeSlack, app_client: WebClient) -> None:
    code = slack.install_code("T0SECOND")
    token = app_client.oauth_v2_access(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, code=code)["access_token"]
    slack.uninstall("T0SECOND")
    assert error_of(lambda: WebClient(token=token, base_url=slack.api_url).auth_test()) == "token_revoked"
    assert error_of(lambda: WebClient(token="xoxb-unknown", base_url=slack.api_url).auth_test()) == "invalid_auth"


def test_each_call_records_its_token(slack: FakeSlack) -> None:
    WebClient(token="xoxb-test", base_url=slack.api_url).auth_test()
    assert slack.tokens("auth.test") == ["xoxb-test"]


def test_a_token_past_its_expiry_is_refused(slack: FakeSlack, app_client: WebClient) -> None:
    slack.workspaces.rotation, slack.workspaces.token_lifetime = True, 0
    code = slack.install_code("T0SECOND")
    token = app_client.oauth_v2_access(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, code=code)["access_token"]
    assert error_of(lambda: WebClient(token=token, base_url=slack.api_url).auth_test()) == "token_expired"
