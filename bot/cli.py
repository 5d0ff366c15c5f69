"""The `prdigest` command: digest, card and doctor in a terminal.

A surface: it turns arguments into service calls and our errors into one line on stderr with
a non-zero exit (a traceback only with --debug). Output goes to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, NoReturn, get_args

from bot.errors import ConfigError, PrdigestError, StoreError, UsageError, one_line, quoted
from bot.models import Filters, Language, Note, Window
from bot.render.data import digest_data, item_data
from bot.render.terminal import render_card, render_digest
from bot.services.refs import parse_ref, parse_repo
from bot.services.windows import parse_date, parse_since, window_for_date, window_since
from bot.settings import Settings, load_settings
from bot.waiting import Waiting, model_failed_line
from bot.words import text

if TYPE_CHECKING:
    from bot.builder import Builder


class _Parser(argparse.ArgumentParser):
    """argparse that reports a mistake in one line, like every other prdigest error."""

    def error(self, message: str) -> NoReturn:
        # argparse repeats unrecognised arguments as typed, newlines included.
        self.exit(2, f"prdigest: {one_line(message)} (see prdigest --help)\n")


MAX_PORT = 65535  # TCP ports are 16 bits: waitress took 99999 modulo 65536 and served on 34463


def _port(text: str) -> int:
    """A TCP port. 0 asks for any free port, which `serve` prints once it listens."""
    # ASCII digits only (isdigit() alone takes "²" and "٣"), and few enough for int() to be quick.
    if not (text.isascii() and text.isdigit() and len(text) <= 5 and int(text) <= MAX_PORT):
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a port; use 1 to {MAX_PORT}, or 0 for any free port")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="prdigest", description="Which merged pull requests deserve a careful read, and why.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    digest = commands.add_parser("digest", help="the digest of one or more repositories")
    digest.add_argument("repos", nargs="+", metavar="OWNER/REPO")
    when = digest.add_mutually_exclusive_group()
    when.add_argument("--since", metavar="DURATION", help="window back from now: 90m, 24h, 7d (default: config window)")
    when.add_argument("--date", metavar="YYYY-MM-DD", help="one calendar day in the configured time zone")
    digest.add_argument("--format", choices=("text", "json"), default="text")
    digest.add_argument("--lang", choices=get_args(Language), help="language of the cards (default: config language)")
    digest.add_argument("--post", metavar="CHANNEL", help="post to this Slack channel id, as the scheduler does")

    card = commands.add_parser("card", help="the card of one pull request")
    card.add_argument("ref", metavar="OWNER/REPO#N", help="owner/repo#123 or a PR URL")
    card.add_argument("--format", choices=("text", "json"), default="text")
    card.add_argument("--lang", choices=get_args(Language))

    serve = commands.add_parser("serve", help="run the Slack app and the daily scheduler")
    mode = serve.add_mutually_exclusive_group()
    mode.add_argument("--http", action="store_true", help="serve POST /slack/events (the default)")
    mode.add_argument("--socket", action="store_true", help="Socket Mode with SLACK_APP_TOKEN (development)")
    serve.add_argument("--host", default="0.0.0.0", help="HTTP address to bind (default: %(default)s)")
    serve.add_argument("--port", type=_port, default=3000, help="HTTP port, 0 for any free one (default: %(default)s)")

    commands.add_parser("doctor", help="check config, Redis, GitHub, the model endpoint and Slack")
    return parser


def _colour(settings: Settings) -> bool:
    return sys.stdout.isatty() and not settings.no_color


def _language(args: argparse.Namespace, settings: Settings) -> Language:
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


def _run_digest(args: argparse.Namespace, built: Builder) -> None:
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
    language = _language(args, settings)
    bar = _ProgressBar(language)
    with Waiting.for_model(settings, language, enabled=built.model is not None, per_card=True) as waiting:

        def progress(done: int, total: int) -> None:
            waiting.output()
            bar(done, total)

        digest = built.digests.build(repos, window, language=language, filters=Filters(), progress=progress)
    if digest.model_failures:
        print(model_failed_line(settings, digest.model_failures, digest.shown, language), file=sys.stderr)
    if args.format == "json":
        print(json.dumps(digest_data(digest), ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(render_digest(digest, colour=_colour(settings)))


def _post_digest(
    args: argparse.Namespace, built: Builder, repos: tuple[str, ...], window: Window, asked_day: date | None
) -> None:
    settings = built.settings
    if not settings.slack_bot_token:
        raise ConfigError("--post needs SLACK_BOT_TOKEN (the bot token, xoxb-…)")
    if not settings.redis_url:
        raise ConfigError("--post needs REDIS_URL: the ledger that keeps a digest from being posted twice is in Redis")
    plan = built.directory.plan(args.post)
    language = args.lang or (plan.language if plan else settings.defaults.language)
    zone = plan.timezone if plan else settings.defaults.timezone
    day = (asked_day or (window.end - timedelta(seconds=1)).astimezone(zone).date()).isoformat()
    digests = built.channel_digests
    refused = digests.refusals(args.post, repos)
    if refused:
        raise UsageError("error.not_posted_refused", reasons=tuple(refused.values()))
    try:
        result = digests.run(
            args.post,
            day,
            window,
            repos,
            language=language,
            filters=plan.filters if plan else Filters(),
            quiet_days=plan.quiet_days if plan else settings.defaults.quiet_days,
        )
    except StoreError as exc:
        raise StoreError("error.not_posted_store", error=exc.note or Note("error.internal")) from exc
    terminal = _language(args, settings)
    if result is None:
        print(f"prdigest: {text(terminal, 'cli.posting_elsewhere', day=day, channel=args.post)}", file=sys.stderr)
    else:
        print(text(terminal, "cli.posted", channel=args.post, day=day, posted=result.posted, already=result.already))


def _run_serve(args: argparse.Namespace, built: Builder) -> None:
    from bot.slack.server import serve_http, serve_socket

    settings = built.settings
    if args.socket:
        if not settings.slack_app_token:
            raise ConfigError("--socket needs SLACK_APP_TOKEN (an app-level token, xapp-…, with connections:write)")
        serve_socket(built.slack(socket_mode=True), settings.slack_app_token)
        return
    parts = built.slack()
    language = settings.defaults.language

    def ready(url: str) -> None:
        print(f"prdigest: {text(language, 'cli.serving', url=url)}", file=sys.stderr)

    serve_http(parts, args.host, args.port, on_ready=ready)


def _run_card(args: argparse.Namespace, built: Builder) -> None:
    ref = parse_ref(args.ref)
    language = _language(args, built.settings)
    snapshot = built.cards.snapshot_by_ref(ref)
    with Waiting.for_model(built.settings, language, enabled=built.model is not None):
        result = built.cards.card(snapshot, language)
    if result.degraded:
        print(model_failed_line(built.settings, 1, 1, language), file=sys.stderr)
    if args.format == "json":
        print(json.dumps(item_data(snapshot.listing, result.card), ensure_ascii=False, indent=2))
    else:
        print(render_card(snapshot.listing, result.card, colour=_colour(built.settings)))


def _configure_logging(debug: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING,
        format="prdigest: %(message)s",
        stream=sys.stderr,
    )
    if not debug:
        # Library chatter (retries, connection pools) is for --debug only.
        for name in ("github", "urllib3", "openai", "httpx2", "httpcore2"):
            logging.getLogger(name).setLevel(logging.ERROR)
        logging.getLogger("slack_bolt.App").addFilter(_not_bolt_token_note)


def _not_bolt_token_note(record: logging.LogRecord) -> bool:
    # Bolt reads SLACK_BOT_TOKEN itself and, handed a client built from that same token, warns at
    # every start that the token "will be unused": true, and nothing an operator can act on.
    return "`token` will be unused" not in record.getMessage()


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _configure_logging(args.debug)
    # English until the config is read: a ConfigError is English anyway (bot/errors.py).
    language: Language = "en"
    try:
        settings = load_settings()
        language = _language(args, settings)
        return _dispatch(args, settings)
    except PrdigestError as exc:
        if args.debug:
            raise
        print(f"prdigest: {one_line(exc.in_language(language))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"prdigest: {text(language, 'cli.interrupted')}", file=sys.stderr)
        return 130


def _dispatch(args: argparse.Namespace, settings: Settings) -> int:
    if args.command == "doctor":
        from bot.doctor import run_doctor

        return run_doctor(settings)
    from bot.builder import Builder

    built = Builder(settings)
    try:
        if args.command == "digest":
            _run_digest(args, built)
        elif args.command == "card":
            _run_card(args, built)
        else:  # "serve": argparse rejects any other command
            _run_serve(args, built)
    finally:
        built.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
