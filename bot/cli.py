"""The `prdigest` command line: arguments in, one line per error out.

A surface: it parses arguments and turns our errors into one line on stderr with a non-zero
exit (a traceback only with --debug). The commands themselves (bot/commands.py), the settings
and every vendor library are imported only after the arguments are read, so `--help` and a
mistyped option answer at once.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import NoReturn, get_args

from bot.errors import PrdigestError, one_line, quoted
from bot.models import Language
from bot.words import text


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
    parser.add_argument(
        "--log-format",
        choices=("plain", "json"),
        default="plain",
        help="log lines as text, or one JSON object each with a request id (default: %(default)s)",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    digest = commands.add_parser("digest", help="the digest of one or more repositories")
    digest.add_argument("repos", nargs="+", metavar="OWNER/REPO")
    when = digest.add_mutually_exclusive_group()
    when.add_argument("--since", metavar="DURATION", help="window back from now: 90m, 24h, 7d (default: config window)")
    when.add_argument("--date", metavar="YYYY-MM-DD", help="one calendar day in the configured time zone")
    digest.add_argument("--format", choices=("text", "json"), default="text")
    digest.add_argument("--lang", choices=get_args(Language), help="language of the cards (default: config language)")
    digest.add_argument("--post", metavar="CHANNEL", help="post to this Slack channel id, as the scheduler does")
    digest.add_argument(
        "--team", metavar="T…", help="OAuth mode: the workspace of --post's channel (default: home_team)"
    )

    card = commands.add_parser("card", help="the card of one pull request")
    card.add_argument("ref", metavar="OWNER/REPO#N", help="owner/repo#123 or a PR URL")
    card.add_argument("--format", choices=("text", "json"), default="text")
    card.add_argument("--lang", choices=get_args(Language))

    ask = commands.add_parser("ask", help="ask a question about one pull request, or a repository's recent ones")
    ask.add_argument(
        "ref",
        metavar="OWNER/REPO#N",
        help='owner/repo#123 or a PR URL; or owner/repo for a question across days ("what merged this week?")',
    )
    # Several words are one question, so quotes are optional (but keep the shell off `?` and `*`).
    ask.add_argument("question", nargs="+", metavar="QUESTION", help='such as "what changed in the workflow?"')
    ask.add_argument("--format", choices=("text", "json"), default="text")
    ask.add_argument("--lang", choices=get_args(Language), help="language of the answer (default: config language)")

    release = commands.add_parser("release", help="a release's PRs with their cards, and what to know before upgrading")
    release.add_argument("repo", metavar="OWNER/REPO")
    release.add_argument("tag", nargs="?", metavar="TAG", help="the release's tag (default: the latest release)")
    release.add_argument("--since", metavar="TAG", help="start after this tag (default: the release before TAG)")
    release.add_argument("--format", choices=("text", "json"), default="text")
    release.add_argument("--lang", choices=get_args(Language), help="language of the cards (default: config language)")

    evaluate = commands.add_parser("eval", help="card and answer quality on labelled PRs, one row per model")
    evaluate.add_argument("files", nargs="*", metavar="FILE", help="JSON Lines of labelled PRs (eval/seed.jsonl)")
    evaluate.add_argument("--answers", metavar="FILE", help="JSON Lines of questions and what a good answer says")
    evaluate.add_argument("--model", action="append", metavar="NAME", help="a model of the endpoint (repeatable)")
    evaluate.add_argument("--format", choices=("text", "json"), default="text")
    evaluate.add_argument("--concurrency", type=int, metavar="N", help="cards at once (default: config concurrency)")

    serve = commands.add_parser("serve", help="run the Slack app and the daily scheduler")
    mode = serve.add_mutually_exclusive_group()
    mode.add_argument("--http", action="store_true", help="serve POST /slack/events (the default)")
    mode.add_argument("--socket", action="store_true", help="Socket Mode with SLACK_APP_TOKEN (development)")
    serve.add_argument("--host", default="0.0.0.0", help="HTTP address to bind (default: %(default)s)")
    serve.add_argument("--port", type=_port, default=3000, help="HTTP port, 0 for any free one (default: %(default)s)")
    serve.add_argument(
        "--no-worker", action="store_true", help="serve Slack only; card jobs are left to `prdigest worker` processes"
    )
    serve.add_argument(
        "--metrics-port",
        type=_port,
        metavar="P",
        help="serve GET /metrics and /healthz on this port, at --host (without it, no /metrics at all)",
    )

    worker = commands.add_parser("worker", help="make cards from the shared queue, without the Slack server")
    worker.add_argument("--metrics-port", type=_port, metavar="P", help="serve GET /metrics and /healthz on this port")
    worker.add_argument("--threads", type=int, metavar="N", help="cards made at once (default: [queue] worker_threads)")

    doctor = commands.add_parser("doctor", help="check config, Redis, GitHub, the model endpoint and Slack")
    doctor.add_argument(
        "--team", metavar="T…", help="OAuth mode: check this workspace's token with auth.test and show its own tokens"
    )

    following = commands.add_parser("following", help="every channel's subscriptions, their sources and changes")
    following.add_argument("--format", choices=("text", "json"), default="text")
    following.add_argument("--team", metavar="T…", help="OAuth mode: this workspace's channels")
    return parser


def _configure_logging(debug: bool, log_format: str = "plain") -> None:
    # Logs only: errors told to the user (main below) stay one plain line in either format.
    from bot.logs import JsonFormatter, PlainFormatter

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else PlainFormatter())
    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING, handlers=[handler])
    if not debug:
        # Library chatter (retries, connection pools) is for --debug only.
        for name in ("github", "urllib3", "openai", "httpx2", "httpcore2"):
            logging.getLogger(name).setLevel(logging.ERROR)
        logging.getLogger("slack_bolt.App").addFilter(_not_bolt_token_note)
        handler.addFilter(_not_queue_reconnects)


def _not_queue_reconnects(record: logging.LogRecord) -> bool:
    # While Redis is away, each of Dramatiq's consumers logs a "critical" connection error and a
    # restart every few seconds; the worker's heartbeat already says so once per outage.
    if not record.name.startswith("dramatiq"):
        return True
    message = record.getMessage()
    return not message.startswith(("Consumer encountered a connection error", "Restarting consumer"))


def _not_bolt_token_note(record: logging.LogRecord) -> bool:
    # Bolt reads SLACK_BOT_TOKEN itself and, handed a client built from that same token, warns at
    # every start that the token "will be unused": true, and nothing an operator can act on.
    return "`token` will be unused" not in record.getMessage()


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _configure_logging(args.debug, args.log_format)
    # English until the config is read: a ConfigError is English anyway (bot/errors.py).
    language: Language = "en"
    try:
        from bot.commands import dispatch, language_of
        from bot.settings import load_settings

        settings = load_settings()
        language = language_of(args, settings)
        return dispatch(args, settings)
    except PrdigestError as exc:
        if args.debug:
            raise
        print(f"prdigest: {one_line(exc.in_language(language))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"prdigest: {text(language, 'cli.interrupted')}", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
