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
from typing import NoReturn, get_args

from bot.errors import ConfigError, PrdigestError, StoreError, UsageError, one_line, quoted
from bot.models import Filters, Language, Window
from bot.render.data import digest_data, item_data
from bot.render.terminal import render_card, render_digest
from bot.services.refs import parse_ref, parse_repo
from bot.services.windows import parse_date, parse_since, window_for_date, window_since
from bot.settings import Settings, load_settings
from bot.waiting import Waiting, model_failed_line
from bot.wiring import Services, build_services


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


class _ProgressBar:
    """A one-line bar on stderr, only when stderr is a terminal."""

    WIDTH = 30

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total == 0:
            return
        filled = self.WIDTH * done // total
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{total} cards")
        if done == total:
            sys.stderr.write("\r" + " " * (self.WIDTH + 20) + "\r")
        sys.stderr.flush()


def _run_digest(args: argparse.Namespace, services: Services) -> None:
    settings = services.settings
    repos = tuple(dict.fromkeys(parse_repo(repo) for repo in args.repos))
    now = datetime.now(UTC)
    day = parse_date(args.date) if args.date else None
    if day is not None:
        window = window_for_date(day, settings.defaults.timezone, now)
    else:
        window = window_since(now, parse_since(args.since) if args.since else settings.defaults.window)
    if args.post:
        _post_digest(args, services, repos, window, day)
        return
    language = args.lang or settings.defaults.language
    bar = _ProgressBar()
    with Waiting.for_model(settings, enabled=services.summarizer is not None, each=" a card") as waiting:

        def progress(done: int, total: int) -> None:
            waiting.output()
            bar(done, total)

        digest = services.digests.build(repos, window, language=language, filters=Filters(), progress=progress)
    if digest.model_failures:
        print(model_failed_line(settings, digest.model_failures, digest.shown), file=sys.stderr)
    if args.format == "json":
        print(json.dumps(digest_data(digest), ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(render_digest(digest, colour=_colour(settings)))


def _post_digest(
    args: argparse.Namespace, services: Services, repos: tuple[str, ...], window: Window, asked_day: date | None
) -> None:
    from bot.slack.app import build_channel_digests, build_client
    from bot.slack.channels import ChannelDirectory

    settings = services.settings
    if not settings.slack_bot_token:
        raise ConfigError("--post needs SLACK_BOT_TOKEN (the bot token, xoxb-…)")
    if not settings.redis_url:
        raise ConfigError("--post needs REDIS_URL: the ledger that keeps a digest from being posted twice is in Redis")
    plan = ChannelDirectory(settings).plan(args.post)
    language = args.lang or (plan.language if plan else settings.defaults.language)
    zone = plan.timezone if plan else settings.defaults.timezone
    day = (asked_day or (window.end - timedelta(seconds=1)).astimezone(zone).date()).isoformat()
    client = build_client(settings.slack_bot_token, settings.slack_api_url)
    digests = build_channel_digests(services, client)
    refused = digests.refusals(args.post, repos)
    if refused:
        raise UsageError("; ".join(refused.values()) + ": nothing posted")
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
        raise StoreError(
            f"{exc}: nothing was posted, since the ledger that keeps a digest from being posted twice is there; "
            "run it again when Redis answers"
        ) from exc
    if result is None:
        print(f"prdigest: another process is posting the {day} digest in {args.post}; nothing posted", file=sys.stderr)
    else:
        print(f"{args.post} {day}: {result.posted} messages posted, {result.already} already there")


def _run_serve(args: argparse.Namespace, services: Services) -> None:
    from bot.slack.app import build_slack
    from bot.slack.server import serve_http, serve_socket

    settings = services.settings
    if args.socket:
        if not settings.slack_app_token:
            raise ConfigError("--socket needs SLACK_APP_TOKEN (an app-level token, xapp-…, with connections:write)")
        serve_socket(build_slack(services, socket_mode=True), settings.slack_app_token)
        return
    parts = build_slack(services)
    serve_http(parts, args.host, args.port, on_ready=lambda url: print(f"prdigest: serving {url}", file=sys.stderr))


def _run_card(args: argparse.Namespace, services: Services) -> None:
    ref = parse_ref(args.ref)
    language = args.lang or services.settings.defaults.language
    snapshot = services.cards.snapshot_by_ref(ref)
    with Waiting.for_model(services.settings, enabled=services.summarizer is not None):
        result = services.cards.card(snapshot, language)
    if result.degraded:
        print(model_failed_line(services.settings, 1, 1), file=sys.stderr)
    if args.format == "json":
        print(json.dumps(item_data(snapshot.listing, result.card), ensure_ascii=False, indent=2))
    else:
        print(render_card(snapshot.listing, result.card, colour=_colour(services.settings)))


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
    try:
        settings = load_settings()
        return _dispatch(args, settings)
    except PrdigestError as exc:
        if args.debug:
            raise
        print(f"prdigest: {one_line(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("prdigest: interrupted", file=sys.stderr)
        return 130


def _dispatch(args: argparse.Namespace, settings: Settings) -> int:
    if args.command == "doctor":
        from bot.doctor import run_doctor

        return run_doctor(settings)
    services = build_services(settings)
    try:
        if args.command == "digest":
            _run_digest(args, services)
        elif args.command == "card":
            _run_card(args, services)
        elif args.command == "serve":
            _run_serve(args, services)
        else:  # pragma: no cover - argparse rejects unknown commands
            raise UsageError(f"unknown command {args.command}")
    finally:
        services.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
