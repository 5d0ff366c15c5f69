"""A GitHub App through the real PyGithub client against the fake GitHub on loopback: each
repository read with the token of the installation that holds it, a token asked for once while
it lasts, each installation within its own rate limit, and a key, an App id or a clock GitHub
refuses told in one line."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from devkit.fakes.github import FakeGitHub
from devkit.fakes.github_app import FakeApp
from devkit.fakes.llm import FakeOpenAI

from bot.cli.main import main
from bot.errors import AppNotInstalled, RateLimited
from bot.models import Window
from bot.settings import GitHubApp, Settings, load_settings
from bot.store.backends.memory import MemoryKV
from tests.integration.conftest import REPO, ServicesFactory, day, told
from tests.integration.slack_harness import SlackHarness, serve_harness
from tests.integration.test_github_webhook import SECRET, deliver

APP_ID = 4242
ACME, GLOBEX, INITECH = "acme/widgets", "globex/tools", "initech/reports"
WINDOW = Window(day(0), day(24))


@pytest.fixture(scope="session")
def app_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="session")
def stranger_key() -> rsa.RSAPrivateKey:
    """A key of no App GitHub knows."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pem(key: rsa.RSAPrivateKey) -> str:
    """The key as GitHub's download holds it (PKCS#1)."""
    encoded = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
    )
    return encoded.decode()


@pytest.fixture
def app(github: FakeGitHub, app_key: rsa.RSAPrivateKey) -> FakeApp:
    """The App registered with the fake, installed nowhere yet; three private repositories of
    three organisations, each with three PRs merged in WINDOW."""
    for repo in (ACME, GLOBEX, INITECH):
        github.add_repo(repo, private=True)
        for number in (1, 2, 3):
            github.add_pr(repo, number, title=f"{repo} change {number}", merged_at=day(number))
    github.add_user("alice", "Alice Liddell")
    return github.register_app(APP_ID, app_key.public_key())


def app_settings(github: FakeGitHub, key: rsa.RSAPrivateKey, **extra: str) -> Settings:
    env = {"GITHUB_API_URL": github.url, "GITHUB_APP_ID": str(APP_ID), "GITHUB_APP_PRIVATE_KEY": pem(key)}
    return load_settings(env | extra)


def authorizations(github: FakeGitHub, pattern: str) -> set[str]:
    """The Authorization headers of the requests whose path matches `pattern`."""
    return {request.headers.get("authorization", "") for request in github.requests if re.search(pattern, request.path)}


def read_all(process: Any, repo: str) -> int:
    """List `repo`'s merges in WINDOW and fetch each; how many."""
    listings = process.source.list_merged(repo, WINDOW)
    for listing in listings:
        process.source.fetch(listing)
    return len(listings)


def test_each_repository_is_read_with_the_token_of_its_installation(
    github: FakeGitHub, app: FakeApp, app_key: rsa.RSAPrivateKey, make_services: ServicesFactory
) -> None:
    acme = app.install("acme")
    globex = app.install("globex", [GLOBEX])
    process = make_services(app_settings(github, app_key), now=day(30))

    assert read_all(process, ACME) == 3
    assert read_all(process, GLOBEX) == 3

    # The installation is found with the App's JWT, the token asked for with it too.
    for path in (rf"^/repos/{ACME}/installation$", rf"^/app/installations/{acme.id}/access_tokens$"):
        (signed,) = authorizations(github, path)
        assert signed.startswith("Bearer ey")  # a JWT: base64 of '{"'
    assert github.count(r"/access_tokens$") == 2
    # Every request about a repository carries its own installation's token, never the other's.
    (acme_token,) = authorizations(github, rf"^/repos/{ACME}/pulls")
    (globex_token,) = authorizations(github, rf"^/repos/{GLOBEX}/pulls")
    assert acme_token.startswith("token ghs_") and globex_token.startswith("token ghs_")
    assert acme_token != globex_token
    assert {acme.id, globex.id} == {int(r.path.split("/")[3]) for r in github.requests if "access_tokens" in r.path}


def test_a_token_is_asked_for_once_while_it_lasts_by_every_thread(
    github: FakeGitHub, app: FakeApp, app_key: rsa.RSAPrivateKey, make_services: ServicesFactory
) -> None:
    app.install("acme")
    for number in range(4, 21):
        github.add_pr(ACME, number, title=f"change {number}", merged_at=day(number))
    process = make_services(app_settings(github, app_key), now=day(30))
    listings = process.source.list_merged(ACME, WINDOW)
    with ThreadPoolExecutor(8) as pool:
        snapshots = list(pool.map(process.source.fetch, listings))
    assert len(snapshots) == 20
    assert github.count(r"/installation$") == 1
    assert github.count(r"/access_tokens$") == 1


@pytest.mark.parametrize(("lasts", "tokens"), [(3600, 1), (4 * 60, 3)], ids=["an-hour", "under-the-margin"])
def test_a_token_about_to_end_is_replaced_before_it_is_used(
    github: FakeGitHub,
    app: FakeApp,
    app_key: rsa.RSAPrivateKey,
    make_services: ServicesFactory,
    lasts: int,
    tokens: int,
) -> None:
    """A token is kept until five minutes before it ends: one that GitHub gives for four minutes
    is replaced at each request (three here), one for an hour serves them all."""
    app.install("acme")
    app.token_seconds = lasts
    process = make_services(app_settings(github, app_key), now=day(30))
    for _ in range(3):
        process.source.list_merged(ACME, WINDOW)
    assert github.count(r"/access_tokens$") == tokens


def test_a_token_github_no_longer_takes_is_replaced_once(
    github: FakeGitHub, app: FakeApp, app_key: rsa.RSAPrivateKey, make_services: ServicesFactory
) -> None:
    app.install("acme")
    process = make_services(app_settings(github, app_key), now=day(30))
    process.source.list_merged(ACME, WINDOW)
    app.revoke_tokens()  # revoked, or GitHub's clock past ours
    assert len(process.source.list_merged(ACME, WINDOW)) == 3
    assert github.count(r"/access_tokens$") == 2
    assert github.count(rf"^/repos/{ACME}/pulls$") == 3  # the second list refused once, then asked again
    assert len(authorizations(github, rf"^/repos/{ACME}/pulls$")) == 2


def test_each_installation_spends_its_own_rate_limit(
    github: FakeGitHub, app: FakeApp, app_key: rsa.RSAPrivateKey, make_services: ServicesFactory
) -> None:
    acme = app.install("acme")
    app.install("globex")
    process = make_services(app_settings(github, app_key), now=day(30))
    read_all(process, GLOBEX)
    acme.budget.remaining = 1  # acme's hour is all but spent; globex's is not
    process.source.list_merged(ACME, WINDOW)
    assert process.source.rate_limit_remaining() == 0  # the gauge shows the installation nearest its end
    with pytest.raises(RateLimited):
        process.source.list_merged(ACME, WINDOW)
    assert len(process.source.list_merged(GLOBEX, WINDOW)) == 3


def test_a_repository_without_the_app_is_refused_by_name_and_asked_about_once(
    github: FakeGitHub, app: FakeApp, app_key: rsa.RSAPrivateKey, make_services: ServicesFactory
) -> None:
    app.install("acme")
    process = make_services(app_settings(github, app_key), now=day(30))
    for _ in range(2):
        with pytest.raises(AppNotInstalled) as refused:
            process.source.list_merged(INITECH, WINDOW)
    assert str(refused.value) == (
        f"{INITECH}: the GitHub App is not installed on this repository; install it there, "
        "or set GITHUB_TOKEN for the repositories it is not on"
    )
    assert github.count(rf"^/repos/{INITECH}/installation$") == 1  # GitHub's answer is kept
    assert github.count(rf"^/repos/{INITECH}/pulls") == 0


def test_github_token_reads_the_repositories_the_app_is_not_installed_on(
    github: FakeGitHub, app: FakeApp, app_key: rsa.RSAPrivateKey, make_services: ServicesFactory
) -> None:
    app.install("acme")
    process = make_services(app_settings(github, app_key, GITHUB_TOKEN="personal-token"), now=day(30))
    github.add_pr(REPO, 9, title="public", merged_at=day(2))
    assert read_all(process, ACME) == 3
    assert read_all(process, REPO) == 1
    assert authorizations(github, rf"^/repos/{REPO}/pulls") == {"token personal-token"}
    (acme_token,) = authorizations(github, rf"^/repos/{ACME}/pulls")
    assert acme_token.startswith("token ghs_")


def test_every_replica_finds_the_installation_kept_in_the_store(
    github: FakeGitHub, app: FakeApp, app_key: rsa.RSAPrivateKey, make_services: ServicesFactory
) -> None:
    app.install("acme")
    kv = MemoryKV()
    settings = app_settings(github, app_key)
    for _ in range(2):
        make_services(settings, kv=kv, now=day(30)).source.list_merged(ACME, WINDOW)
    assert github.count(r"/installation$") == 1  # the second replica asked GitHub nothing about it
    assert github.count(r"/access_tokens$") == 2  # a token is each process's own


def test_names_and_releases_go_through_an_installation(
    github: FakeGitHub, app: FakeApp, app_key: rsa.RSAPrivateKey, make_services: ServicesFactory
) -> None:
    app.install("acme")
    github.add_release(ACME, "v1.0", day(5))
    process = make_services(app_settings(github, app_key), now=day(30))
    # No repository asked yet: the App's first installation reads the profile.
    assert process.source.user_name("alice") == "Alice Liddell"
    assert [release.tag for release in process.source.releases().releases(ACME)] == ["v1.0"]
    assert authorizations(github, r"^/app/installations$").pop().startswith("Bearer ")
    (token,) = authorizations(github, r"^/users/alice$") | authorizations(github, rf"^/repos/{ACME}/releases$")
    assert token.startswith("token ghs_")


# -- refusals, in one line -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("wrong-key", "GitHub refused the GitHub App's token: the private key is not App 4242's (GITHUB_APP_ID); "),
        ("clock-ahead", "GitHub refused the GitHub App's token as expired or not yet valid: this host's clock is off"),
        ("clock-behind", "GitHub refused the GitHub App's token as expired or not yet valid: this host's clock is off"),
        ("unknown-app", "GitHub knows no App 999: check GITHUB_APP_ID"),
        ("not-installed", f"{INITECH}: the GitHub App is not installed on this repository"),
    ],
)
def test_what_github_refuses_is_one_line_and_a_failure(
    github: FakeGitHub,
    app: FakeApp,
    app_key: rsa.RSAPrivateKey,
    stranger_key: rsa.RSAPrivateKey,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    case: str,
    expected: str,
) -> None:
    app.install("acme")
    key, app_id, repo = app_key, APP_ID, ACME
    if case == "wrong-key":
        key = stranger_key
    elif case == "clock-ahead":
        app.clock_offset = 3600.0  # GitHub's clock an hour past ours: the JWT has expired
    elif case == "clock-behind":
        app.clock_offset = -3600.0  # an hour behind: the JWT was issued in its future
    elif case == "unknown-app":
        app_id = 999
    else:
        repo = INITECH
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    monkeypatch.setenv("GITHUB_APP_ID", str(app_id))
    monkeypatch.setenv("GITHUB_APP_PRIVATE_KEY", pem(key))
    assert main(["digest", repo]) == 1
    err = capsys.readouterr().err
    (line,) = told(err)
    assert line.startswith(f"prdigest: {expected}")
    assert "Traceback" not in err and "PRIVATE KEY" not in err
    assert github.count(rf"^/repos/{repo}/pulls") == 0


def test_a_key_file_that_holds_no_rsa_key_is_one_line_naming_its_variable(
    github: FakeGitHub,
    app: FakeApp,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A PKCS#8 key passes the armour's check at start; that it is no RSA key is found before
    anything is signed with it."""
    not_rsa = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    key_file = tmp_path / "app.pem"
    key_file.write_bytes(not_rsa)
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    monkeypatch.setenv("GITHUB_APP_ID", str(APP_ID))
    monkeypatch.setenv("GITHUB_APP_PRIVATE_KEY_FILE", str(key_file))
    assert main(["digest", ACME]) == 1
    (line,) = told(capsys.readouterr().err)
    assert line.startswith("prdigest: GITHUB_APP_PRIVATE_KEY_FILE is not an RSA private key GitHub could take")
    assert github.requests == []


@pytest.mark.parametrize("key_is_right", [True, False], ids=["accepted", "refused"])
def test_doctor_says_whether_github_takes_the_key_and_where_the_app_is(
    github: FakeGitHub,
    app: FakeApp,
    app_key: rsa.RSAPrivateKey,
    stranger_key: rsa.RSAPrivateKey,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    key_is_right: bool,
) -> None:
    app.install("globex")
    app.install("acme")
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    monkeypatch.setenv("GITHUB_APP_ID", str(APP_ID))
    monkeypatch.setenv("GITHUB_APP_PRIVATE_KEY", pem(app_key if key_is_right else stranger_key))
    main(["doctor"])
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "github" in line.split()[:2]]
    if key_is_right:
        assert line.endswith(
            "GitHub App 4242 (prdigest, key from GITHUB_APP_PRIVATE_KEY): installed on 2 account(s): acme, globex"
        )
        assert line.split()[0] == "ok"
    else:
        assert line.split()[0] == "FAIL" and "the private key is not App 4242's" in line


# -- the App's webhook deliveries --------------------------------------------------------------


@pytest.fixture
def served(
    github: FakeGitHub,
    app: FakeApp,
    app_key: rsa.RSAPrivateKey,
    model: FakeOpenAI,
    redis_url: str,
    tmp_path: Path,
) -> Iterator[SlackHarness]:
    key = GitHubApp(APP_ID, pem(app_key), "GITHUB_APP_PRIVATE_KEY")
    with serve_harness(
        github, model, redis_url, tmp_path, now=lambda: day(30), webhook_secret=SECRET, github_app=key
    ) as harness:
        yield harness


def installation_event(action: str, account: str, **lists: list[str]) -> dict[str, Any]:
    # The fields of GitHub's `installation` and `installation_repositories` events we read.
    event: dict[str, Any] = {
        "action": action,
        "installation": {"id": 1, "account": {"login": account, "type": "Organization"}, "app_id": APP_ID},
        "sender": {"login": "an-admin"},
    }
    for key, repos in lists.items():
        event[key] = [{"full_name": repo, "name": repo.partition("/")[2], "private": True} for repo in repos]
    return event


def test_an_installation_delivery_makes_the_next_request_look_again(served: SlackHarness, app: FakeApp) -> None:
    """Read with GITHUB_TOKEN while the App is not installed there; once it is, and GitHub says so,
    with the installation's token at the next request."""
    source, github = served.services.source, served.github
    source.list_merged(ACME, WINDOW)
    assert authorizations(github, rf"^/repos/{ACME}/pulls") == {"token test"}
    app.install("acme")
    source.list_merged(ACME, WINDOW)
    assert github.count(rf"^/repos/{ACME}/installation$") == 1  # "not installed" is kept a while

    answer = deliver(served, installation_event("created", "acme", repositories=[ACME]), event="installation")
    assert answer.status_code == 200 and answer.json() == {"forgotten": 1}
    github.reset_requests()
    source.list_merged(ACME, WINDOW)
    assert github.count(rf"^/repos/{ACME}/installation$") == 1
    (token,) = authorizations(github, rf"^/repos/{ACME}/pulls")
    assert token.startswith("token ghs_")


def test_repositories_removed_from_an_installation_are_looked_up_again(served: SlackHarness, app: FakeApp) -> None:
    installation = app.install("acme", [ACME])
    source, github = served.services.source, served.github
    source.list_merged(ACME, WINDOW)
    installation.repos = frozenset()  # removed in GitHub's settings
    event = installation_event("removed", "acme", repositories_removed=[ACME], repositories_added=[])
    answer = deliver(served, event, event="installation_repositories")
    assert answer.status_code == 200 and answer.json() == {"forgotten": 1}
    github.reset_requests()
    source.list_merged(ACME, WINDOW)
    assert github.count(rf"^/repos/{ACME}/installation$") == 1
    assert authorizations(github, rf"^/repos/{ACME}/pulls") == {"token test"}  # GITHUB_TOKEN's, as it is not there


def test_an_unsigned_or_accountless_installation_delivery_is_refused(served: SlackHarness) -> None:
    answer = deliver(served, installation_event("deleted", "acme"), event="installation", secret="not-the-secret")
    assert answer.status_code == 401
    nameless = {"action": "deleted", "installation": {"id": 1}}
    answer = deliver(served, nameless, event="installation")
    assert answer.status_code == 400 and answer.json() == {"error": "installation.account.login is missing"}
