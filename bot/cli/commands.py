"""The commands behind `prdigest`: digest, card, ask and serve, each a few service calls.

The CLI (bot/cli/main.py) parses arguments and words errors; it imports this module only once the
arguments are read, so `prdigest --help` loads none of what is here.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

from bot.cli.posting import checked_post, chosen_team
from bot.cli.waiting import Waiting, model_failed_line, model_host
from bot.core.refs import parse_ref, parse_repo
from bot.digests import parse_date, parse_since, window_for_date, window_since
from bot.errors import ConfigError, Stopped, StoreError, UsageError, quoted
from bot.models import DigestOptions, Filters, Language, Note, PRRef, Window
from bot.questions import ask_about_pr
from bot.render.data import answer_data, digest_data, item_data
from bot.render.terminal import no_answer_line, render_answer, render_card, render_digest
from bot.settings import Settings
from bot.words import text

if TYPE_CHECKING:
    from bot.cli.start_notes import StartNotes
    from bot.ops.stopping import TerminalStop
    from bot.slack.app import SlackParts
    from bot.wiring.process import Process


def _colour(settings: Settings) -> bool:
    return sys.stdout.isatty() and not settings.no_color


def language_of(args: argparse.Namespace, settings: Settings) -> Language:
    """The terminal's language: --lang, else the configured default."""
    chosen: Language | None = getattr(args, "lang", None)
    return chosen or settings.defaults.language


class _ProgressBar:
    """A one-line bar on stderr, only when stderr is a terminal."""

    WIDTH = 30

    def __init__(self, language: Language) -> None:
        self.enabled = sys.stderr.isatty()
        self.language = language

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total == 0:
            return
        filled = self.WIDTH * done // total
        cards = text(self.language, "cli.progress", done=done, total=total)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {cards}")
        if done == total:
            sys.stderr.write("\r" + " " * (self.WIDTH + 20) + "\r")
        sys.stderr.flush()


# Commands that Ctrl-C stops at once (bot/ops/stopping.py): a person waits for them in a terminal.
STOPPED_AT_ONCE = ("digest", "card", "ask", "release")


def _stopped_line(built: Process, language: Language, done: int | None, total: int | None) -> str:
    """What a stopped command says: how many cards were done, and whether the store keeps them."""
    if done is None or total is None:
        return f"prdigest: {text(language, 'cli.stopped')}"
    from bot.store.backends.memory import MemoryKV

    key = "cli.stopped_done" if isinstance(built.kv, MemoryKV) else "cli.stopped_kept"
    return f"prdigest: {text(language, key, done=done, total=total)}"


def _run_digest(args: argparse.Namespace, built: Process, stop: TerminalStop | None = None) -> None:
    settings = built.settings
    repos = tuple(dict.fromkeys(parse_repo(repo) for repo in args.repos))
    now = datetime.now(UTC)
    day = parse_date(args.date) if args.date else None
    if day is not None:
        window = window_for_date(day, settings.defaults.timezone, now)
    else:
        window = window_since(now, parse_since(args.since) if args.since else settings.defaults.window)
    if args.post:
        _post_digest(args, built, repos, window, day)
        return
    language = language_of(args, settings)
    bar = _ProgressBar(language)
    with Waiting.for_model(settings, language, enabled=built.model is not None, per_card=True) as waiting:

        def progress(done: int, total: int) -> None:
            waiting.output()
            bar(done, total)
            if stop is not None:  # said if the process must end before the digest says it
                stop.line = _stopped_line(built, language, done, total)

        digest = built.digests.build(repos, window, language=language, filters=Filters(), progress=progress)
    if digest.model_failures:
        print(model_failed_line(settings, digest.model_failures, digest.shown, language), file=sys.stderr)
    if args.format == "json":
        print(json.dumps(digest_data(digest), ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(render_digest(digest, colour=_colour(settings)))


def _post_digest(
    args: argparse.Namespace, built: Process, repos: tuple[str, ...], window: Window, asked_day: date | None
) -> None:
    settings = built.settings
    checked_post(args, settings)
    from bot.wiring.slack import wire_slack

    wired = wire_slack(built)
    workspace = wired.tenants.get(chosen_team(args.team, wired))
    # The workspace's own channels: the file's and Slack's for the home one, Slack's for another.
    plan = workspace.directory.plan(args.post)
    language = args.lang or (plan.language if plan else settings.defaults.language)
    zone = plan.timezone if plan else settings.defaults.timezone
    day = (asked_day or (window.end - timedelta(seconds=1)).astimezone(zone).date()).isoformat()
    digests = workspace.digests
    refused = digests.refusals(args.post, repos)
    if refused:
        raise UsageError("error.not_posted_refused", reasons=tuple(refused.values()))
    try:
        result = digests.run(
            args.post,
            day,
            window,
            repos,
            options=DigestOptions(
                language,
                plan.filters if plan else Filters(),
                plan.quiet_days if plan else settings.defaults.quiet_days,
            ),
        )
    except StoreError as exc:
        raise StoreError("error.not_posted_store", error=exc.note or Note("error.internal")) from exc
    terminal = language_of(args, settings)
    if result is None:
        print(f"prdigest: {text(terminal, 'cli.posting_elsewhere', day=day, channel=args.post)}", file=sys.stderr)
    else:
        print(text(terminal, "cli.posted", channel=args.post, day=day, posted=result.posted, already=result.already))


def _run_serve(args: argparse.Namespace, built: Process) -> None:
    from bot.http.server import serve_http, serve_socket
    from bot.wiring.process import start_worker
    from bot.wiring.slack import slack_app, wire_slack

    settings = built.settings
    language = settings.defaults.language
    if args.socket:
        if settings.oauth:
            raise ConfigError(
                "--socket is for one workspace: OAuth mode serves /slack/install over HTTP (serve --http)"
            )
        if not settings.slack_app_token:
            raise ConfigError("--socket needs SLACK_APP_TOKEN (an app-level token, xapp-…, with connections:write)")
        socket_parts = slack_app(wire_slack(built), socket_mode=True)
        _before_serving(built, socket_parts)
        with _metrics_port(args, built) as metrics_url:
            if metrics_url is not None:
                print(f"prdigest: {text(language, 'cli.serving_metrics', url=metrics_url)}", file=sys.stderr)
            try:
                serve_socket(socket_parts, settings.slack_app_token)
            finally:
                socket_parts.drain()
        return
    if args.metrics_port is not None and args.metrics_port == args.port != 0:
        raise UsageError("error.metrics_port_is_slack_port", port=args.port)
    parts = slack_app(wire_slack(built))
    _before_serving(built, parts)
    with _metrics_port(args, built) as metrics_url:

        def ready(url: str) -> None:
            print(f"prdigest: {text(language, 'cli.serving', url=url)}", file=sys.stderr)
            if metrics_url is not None:
                print(f"prdigest: {text(language, 'cli.serving_metrics', url=metrics_url)}", file=sys.stderr)

        # Without Redis there is no queue: cards are made where they are wanted, as before. serve's
        # own worker (threads of this process) makes as many cards at once as a digest did before
        # there was a queue (`concurrency`).
        with_worker = not args.no_worker and built.queue is not None
        worker = start_worker(built, settings.defaults.concurrency) if with_worker else None
        try:
            serve_http(parts, args.host, args.port, on_ready=ready)
        finally:
            parts.drain()
            if worker is not None:
                worker.stop()


@contextlib.contextmanager
def _metrics_port(args: argparse.Namespace, built: Process) -> Iterator[str | None]:
    """GET /metrics on --metrics-port at --host (serve's and worker's) while inside, and its URL;
    without the option, none anywhere (None): the Slack port never answers /metrics, since its
    proxy may be opened wider than it should be. Nothing is counted either, as no sink is
    installed (telemetry.py)."""
    if args.metrics_port is None:
        yield None
        return
    from bot.http.httpd import metrics_served
    from bot.wiring.metrics import metrics_installed

    with metrics_installed(built) as sink, metrics_served(sink.exposition, args.host, args.metrics_port) as port:
        host = f"[{args.host}]" if ":" in args.host else args.host
        yield f"http://{host}:{port}/metrics"


def _before_serving(built: Process, parts: SlackParts) -> None:
    """What the first requests would otherwise pay for, beside every acknowledgement in flight:
    the model SDK's import (llm/lazy.py) and the pools' threads (slack/executor.py)."""
    built.warm()
    parts.prestart()


def _run_worker(args: argparse.Namespace, built: Process) -> None:
    """Card jobs until SIGTERM/SIGINT; the jobs in hand are finished (or left to another worker)."""
    if args.threads is not None and not 1 <= args.threads <= 64:
        raise UsageError("error.bad_threads", threads=args.threads)
    from bot.ops.stopping import stop_on_signals
    from bot.wiring.process import start_worker

    language = built.settings.defaults.language
    stopped = threading.Event()
    built.warm()
    with contextlib.ExitStack() as open_parts:  # closed newest first: the worker, then its metrics
        # Bound before any job is taken: a port in use ends the worker in one line, holding no job.
        metrics_url = open_parts.enter_context(_metrics_port(args, built))
        worker = start_worker(built, args.threads)
        open_parts.callback(worker.stop)
        stop_on_signals(stopped.set)
        if metrics_url is not None:
            print(f"prdigest: {text(language, 'cli.serving_metrics', url=metrics_url)}", file=sys.stderr)
        if not worker.waiting_for_redis:  # else the worker has said it waits, and says when Redis is back
            print(f"prdigest: {text(language, 'cli.working', threads=worker.threads)}", file=sys.stderr)
        stopped.wait()


def _ref(typed: str, settings: Settings) -> PRRef:
    """A PR as typed; `#N` is a PR of the config's repository when it lists exactly one."""
    repos = tuple(dict.fromkeys(repo for channel in settings.config.channels for repo in channel.repos))
    try:
        return parse_ref(typed, repos[0] if len(repos) == 1 else None)
    except UsageError as exc:
        if len(repos) < 2 or exc.note is None or exc.note.kind != "error.ref_no_repo":
            raise
        # Which repositories it could be: the config's, each a reference to copy.
        digits = str(exc.note.values["digits"])
        raise UsageError(
            "error.ref_which_repo", text=quoted(typed), refs=", ".join(f"{repo}#{digits}" for repo in repos)
        ) from None


def _run_card(args: argparse.Namespace, built: Process) -> None:
    ref = _ref(args.ref, built.settings)
    language = language_of(args, built.settings)
    snapshot = built.cards.snapshot_by_ref(ref)
    with Waiting.for_model(built.settings, language, enabled=built.model is not None):
        result = built.cards.card(snapshot, language)
    if result.degraded:
        print(model_failed_line(built.settings, 1, 1, language), file=sys.stderr)
    if args.format == "json":
        print(json.dumps(item_data(snapshot.listing, result.card), ensure_ascii=False, indent=2))
    else:
        print(render_card(snapshot.listing, result.card, colour=_colour(built.settings)))


def _run_ask(args: argparse.Namespace, built: Process) -> None:
    """The answer a Slack thread would give, or the card and one line on stderr saying why not.

    Exit 0 either way, as `card` exits 0 with a card from metadata: the card is an answer of
    sorts, and `--format json`'s `source` and `reason` tell a program which one it got.
    """
    if "#" not in args.ref and "/pull/" not in args.ref and "/" in args.ref:
        # OWNER/REPO: a question across days about that repository (questions/across/days.py).
        from bot.cli.ask_across import ask_across

        ask_across(args, built, parse_repo(args.ref), language_of(args, built.settings))
        return
    ref = _ref(args.ref, built.settings)
    question = " ".join(args.question).strip()
    if not question:
        raise UsageError("error.empty_question")
    language = language_of(args, built.settings)
    snapshot = built.cards.snapshot_by_ref(ref)
    with Waiting.for_model(built.settings, language, enabled=built.model is not None):
        asked = ask_about_pr(built.cards, built.answerer, snapshot, question, language, built.spending)
    note = None
    if asked.no_answer is not None:
        host = model_host(built.settings)
        note = no_answer_line(asked.no_answer, language, host=host, seconds=built.model_timeout)
        print(f"prdigest: {note}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(answer_data(asked, note), ensure_ascii=False, indent=2))
    else:
        print(render_answer(asked, colour=_colour(built.settings)))


def dispatch(args: argparse.Namespace, settings: Settings, notes: StartNotes | None = None) -> int:
    """Run the command. `notes`: where the setup lines go (bot/cli/start_notes.py); None: stderr, every time."""
    if args.command == "doctor":
        from bot.cli.doctor import run_doctor

        return run_doctor(settings, team=args.team)
    if args.command == "eval":
        from bot.cli.eval import run_eval

        return run_eval(args, settings)
    if args.command in ("serve", "worker"):
        from bot.ops.allocator import limit_arenas

        limit_arenas()  # before any thread: long-running and threaded (bot/ops/allocator.py)
    from bot.wiring.process import build_process

    if getattr(args, "no_cache", False):
        from bot.wiring.store import without_cache

        settings = without_cache(settings)
    built = build_process(settings, usual=notes.say if notes is not None else None)
    try:
        if args.command in STOPPED_AT_ONCE:
            return _stoppable(args, built)
        if args.command == "following":
            from bot.cli.following import run_following
            from bot.wiring.slack import wire_slack

            # Only the stores: the listing sends nothing to Slack or GitHub.
            wired = wire_slack(built)
            workspace = wired.tenants.get(chosen_team(args.team, wired))
            sys.stdout.write(run_following(built, workspace, args.format, language_of(args, settings)))
        elif args.command == "worker":
            _run_worker(args, built)
        else:  # "serve": argparse rejects any other command
            _run_serve(args, built)
    finally:
        built.close()
    return 0


def _stoppable(args: argparse.Namespace, built: Process) -> int:
    """digest, card, ask or release, which Ctrl-C (or SIGTERM) stops at once (bot/ops/stopping.py): 0, or once
    stopped, its line said and the process ended with the signal's exit code."""
    from bot.ops.stopping import TerminalStop

    language = language_of(args, built.settings)
    with TerminalStop(built.stop) as stop:
        stop.line = _stopped_line(built, language, None, None)
        try:
            if args.command == "digest":
                _run_digest(args, built, stop)
            elif args.command == "card":
                _run_card(args, built)
            elif args.command == "ask":
                _run_ask(args, built)
            else:
                from bot.cli.release import run_release

                run_release(args, built, language, _colour(built.settings))
        except Stopped as exc:
            stop.say(_stopped_line(built, language, exc.done, exc.total))
            if stop.signal is not None:
                stop.settle()
                built.close()
                stop.end()
            return stop.exit_code
    return 0
