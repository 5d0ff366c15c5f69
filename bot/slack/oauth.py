"""Bolt's OAuth flow for OAuth mode: "Add to Slack" at /slack/install, Slack's redirect at
/slack/oauth_redirect, and a token per workspace for every request.

Everything Bolt would otherwise read from the environment or keep in files is handed in: the
settings' client id, secret and scopes; installations and OAuth states in Redis
(slack/installations.py); and the app's own client, so that code exchanges and token rotation
go to SLACK_API_URL, like every other call.
"""

from __future__ import annotations

import logging

from slack_bolt.authorization.authorize import InstallationStoreAuthorize
from slack_bolt.oauth.oauth_settings import OAuthSettings
from slack_sdk.oauth import InstallationStore, OAuthStateStore

from bot.core.installs import STATE_SECONDS
from bot.settings import SlackOAuth
from bot.slack.clients import SlackClient
from bot.slack.tokens import ROTATE_MINUTES_BEFORE

log = logging.getLogger(__name__)


def oauth_parts(
    oauth: SlackOAuth, installations: InstallationStore, states: OAuthStateStore, client: SlackClient
) -> tuple[OAuthSettings, InstallationStoreAuthorize]:
    """Bolt's OAuth settings and its authorize, over our stores and the app's client."""
    settings = OAuthSettings(
        client_id=oauth.client_id,
        client_secret=oauth.client_secret,
        scopes=list(oauth.scopes),
        user_scopes=[],  # a bot: no person grants the app their own token
        redirect_uri=oauth.redirect_uri,
        installation_store=installations,
        state_store=states,
        state_expiration_seconds=STATE_SECONDS,
        token_rotation_expiration_minutes=ROTATE_MINUTES_BEFORE,
        logger=log,
    )
    # Bolt's own authorize rotates tokens through a client of its own making (slack.com); this
    # one rotates through the app's client.
    authorize = InstallationStoreAuthorize(
        logger=log,
        installation_store=installations,
        client_id=oauth.client_id,
        client_secret=oauth.client_secret,
        token_rotation_expiration_minutes=ROTATE_MINUTES_BEFORE,
        client=client,
    )
    return settings, authorize
