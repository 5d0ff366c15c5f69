"""POST /github/webhook: GitHub's `pull_request` event, a merge queued as card jobs at once; its
`release` event, a published full release posted where channels asked (`releases = "post"`).

Checked in GitHub's order: the signature (`X-Hub-Signature-256`, HMAC-SHA256 of the body with
GITHUB_WEBHOOK_SECRET) first, 401 when missing or wrong, before anything is read; then the
delivery id (`X-GitHub-Delivery`): a redelivery is answered 200 and queues nothing again. Only a
merge (`closed` with `merged: true`) of a repository some channel follows queues anything: one job
per language those channels read, marked `for_merge` so that the worker drops it when GitHub says
otherwise. A merge whose PR number GitHub could not have given is answered 422 and queues nothing.
`ping` (sent when the hook is made) is answered. A `release` with action `published` (not a
draft, not a pre-release) is answered 202 at once and posted on a thread of its own: GitHub waits
10 seconds for an answer, and a release of hundreds of PRs takes longer to post at Slack's pace.
A GitHub App's `installation` (created, deleted, suspended…) and `installation_repositories`
(added, removed) deliveries make the source look again which installation holds the account's
repositories (or those named), at their next request.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from bot.core.card_jobs import MAX_PR_NUMBER, CardJob, pr_number
from bot.core.strings.patterns import lazy
from bot.errors import StoreError
from bot.models import Language
from bot.ports import CardJobs
from bot.store.kv import DAY, KV

log = logging.getLogger(__name__)

WEBHOOK_PATH = "/github/webhook"
# GitHub keeps a delivery's id when it is redelivered (by hand, or by its own retry of a failure).
DELIVERY_TTL_MS = 3 * DAY * 1000
_DELIVERY = lazy(r"[0-9A-Za-z-]{1,64}")
_SHA = lazy(r"[0-9a-f]{40}")

StartResponse = Callable[..., Any]


class Installations(Protocol):
    """Which installation of the GitHub App holds each repository (store/repos/app_installations.py)."""

    def forget(self, repo: str) -> None: ...

    def forget_owner(self, owner: str) -> int: ...


class GitHubWebhook:
    def __init__(
        self,
        secret: str,
        kv: KV,
        jobs: CardJobs | None,
        payers: Callable[[str], Mapping[Language, str | None]],
        released: Callable[[str, str], int] | None = None,
        installations: Installations | None = None,
    ) -> None:
        self._secret = secret.encode()
        self._strict = kv.strict()
        self._jobs = jobs
        self._payers = payers
        # A new release posted in the channels that asked (releases/announcer.py).
        self._released = released
        # None without a GitHub App (GITHUB_APP_ID): its deliveries are answered and ignored.
        self._installations = installations

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        status, answer = self._handle(environ)
        body = json.dumps(answer).encode()
        start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]

    def _handle(self, environ: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        if environ.get("REQUEST_METHOD") != "POST":
            return "405 Method Not Allowed", {"error": "POST only"}
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body: bytes = environ["wsgi.input"].read(length) if length else b""
        if not self._signed(body, str(environ.get("HTTP_X_HUB_SIGNATURE_256") or "")):
            return "401 Unauthorized", {"error": "bad or missing X-Hub-Signature-256"}
        event = str(environ.get("HTTP_X_GITHUB_EVENT") or "")
        if event == "ping":
            return "200 OK", {"ok": True}
        delivery = str(environ.get("HTTP_X_GITHUB_DELIVERY") or "")
        if not _DELIVERY.fullmatch(delivery):
            return "400 Bad Request", {"error": "X-GitHub-Delivery is missing"}
        try:
            payload = json.loads(body)
        except (ValueError, RecursionError):
            return "400 Bad Request", {"error": "the body is not JSON"}
        if event == "release" and isinstance(payload, dict):
            return self._release(payload, delivery)
        if event in ("installation", "installation_repositories") and isinstance(payload, dict):
            return self._installation(event, payload, delivery)
        if event != "pull_request" or not isinstance(payload, dict):
            return "200 OK", {"ignored": event}
        merged = _merged(payload)
        if merged is None:
            return "200 OK", {"ignored": "not a merge"}
        repo, raw_number, sha = merged
        number = pr_number(raw_number)
        if number is None:
            # Signed, so sent by the secret's holder: said in one line (repr: a name with a newline
            # in it stays on it), cut, as the payload is theirs.
            log.warning("webhook delivery %s refused: %.80r#%.40r is not a PR number", delivery, repo, raw_number)
            return "422 Unprocessable Entity", {
                "error": f"pull_request.number is not a number from 1 to {MAX_PR_NUMBER}"
            }
        payers = self._payers(repo)  # the languages it is followed in, and whose budget pays
        if not payers:
            return "200 OK", {"ignored": "no channel follows this repository"}
        if self._jobs is None:
            return "503 Service Unavailable", {"error": "no card queue: REDIS_URL is not set"}
        try:
            if not self._strict.set_nx(f"delivery:{delivery}", b"1", DELIVERY_TTL_MS):
                return "200 OK", {"duplicate": delivery}
            queued = sum(
                self._jobs.submit(CardJob(repo, number, language, sha, workspace=payers[language], for_merge=True))
                for language in sorted(payers)
            )
        except StoreError:
            return "503 Service Unavailable", {"error": "redis unreachable"}
        log.info("%s#%d merged: %d card jobs queued (delivery %s)", repo, number, queued, delivery)
        return "202 Accepted", {"queued": queued}

    def _release(self, payload: dict[str, Any], delivery: str) -> tuple[str, dict[str, Any]]:
        published = _published(payload)
        if published is None:
            return "200 OK", {"ignored": "not a published full release"}
        if self._released is None:
            return "200 OK", {"ignored": "releases are not posted here"}
        repo, tag = published
        try:
            if not self._strict.set_nx(f"delivery:{delivery}", b"1", DELIVERY_TTL_MS):
                return "200 OK", {"duplicate": delivery}
        except StoreError:
            return "503 Service Unavailable", {"error": "redis unreachable"}
        released = self._released

        def post() -> None:
            try:
                released(repo, tag)
            except Exception:  # the poll of the next ticks posts what this could not
                log.exception("posting release %s %s failed", repo, tag)

        threading.Thread(target=post, name=f"release-{tag[:20]}", daemon=True).start()
        log.info("%s released %s (delivery %s): posting where asked", repo, tag, delivery)
        return "202 Accepted", {"release": tag}

    def _installation(self, event: str, payload: dict[str, Any], delivery: str) -> tuple[str, dict[str, Any]]:
        if self._installations is None:
            return "200 OK", {"ignored": "no GitHub App here (GITHUB_APP_ID is not set)"}
        account = _account(payload)
        if account is None:
            return "400 Bad Request", {"error": "installation.account.login is missing"}
        try:
            if event == "installation":  # the whole account's installation changed
                forgotten = self._installations.forget_owner(account)
            else:
                named = _full_names(payload, "repositories_added") + _full_names(payload, "repositories_removed")
                for repo in named:
                    self._installations.forget(repo)
                forgotten = len(named)
        except StoreError:
            return "503 Service Unavailable", {"error": "redis unreachable"}
        log.info(
            "GitHub App %s %.40r on %.80r: %d repositories looked up again at their next request (delivery %s)",
            event,
            payload.get("action"),
            account,
            forgotten,
            delivery,
        )
        return "200 OK", {"forgotten": forgotten}

    def _signed(self, body: bytes, header: str) -> bool:
        if not header.startswith("sha256="):
            return False
        expected = hmac.new(self._secret, body, hashlib.sha256).hexdigest().encode()
        # As bytes: compare_digest raises TypeError on a str that is not ASCII (a header of
        # Latin-1 bytes), which was a 500 and a traceback for anyone who sent one.
        return hmac.compare_digest(expected, header.removeprefix("sha256=").encode("utf-8", "replace"))


def _merged(payload: dict[str, Any]) -> tuple[str, object, str | None] | None:
    """(repository, number as sent, merge SHA) of a merge event; None for anything else."""
    pull = payload.get("pull_request")
    repository = payload.get("repository")
    if payload.get("action") != "closed" or not isinstance(pull, dict) or not isinstance(repository, dict):
        return None
    repo, number = repository.get("full_name"), pull.get("number")
    if pull.get("merged") is not True or not isinstance(repo, str) or "/" not in repo:
        return None
    sha = pull.get("merge_commit_sha")
    return repo, number, sha if isinstance(sha, str) and _SHA.fullmatch(sha) else None


# A tag is a git ref: GitHub allows up to 255 bytes; anything else is not one we post.
_TAG = lazy(r"[^\s~^:?*\[\\]{1,255}")


def _published(payload: dict[str, Any]) -> tuple[str, str] | None:
    """(repository, tag) of a published full release; None for anything else."""
    release = payload.get("release")
    repository = payload.get("repository")
    if payload.get("action") != "published" or not isinstance(release, dict) or not isinstance(repository, dict):
        return None
    repo, tag = repository.get("full_name"), release.get("tag_name")
    if release.get("draft") or release.get("prerelease") or not isinstance(repo, str) or "/" not in repo:
        return None
    return (repo, tag) if isinstance(tag, str) and _TAG.fullmatch(tag) and ".." not in tag else None


def _account(payload: dict[str, Any]) -> str | None:
    """The login of the account an installation event is about."""
    installation = payload.get("installation")
    account = installation.get("account") if isinstance(installation, dict) else None
    login = account.get("login") if isinstance(account, dict) else None
    return login if isinstance(login, str) and login and "/" not in login else None


def _full_names(payload: dict[str, Any], key: str) -> list[str]:
    """The `full_name` of each repository listed under `key`."""
    listed = payload.get(key)
    names = [item.get("full_name") for item in listed if isinstance(item, dict)] if isinstance(listed, list) else []
    return [name for name in names if isinstance(name, str) and name.count("/") == 1]
