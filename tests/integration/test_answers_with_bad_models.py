"""Every path a question about several PRs is answered on, with models that answer badly
(devkit/fakes/bad_models.py: fluent prose citing nothing; prose citing PRs it was not shown and
figures none of them has), through the real app on loopback: a daily digest's thread, an
@mention, the app's DM, a release's thread, a weekly roll-up's thread, and `prdigest ask
OWNER/REPO`. Each reply lists the PRs the rules find, exactly as without a model; the model's
prose stands above the list, and nothing it invented (a PR, a link, a figure) reaches Slack, not
even while it streams."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from devkit.fakes.bad_models import FLUENT, FOREIGN, RESPONDERS
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack_agent import im_message

from bot.cli.main import main
from bot.models import Window
from bot.releases.posting import ReleaseAsked
from scripts.question_trial import message_text, named_prs
from tests.integration.conftest import REPO
from tests.integration.slack_harness import DIGEST_CHANNEL, HUMAN, SlackHarness, serve_harness, wait_for

NOW = datetime(2026, 8, 7, 12, 0, tzinfo=UTC)  # a Friday, after the roll-up's time
DM = "D0ASKER001"
CONFIG = f"""
[defaults]
timezone = "UTC"
post_at = "09:00"

[[channels]]
id = "{DIGEST_CHANNEL}"
repos = ["{REPO}"]
cadence = "both"
weekly_on = "friday"
"""
ATTENTION = {101, 102}  # Aug 6, in its digest
MOONCAKE_DAY = {103}  # Aug 6
MOONCAKE_WEEK = {103, 104}  # 104: Aug 4
PRS = {
    101: ("[Attention] Fuse the MLA decode kernels", datetime(2026, 8, 6, 8, tzinfo=UTC)),
    102: ("[Kernel] Sliding-window attention for long prompts", datetime(2026, 8, 6, 9, tzinfo=UTC)),
    103: ("[KV Connector] Mooncake store: batch the puts", datetime(2026, 8, 6, 10, tzinfo=UTC)),
    104: ("[Mooncake] Retry a transfer on timeout", datetime(2026, 8, 4, 10, tzinfo=UTC)),
    **{
        n: (f"[Core] Tidy the scheduler, part {n}", datetime(2026, 8, 4 + n % 3, 11, tzinfo=UTC))
        for n in range(105, 111)
    },
}
# What the `wrong` model states that none of the PRs does.
UNFOUNDED = ("37%", "3.5x", "12 GiB")
# What each model's prose leaves above the list once checked.
SUMMARY = {"none": None, "fluent": FLUENT.split(". ")[0], "wrong": "The rest are routine maintenance."}


def add_prs(github: FakeGitHub) -> None:
    for number, (title, merged_at) in PRS.items():
        github.add_pr(
            REPO,
            number,
            title=title,
            body="A change to the serving path.",
            merged_at=merged_at,
            files=[{"path": f"vllm/part_{number}.py", "additions": 20 + number % 7, "deletions": 2}],
        )
    github.add_release(REPO, "v1", datetime(2026, 8, 1, tzinfo=UTC))
    github.add_release(REPO, "v2", datetime(2026, 8, 7, 9, tzinfo=UTC))


@pytest.fixture(params=["none", "fluent", "wrong"])
def world(
    request: pytest.FixtureRequest, github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> Iterator[tuple[str, SlackHarness]]:
    kind = str(request.param)
    if kind != "none":
        model.responder = RESPONDERS[kind]
    add_prs(github)
    with serve_harness(
        github, model, redis_url, tmp_path, config_text=CONFIG, now=lambda: NOW, with_model=kind != "none"
    ) as harness:
        harness.slack.members[DIGEST_CHANNEL] = [HUMAN]
        harness.slack.zones[HUMAN] = "UTC"
        yield kind, harness


def threads(harness: SlackHarness) -> dict[str, str]:
    """The daily digest of Aug 6, the week's roll-up and release v2, each posted by the app's own
    posting; each one's thread ts."""
    home = harness.home
    plan = home.directory.plan(DIGEST_CHANNEL)
    assert plan is not None
    day = datetime(2026, 8, 6, tzinfo=UTC)
    daily = home.digests.run_plan(plan, Window(day, day + timedelta(days=1)), "2026-08-06")
    weekly = home.digests.run_weekly(plan)
    assert home.releases.posting is not None
    release = home.releases.post(ReleaseAsked(DIGEST_CHANNEL, REPO, "v2"))
    harness.settle()
    posted = {"daily": daily, "weekly": weekly, "release": release}
    for name, result in posted.items():
        assert result is not None and result.thread_ts, name
    return {name: str(result.thread_ts) for name, result in posted.items() if result is not None}


def sent_since(harness: SlackHarness, counts: dict[str, int]) -> str:
    """Every word the app sent Slack since `counts` were taken: posts, edits, streamed pieces."""
    calls = [call for method, n in counts.items() for call in harness.slack.calls(method)[n:]]
    return json.dumps(calls, ensure_ascii=False)


METHODS = ("chat.postMessage", "chat.update", "chat.startStream", "chat.appendStream", "chat.stopStream")


def asked(harness: SlackHarness, surface: str, question: str, thread_ts: str | None = None) -> tuple[str, str]:
    """The bot's settled reply to `question` on `surface`, and everything it sent Slack for it."""
    channel = DM if surface == "dm" else DIGEST_CHANNEL
    seen = {message["ts"] for message in harness.slack.all_messages()}
    counts = {method: len(harness.slack.calls(method)) for method in METHODS}
    if surface == "thread":
        assert thread_ts is not None
        harness.thread_reply(DIGEST_CHANNEL, thread_ts, question)
    elif surface == "mention":
        harness.mention(DIGEST_CHANNEL, question)
    else:
        ts = harness.slack.add_message(DM, question, user=HUMAN)
        harness.event(im_message(HUMAN, DM, question, ts))

    def replies() -> list[dict[str, Any]]:
        new = [m for m in harness.slack.all_messages() if m["channel"] == channel and m.get("bot_id")]
        new = [m for m in new if m["ts"] not in seen and "Looking into it" not in (m.get("text") or "")]
        return new if new and harness.parts.idle() and all(harness.settled(m) for m in new) else []

    (reply,) = wait_for(replies, timeout=20)
    return message_text(reply), sent_since(harness, counts)


def assert_listed(kind: str, path: str, reply: str, sent: str, expected: set[int]) -> None:
    assert set(named_prs(reply)) == expected, (path, reply)
    for figure in UNFOUNDED:
        assert figure not in sent, (path, figure)
    for number in FOREIGN:
        assert str(number) not in sent, (path, number)
    assert "Something went wrong" not in reply
    summary = SUMMARY[kind]
    if summary is not None:  # the prose stands above the list
        assert summary in reply and (not expected or reply.index(summary) < reply.index("#")), (path, reply)


def test_every_answer_path_lists_the_prs_the_rules_find_whatever_the_model_writes(
    world: tuple[str, SlackHarness],
) -> None:
    kind, harness = world
    posted = threads(harness)
    paths = {
        "daily thread, its own PRs": ("thread", "which of these touch attention?", posted["daily"], ATTENTION),
        "daily thread, the digest at large": ("thread", "anything about mooncake?", posted["daily"], MOONCAKE_DAY),
        # No PR's words: the digest as a whole, which the model may sum up; nothing is listed.
        "daily thread, about the digest": ("thread", "give me an overview of today", posted["daily"], set()),
        "@mention across days": ("mention", "what merged this week about attention?", None, ATTENTION),
        "DM across days": ("dm", f"which PRs merged in {REPO} this week touch mooncake?", None, MOONCAKE_WEEK),
        "release thread": ("thread", "anything about attention in here?", posted["release"], ATTENTION),
        "weekly thread": ("thread", "anything about mooncake?", posted["weekly"], MOONCAKE_WEEK),
    }
    for path, (surface, question, thread_ts, expected) in paths.items():
        reply, sent = asked(harness, surface, question, thread_ts)
        assert_listed(kind, path, reply, sent, expected)
    if kind != "none":
        # The prose was streamed (chat.startStream …) and settled into the reply with its list.
        assert harness.slack.calls("chat.startStream") and harness.slack.calls("chat.stopStream")


@pytest.mark.parametrize("kind", ["none", "fluent", "wrong"])
def test_the_terminal_lists_the_prs_the_rules_find_whatever_the_model_writes(
    kind: str,
    github: FakeGitHub,
    model: FakeOpenAI,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The CLI reads the real clock: PRs merged an hour ago are "in the last 2 days" at any hour.
    recent = datetime.now(UTC) - timedelta(hours=1)
    for number, (title, _) in PRS.items():
        github.add_pr(
            REPO, number, title=title, merged_at=recent, files=[{"path": f"vllm/part_{number}.py", "additions": 9}]
        )
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    monkeypatch.setenv("PRDIGEST_CACHE", str(tmp_path / "cache.sqlite"))
    if kind != "none":
        model.responder = RESPONDERS[kind]
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{model.url}/v1")
    assert main(["digest", REPO, "--since", "2d", "--format", "json"]) == 0  # every PR carded
    capsys.readouterr()
    question = "what merged in the last 2 days about attention?"
    assert main(["ask", REPO, question]) == 0
    out = capsys.readouterr().out
    assert set(named_prs(out)) == ATTENTION, out
    assert not any(figure in out for figure in UNFOUNDED) and not any(str(n) in out for n in FOREIGN)
    summary = SUMMARY[kind]
    if summary is not None:
        assert out.index(summary) < out.index("#10")

    assert main(["ask", REPO, question, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # The PRs and the prose, each its own field.
    assert {item["number"] for item in data["items"]} == ATTENTION
    assert (data["answer"] is None) == (kind == "none")
    if summary is not None:
        assert summary in data["answer"] and "#" not in data["answer"]
