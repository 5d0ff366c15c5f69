"""In-process doubles of our own ports (bot/ports/) for service unit tests: a Source
over fixed snapshots and an Answerer with fixed replies. Each answers as its port documents and
records what it was asked, so a test asserts on that. They stand in for our ports only; GitHub,
the model endpoint and Slack themselves are faked on loopback (devkit/fakes/), never here.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bot.core.usage import Tally
from bot.errors import NotFound, SummarizerError
from bot.models import Card, DigestItem, Language, PRListing, PRRef, PRSnapshot, Question, Turn, Window
from bot.ports import AnswerSink


class FakeSource:
    """A Source over fixed snapshots, counting what GitHub would be asked.

    As GitHub does, it folds case in repository names (PRRef's equality) and answers a PR it does
    not hold with NotFound. `failures` (by PR number) are raised by `fetch`, after it is counted.
    `window`, when given, is the only window `list_merged` may be asked for; `lookups=False` fails
    the test when a PR is asked for by number (`get_listing`). `people` are the accounts
    `user_name` knows, by login: a display name, None for none, or the error GitHub would cause;
    any other login is no such account (None). Fetches may come from a service's reader threads,
    so what it records is guarded.
    """

    def __init__(
        self,
        *snapshots: PRSnapshot,
        failures: dict[int, Exception] | None = None,
        window: Window | None = None,
        lookups: bool = True,
        people: Mapping[str, str | Exception | None] | None = None,
    ) -> None:
        self.snapshots = {snapshot.ref: snapshot for snapshot in snapshots}
        self.failures = failures or {}
        self.window = window
        self.lookups = lookups
        self.fetched: list[PRRef] = []
        self.expected: list[PRRef] = []  # the PRs a digest said it would fetch (`expect`)
        self.looked_up: list[PRRef] = []
        self.people = dict(people or {})
        self.named: list[str] = []  # the logins whose display name was asked for, in order
        self._lock = threading.Lock()

    @property
    def fetched_numbers(self) -> list[int]:
        """The numbers of the PRs fetched, for a test whose PRs are all in one repository."""
        with self._lock:
            return [ref.number for ref in self.fetched]

    def list_merged(self, repo: str, window: Window) -> list[PRListing]:
        assert self.window is None or window == self.window, f"asked for {window}, not {self.window}"
        return [
            snapshot.listing for snapshot in self.snapshots.values() if snapshot.listing.repo.lower() == repo.lower()
        ]

    def get_listing(self, ref: PRRef) -> PRListing:
        assert self.lookups, "this caller never asks for a PR by number"
        with self._lock:
            self.looked_up.append(ref)
        return self._snapshot(ref).listing

    def expect(self, window: Window, listings: Iterable[PRListing]) -> None:
        with self._lock:
            self.expected.extend(listing.ref for listing in listings)

    def fetch(self, listing: PRListing) -> PRSnapshot:
        with self._lock:
            self.fetched.append(listing.ref)
        failure = self.failures.get(listing.number)
        if failure is not None:
            raise failure
        return self._snapshot(listing.ref)

    def is_private(self, repo: str) -> bool:
        return False

    def user_name(self, login: str) -> str | None:
        with self._lock:
            self.named.append(login)
        # GitHub ignores case in logins.
        name = next((value for known, value in self.people.items() if known.lower() == login.lower()), None)
        if isinstance(name, Exception):
            raise name
        return name

    def _snapshot(self, ref: PRRef) -> PRSnapshot:
        snapshot = self.snapshots.get(ref)
        if snapshot is None:
            raise NotFound("error.github_not_found", what=f"pull request {ref.number}")
        return snapshot


Reply = str | SummarizerError | None  # None: that kind of question is not expected here


@dataclass
class FixedAnswerer:
    """An Answerer with one reply, or one error to raise, for every PR question (`pr`) and one
    for every digest-wide question (`digest`); a question of a kind given None fails the test.

    `questions` records each PR question as (question, history, language); `asked` records each
    digest question as (items, paths, history): what the service chose to send the model.
    """

    pr: Reply = None
    digest: Reply = None
    questions: list[tuple[str, list[Turn], Language]] = field(default_factory=list)
    asked: list[tuple[tuple[DigestItem, ...], dict[str, tuple[str, ...]], list[Turn]]] = field(default_factory=list)

    def answer_pr(
        self,
        snapshot: PRSnapshot,
        card: Card,
        question: Question,
        tally: Tally | None = None,
        sink: AnswerSink | None = None,  # not streamed: the reply is given whole
    ) -> str:
        self.questions.append((question.text, list(question.history), question.language))
        return _given(self.pr, "a PR")

    def answer_digest(
        self,
        items: tuple[DigestItem, ...],
        paths: dict[str, tuple[str, ...]],
        question: Question,
        tally: Tally | None = None,
        sink: AnswerSink | None = None,
    ) -> str:
        self.asked.append((items, paths, list(question.history)))
        return _given(self.digest, "a digest")


def _given(reply: Reply, about: str) -> str:
    if reply is None:
        raise AssertionError(f"FixedAnswerer: no question about {about} is expected here")
    if isinstance(reply, SummarizerError):
        raise reply
    return reply
