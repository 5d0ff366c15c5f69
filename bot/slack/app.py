"""The Bolt app: every Slack surface wired to the services, built once per process.

Signature verification stays on (Bolt's default): an unsigned or stale request gets 401 and
reaches no listener. Events nobody listens to get 200, not Bolt's 404, so Slack does not
retry them or disable the subscription.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from slack_bolt import App, BoltResponse
from slack_bolt.error import BoltUnhandledRequestError
from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler
from slack_sdk.signature import SignatureVerifier

from bot.errors import ConfigError
from bot.llm.answerer import Answerer
from bot.services.qa import QAService
from bot.services.visibility import Visibility
from bot.slack.access import AccessPolicy
from bot.slack.channels import ChannelDirectory
from bot.slack.deps import SlackDeps
from bot.slack.digests import ChannelDigests
from bot.slack.guards import ResponseUrlGuard, response_origins
from bot.slack.listeners import actions, commands, home, questions
from bot.slack.members import ChannelMembers
from bot.slack.people import PeopleLanguages
from bot.slack.publisher import Publisher
from bot.slack.scheduler import Scheduler
from bot.store.facts import FactStore
from bot.store.ledger import PostLedger
from bot.store.threads import ThreadStore
from bot.wiring import Services

log = logging.getLogger(__name__)

# Listeners only acknowledge and hand slow work over, so a few threads are plenty; Bolt runs
# command acks on them, so they must never wait on GitHub or the model.
LISTENER_THREADS = 16
# Questions and /pr lookups wait seconds on GitHub and the model: this many run at once, the
# rest queue (their requests were acknowledged long before).
WORK_THREADS = 32
# 429s are waited out (Retry-After) in the posting thread, never on the ack path.
RATE_LIMIT_RETRIES = 5


@dataclass
class SlackParts:
    app: App
    client: WebClient
    deps: SlackDeps
    digests: ChannelDigests
    scheduler: Scheduler
    verifier: SignatureVerifier  # the app's own check, for the HTTP server's checks before Bolt's


def build_client(token: str, base_url: str) -> WebClient:
    return WebClient(
        token=token,
        base_url=base_url,
        timeout=30,
        retry_handlers=[ConnectionErrorRetryHandler(), RateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES)],
    )


def build_channel_digests(
    services: Services, client: WebClient, access: AccessPolicy | None = None, *, pace: float | None = None
) -> ChannelDigests:
    threads = ThreadStore(services.kv)
    ledger = PostLedger(services.kv)
    if access is None:
        directory = ChannelDirectory(services.settings)
        facts = FactStore(services.kv)
        access = AccessPolicy(directory, Visibility(services.source, facts), client, facts)
    publisher = Publisher(client, ledger, threads) if pace is None else Publisher(client, ledger, threads, pace=pace)
    return ChannelDigests(services.digests, publisher, ledger, access.refusal)


def build_slack(services: Services, *, socket_mode: bool = False, pace: float | None = None) -> SlackParts:
    settings = services.settings
    if not settings.slack_bot_token:
        raise ConfigError("SLACK_BOT_TOKEN is not set: the Slack app needs the bot token (xoxb-…)")
    if not socket_mode and not settings.slack_signing_secret:
        raise ConfigError("SLACK_SIGNING_SECRET is not set: HTTP mode needs it to verify Slack's requests")
    client = build_client(settings.slack_bot_token, settings.slack_api_url)
    signing_secret = settings.slack_signing_secret or "unused-in-socket-mode"
    app = App(
        client=client,
        signing_secret=signing_secret,
        request_verification_enabled=not socket_mode,
        raise_error_for_unhandled_request=True,
        listener_executor=ThreadPoolExecutor(max_workers=LISTENER_THREADS, thread_name_prefix="listener"),
    )
    # After Bolt's own middleware (the signature check): a signed request naming a response_url
    # that is not Slack's is acknowledged and goes no further.
    app.use(ResponseUrlGuard(response_origins(settings.slack_api_url)))
    threads = ThreadStore(services.kv)
    ledger = PostLedger(services.kv)
    answerer = None
    if services.summarizer is not None:
        answerer = Answerer(services.summarizer.client, settings.model, token_budget=settings.defaults.token_budget)
    directory = ChannelDirectory(settings)
    facts = FactStore(services.kv)
    access = AccessPolicy(directory, Visibility(services.source, facts), client, facts)
    deps = SlackDeps(
        directory=directory,
        access=access,
        members=ChannelMembers(facts),
        people=PeopleLanguages(facts, settings.defaults.language),
        cards=services.cards,
        qa=QAService(services.cards, threads, answerer),
        threads=threads,
        ledger=ledger,
        command=settings.config.slack.command,
        work=ThreadPoolExecutor(max_workers=WORK_THREADS, thread_name_prefix="work"),
    )
    for listeners in (questions, commands, actions, home):
        listeners.register(app, deps)

    @app.error
    def on_error(error: Exception) -> BoltResponse | None:
        if isinstance(error, BoltUnhandledRequestError):
            return BoltResponse(status=200, body="")
        log.error("a Slack listener failed: %s", type(error).__name__, exc_info=error)
        return None

    digests = build_channel_digests(services, client, access, pace=pace)
    return SlackParts(
        app, client, deps, digests, Scheduler(directory.plans, digests), SignatureVerifier(signing_secret)
    )
