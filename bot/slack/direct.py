"""Questions in a person's DM with the app (the Messages tab): answered in a thread on the
question, as Slack's agent messaging expects ("streamed messages should always be replies to a
user request"), through the same QAService as @mentions.

What may be discussed is the person's (services/reach.py), not a channel's: a question naming a
repository outside it is refused in words that name nothing, not even what was typed. The
answer is worded in the person's Slack language, and reaches Slack as every answer does: a
status, then the model's words streamed as they are checked (services/answering.py).
"""

from __future__ import annotations

import logging
from typing import Any

from bot import telemetry
from bot.models import AcrossRefused, Language, NotAllowed, Reply
from bot.ports import AnswerSink
from bot.ports.slack import Message, SlackPort
from bot.render.answers import AnswerWording
from bot.render.blocks import text_message
from bot.render.replies import reply_message, say
from bot.services.answering import answer_in_thread, status_words
from bot.services.questions import find_refs, strip_mentions
from bot.services.reach import reach_of
from bot.services.refs import MAX_MESSAGE_CHARS
from bot.slack.deps import SlackDeps

log = logging.getLogger(__name__)

# Stands for "no repository named" when the question's references are read (never a real one:
# GitHub's names have no "_/_").
BARE = "_/_"
# Repositories offered as examples when "#N" could be any of them: a few read better than all.
MAX_EXAMPLES = 4


def answer_in_dm(
    deps: SlackDeps, slack: SlackPort, event: dict[str, Any], thread_ts: str, team: str | None = None
) -> None:
    """Answer the person's DM `event` in the thread `thread_ts` of their DM with the app: a
    status, then the answer streamed as in channels (services/answering.py)."""
    dm, user = event["channel"], event["user"]
    language = deps.people.language(slack, user)
    text = event.get("text")
    question = strip_mentions(text if isinstance(text, str) else "")
    reach = reach_of(deps.directory, deps.members, deps.access, slack, user, dm)
    allowed, default_repo = reach.allowed, reach.default_repo
    refs = find_refs(question, default_repo)
    if any(ref.repo.lower() not in allowed for ref in refs) or deps.qa.named_not_allowed(
        question, dm, allowed, default_repo
    ):
        _post(slack, dm, thread_ts, refusal(language))
        return
    if default_repo is None and (bare := _bare_number(question)) is not None:
        # "#123" with several repositories of theirs, or none: which one is not guessed.
        _post(slack, dm, thread_ts, which_repo(language, bare, reach.own))
        return

    # "Today" in a DM is the person's day (their Slack time zone), not the workspace's default.
    zone = deps.watch_dms.zone(user) if deps.watch_dms is not None else None

    def ask(sink: AnswerSink) -> Reply:
        return deps.qa.on_mention(question, dm, thread_ts, allowed, default_repo, language, sink, zone)

    outcome = answer_in_thread(
        slack,
        dm,
        thread_ts,
        user=user,
        team=event.get("user_team") or event.get("team") or team,
        language=language,
        command=deps.command,
        status=status_words(language, refs, None),
        ask=ask,
        words=AnswerWording(_worded),
        stops=deps.threads,
        asked_at=event.get("ts"),
    )
    if outcome == "answered":
        telemetry.count("questions_answered_total", surface="dm")
    elif outcome == "stopped":
        telemetry.count("answers_stopped_total", surface="dm")


def _worded(reply: Reply, language: Language, command: str) -> Message:
    # Named earlier in the thread and no longer allowed: refused as above, naming nothing.
    if isinstance(reply, NotAllowed) or (isinstance(reply, AcrossRefused) and reply.reason == "not_allowed"):
        return refusal(language)
    return reply_message(reply, language, command)


def _bare_number(question: str) -> int | None:
    """The number of the first "#123" that names no repository, or None."""
    return next((ref.number for ref in find_refs(question, BARE) if ref.repo == BARE), None)


def which_repo(language: Language, number: int, own: tuple[str, ...]) -> Message:
    """Asked about "#N" where it could be any of several repositories (or none is theirs)."""
    if not own:
        return text_message(say(language, "dm_which_repo_none", number=str(number)))
    examples = ", ".join(f"`{repo}#{number}`" for repo in own[:MAX_EXAMPLES])
    return text_message(say(language, "dm_which_repo", number=str(number), examples=examples))


def refusal(language: Language) -> Message:
    return text_message(say(language, "dm_not_allowed"))


def too_long(deps: SlackDeps, slack: SlackPort, event: dict[str, Any], thread_ts: str) -> None:
    """Longer than Slack lets anyone write: not read, and said so (only the person sees their DM)."""
    words = say(deps.people.language(slack, event["user"]), "too_long", limit=f"{MAX_MESSAGE_CHARS:,}")
    _post(slack, event["channel"], thread_ts, text_message(words))


def _post(slack: SlackPort, dm: str, thread_ts: str, message: Message) -> str:
    return slack.post(dm, message.text, blocks=message.blocks, thread_ts=thread_ts)
