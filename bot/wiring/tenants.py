"""Tenants: one Tenant per workspace (workspaces/tenant.py), each built once, on its first request.

The home workspace's (None, the single install's) and, in OAuth mode, any other's over its own
keys and its own Slack client. This is the one place a workspace's parts are put together, so
every workspace gets the same ones: its listeners, its scheduled digests and the CLI's
`--team` all read the same Tenant.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from bot.access.policy import AccessPolicy
from bot.cards.lookup import CardLookup
from bot.channels.directory import ChannelDirectory, ChannelPlan
from bot.channels.members import ChannelMembers
from bot.channels.people import PeopleLanguages
from bot.channels.subscriptions import Subscriptions, workspace_subscriptions
from bot.digests.lease import POST_LEASE_SECONDS
from bot.digests.now import ChannelDigest
from bot.digests.posting import DigestPosting, PostingScope, PostTiming
from bot.digests.publisher import PACE_SECONDS, PostPace, Publisher
from bot.digests.votes import Votes
from bot.errors import StoreError
from bot.ports.slack import SlackPort
from bot.questions.across.days import AcrossDays, Known
from bot.questions.dm import DMQuestions
from bot.questions.qa import QAService
from bot.questions.suggestions import PromptSuggestions
from bot.questions.thread import ThreadQuestions
from bot.releases.announcer import ReleaseWatch
from bot.releases.lookup import ReleaseLookup
from bot.releases.posting import ReleasePosting
from bot.releases.questions import ReleaseQuestions
from bot.render.slack.answers import DMWording, ThreadWording
from bot.render.slack.digest_messages import DigestBlocks
from bot.render.slack.release_blocks import ReleaseBlocks
from bot.render.slack.suggestions import prompt_words
from bot.render.slack.unfurls import unfurl_blocks
from bot.render.slack.watches import watch_dm_message
from bot.settings import DEFAULT_CONFIG_PATH
from bot.spending.budgets import Account
from bot.store.feedback import FeedbackStore
from bot.store.history import DigestHistory
from bot.store.ledger import PostLedger
from bot.store.repos.facts import FactStore
from bot.store.subscriptions import SubscriptionStore
from bot.store.threads import ThreadStore
from bot.store.watches import WatchStore
from bot.store.workspace import Scopes
from bot.unfurls.unfurling import Unfurling
from bot.watches.dms import WatchAccess, WatchDMs, WatchDMStores, WatchDMWording
from bot.watches.finder import WatchFinder
from bot.wiring.process import Process
from bot.wiring.releases import release_digests
from bot.workspaces.deliveries import Deliveries
from bot.workspaces.home import HomeTab
from bot.workspaces.tenant import Tenant


class Tenants:
    def __init__(
        self,
        process: Process,
        scopes: Scopes,
        slack_of: Callable[[str | None], SlackPort],
        installed: Callable[[], list[str]] = list,
    ) -> None:
        self._process = process
        self.scopes = scopes
        self._slack_of = slack_of
        self._installed = installed  # the teams that installed the app (OAuth mode; StoreError: Redis away)
        self._finder = WatchFinder(process.source, process.cards)
        self._releases = release_digests(process)
        self._lock = threading.Lock()
        self._built: dict[str | None, Tenant] = {}

    @property
    def home(self) -> Tenant:
        """The single or home workspace's."""
        return self.get(None)

    def get(self, team: str | None) -> Tenant:
        """The parts of the workspace a request, a plan or a command is in (None: the home one)."""
        scope = self.scopes.of(team)
        with self._lock:
            found = self._built.get(scope)
        if found is not None:
            return found
        made = self._build(scope)
        with self._lock:
            return self._built.setdefault(scope, made)

    def all(self) -> tuple[Tenant, ...]:
        """The single or home workspace's parts, and in OAuth mode each other installed
        workspace's (only the home one's while Redis cannot list them: the next tick reads them)."""
        try:
            others = [team for team in self._installed() if self.scopes.of(team) is not None]
        except StoreError:
            others = []
        return (self.home, *(self.get(team) for team in others))

    def all_plans(self) -> tuple[ChannelPlan, ...]:
        """Every channel that gets a digest, read again (the scheduler's tick): the single or home
        workspace's, and in OAuth mode those each other installed workspace follows from Slack."""
        return tuple(plan for tenant in self.all() for plan in tenant.directory.current_plans())

    def all_watch_dms(self) -> tuple[WatchDMs, ...]:
        """Every workspace's watches (the scheduler's tick)."""
        return tuple(tenant.watch_dms for tenant in self.all())

    def posting(self, team: str | None) -> DigestPosting:
        """Who posts a plan's digests: its workspace's DigestPosting, with that workspace's client."""
        return self.get(team).digests

    def published(self, repo: str, tag: str) -> int:
        """`repo` published `tag` (GitHub's webhook): posted where each workspace's channels asked."""
        return sum(tenant.release_watch.published(repo, tag) for tenant in self.all())

    def poll_releases(self) -> int:
        """New releases posted where each workspace's channels asked (the scheduler's poll)."""
        return sum(tenant.release_watch.poll() for tenant in self.all())

    def drop(self, team: str) -> None:
        """Forget a workspace's parts (it uninstalled the app): a later install builds them again."""
        with self._lock:
            self._built.pop(self.scopes.of(team), None)

    def _build(self, scope: str | None) -> Tenant:
        process = self._process
        settings, timing, kv = process.settings, process.timing, process.kv
        home = scope is None
        slack = self._slack_of(scope)
        ledger, threads = PostLedger(kv, scope), ThreadStore(kv, scope)
        facts = process.facts if home else FactStore(kv, scope)
        feedback = FeedbackStore(kv, scope)
        subscriptions = self._subscriptions(scope)
        directory = ChannelDirectory(settings.config, subscriptions.configs, team=scope)
        directory.refresh()
        # Another workspace gets only what it follows from Slack, and public repositories only.
        access = AccessPolicy(directory, process.visibility, slack, facts, home=home)
        pace = PACE_SECONDS if timing.pace is None else timing.pace
        lease = POST_LEASE_SECONDS if timing.post_lease_seconds is None else timing.post_lease_seconds
        publisher = Publisher(
            slack,
            ledger,
            threads,
            messages=DigestBlocks(),  # what the posting says, in Block Kit: the service never imports render
            pace=PostPace(pace, timing.pacing),
            watch_days=settings.defaults.watch_days,
        )
        digests = DigestPosting(
            process.digests,
            publisher,
            ledger,
            access.refusal,
            timing=PostTiming(timing.now, lease),
            scope=PostingScope(scope, feedback),
        )
        language = settings.defaults.language
        members, people = ChannelMembers(facts), PeopleLanguages(facts, language)
        qa = self._qa(directory, threads, scope)
        command = settings.config.slack.command
        watch_dms = WatchDMs(
            slack=slack,
            stores=WatchDMStores(WatchStore(kv, scope), ledger, facts),
            access=WatchAccess(access, directory, process.visibility.is_private),
            finder=self._finder,
            wording=WatchDMWording(watch_dm_message, language),
            timing=PostTiming(timing.now, lease),
        )
        release_posting = ReleasePosting(
            self._releases, publisher, (ledger, threads), ReleaseBlocks(), access.refusal, workspace=scope
        )
        return Tenant(
            scope=scope,
            slack=slack,
            directory=directory,
            subscriptions=subscriptions,
            access=access,
            members=members,
            people=people,
            qa=qa,
            publisher=publisher,
            digests=digests,
            watch_dms=watch_dms,
            # The app's Messages tab: its questions and its suggested prompts, built once here
            # rather than for every message.
            questions=ThreadQuestions(directory, access, qa, threads, command, ThreadWording),
            dm=DMQuestions(directory, members, access, people, qa, threads, command, DMWording, zone=watch_dms.zone),
            suggestions=PromptSuggestions(directory, members, access, people, threads, ledger, digests, prompt_words),
            votes=Votes(feedback, threads, process.cards, access),
            deliveries=Deliveries(threads),
            channel_digest=ChannelDigest(directory, subscriptions, access, digests),
            home=HomeTab(directory, members, access, subscriptions, people, digests, process.spending, scope),
            lookup=CardLookup(process.cards, directory, access, scope),
            cards=process.cards,
            defaults=settings.defaults,
            command=command,
            # Only links to where the followed repositories' PRs are seen in a browser (github.com,
            # or an Enterprise server's host: core/refs.github_web_base) are unfurled.
            unfurling=Unfurling(directory, access, process.cards, unfurl_blocks, process.web_base, scope),
            releases=ReleaseLookup(self._releases, release_posting, directory, access, scope),
            # New releases posted where its channels asked for them (`releases = "post"`).
            release_watch=ReleaseWatch(directory.current_plans, self._releases, release_posting, timing.now),
        )

    def _subscriptions(self, scope: str | None) -> Subscriptions:
        process = self._process
        settings = process.settings
        return workspace_subscriptions(
            settings.config,
            settings.config_path or DEFAULT_CONFIG_PATH,
            # team None: the single-workspace install; a team id scopes every key (store/workspace.py).
            SubscriptionStore(process.kv, team=scope),
            process.visibility.is_private,
            home=scope is None,
            now=process.timing.now,
        )

    def _qa(self, directory: ChannelDirectory, threads: ThreadStore, scope: str | None) -> QAService:
        """Questions and answers for one workspace's channels: every workspace links a PR known by
        number to the GitHub it reads (github.com or the Enterprise host)."""
        process = self._process
        return QAService(
            process.cards,
            threads,
            process.answerer,
            Account(process.spending, scope),
            across_days(process, directory, scope),
            web_base=process.web_base,
        )


def across_days(process: Process, directory: ChannelDirectory, scope: str | None = None) -> AcrossDays:
    """Questions across days for the channels of `directory` (one workspace's, `scope`)."""
    return AcrossDays(
        process.cards,
        now=process.timing.now,
        zone_of=directory.timezone,
        known=Known(
            directory.repos,
            DigestHistory(process.kv, scope),
            process.authors.named,
            ReleaseQuestions(release_digests(process), process.cards, process.web_base),
        ),
        web_base=process.web_base,
        reader=process.reader,
    )
