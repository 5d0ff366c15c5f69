"""Bolt's OAuth flow for OAuth mode: "Add to Slack" at /slack/install, Slack's redirect at
/slack/oauth_redirect, and a token per workspace for every request.

Everything Bolt would otherwise read from the environment or keep in files is handed in: the
settings' client id, secret and scopes; installations and OAuth states in Redis
(slack/installations.py); and the app's own client, so that code exchanges and token rotation
go to SLACK_API_URL, like every other call.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from slack_bolt.authorization.authorize import InstallationStoreAuthorize
from slack_bolt.oauth.oauth_settings import OAuthSettings

from bot.slack.installations import ROTATE_MINUTES_BEFORE, STATE_SECONDS

if TYPE_CHECKING:
    from bot.builder import Builder

log = logging.getLogger(__name__)


def oauth_parts(built: Builder) -> tuple[OAuthSettings, InstallationStoreAuthorize]:
    """Bolt's OAuth settings and its authorize, over the builder's stores and client."""
    oauth = built.settings.slack_oauth
    assert oauth is not None  # only called in OAuth mode
    settings = OAuthSettings(
        client_id=oauth.client_id,
        client_secret=oauth.client_secret,
        scopes=list(oauth.scopes),
        user_scopes=[],  # a bot: no person grants the app their own token
        redirect_uri=oauth.redirect_uri,
        installation_store=built.installations,
        state_store=built.oauth_states,
        state_expiration_seconds=STATE_SECONDS,
        token_rotation_expiration_minutes=ROTATE_MINUTES_BEFORE,
        logger=log,
    )
    # Bolt's own authorize rotates tokens through a client of its own making (slack.com); this
    # one rotates through the app's client.
    authorize = InstallationStoreAuthorize(
        logger=log,
        installation_store=built.installations,
        client_id=oauth.client_id,
        client_secret=oauth.client_secret,
        token_rotation_expiration_minutes=ROTATE_MINUTES_BEFORE,
        client=built.slack_client,
    )
    return settings, authorize
