"""The `prdigest` command line: arguments in, one line per error out.

A surface: it parses arguments and turns our errors into one line on stderr with a non-zero
exit (a traceback only with --debug). The commands themselves (bot/cli/commands.py), the settings
and every vendor library are imported only after the arguments are read, so `--help` and a
mistyped option answer at once.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn, get_args

from bot.errors import PrdigestError, SourceUnreachable, one_line, quoted
from bot.models import Language
from bot.words import text

if TYPE_CHECKING:
    from bot.cli.start_notes import StartNotes
    from bot.settings import Settings


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


class _Version(argparse.Action):
    """--version: the installed package's version, looked up only when asked (importlib.metadata
    reads the installed files: not a cost for every --help)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> NoReturn:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("prdigest")
        except PackageNotFoundError:  # run from a checkout that was never installed
            found = "unknown (not installed)"
        sys.stdout.write(f"prdigest {found}\n")  # on stdout, as argparse's own "version" action
        parser.exit(0)


def _global_options(parser: argparse.ArgumentParser, *, defaults: bool) -> None:
    """--debug and --log-format, before the command (`defaults`) and after it too. After it, they
    have no default of their own, so one given before is not undone by the command's parser."""
    debug_default: object = False if defaults else argparse.SUPPRESS
    format_default: object = "plain" if defaults else argparse.SUPPRESS
    parser.add_argument("--debug", action="store_true", default=debug_default, help="show tracebacks and debug logs")
    parser.add_argument(
        "--verbose",
        action="store_true",
        default=debug_default,
        help="say the config file and the cache in use at every run (default: the first time on this machine)",
    )
    parser.add_argument(
        "--log-format",
        choices=("plain", "json"),
        default=format_default,
        help="log lines as text, or one JSON object each with a request id (default: plain)",
    )


def _release_and_eval(command: Callable[[str, str], argparse.ArgumentParser]) -> None:
    release = command("release", "a release's PRs with their cards, and what to know before upgrading")
    release.add_argument("repo", metavar="OWNER/REPO")
    release.add_argument("tag", nargs="?", metavar="TAG", help="the release's tag (default: the latest release)")
    release.add_argument("--since", metavar="TAG", help="start after this tag (default: the release before TAG)")
    release.add_argument("--format", choices=("text", "json"), default="text")
    release.add_argument("--lang", choices=get_args(Language), help="language of the cards (default: config language)")
    release.add_argument("--post", metavar="CHANNEL", help="post it to this Slack channel id, once, as a release post")
    release.add_argument("--team", metavar="T…", help="OAuth mode: the workspace of --post's channel")

    evaluate = command("eval", "card and answer quality on labelled PRs, one row per model")
    evaluate.add_argument("files", nargs="*", metavar="FILE", help="JSON Lines of labelled PRs (eval/seed.jsonl)")
    evaluate.add_argument("--answers", metavar="FILE", help="JSON Lines of questions and what a good answer says")
    evaluate.add_argument("--model", action="append", metavar="NAME", help="a model of the endpoint (repeatable)")
    evaluate.add_argument("--format", choices=("text", "json"), default="text")
    evaluate.add_argument("--concurrency", type=int, metavar="N", help="cards at once (default: config concurrency)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="prdigest", description="Which merged pull requests deserve a careful read, and why.")
    parser.add_argument("--version", action=_Version)
    _global_options(parser, defaults=True)
    after = _Parser(add_help=False)
    _global_options(after, defaults=False)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name: str, help: str) -> argparse.ArgumentParser:
        # Each command's parser also takes the global options (`prdigest digest … --debug`).
        return commands.add_parser(name, help=help, parents=[after])

    digest = command("digest", "the digest of one or more repositories")
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
    digest.add_argument("--no-cache", action="store_true", help="keep nothing: the store in memory for this run only")

    card = command("card", "the card of one pull request")
    card.add_argument("ref", metavar="OWNER/REPO#N", help="owner/repo#123 or a PR URL")
    card.add_argument("--format", choices=("text", "json"), default="text")
    card.add_argument("--lang", choices=get_args(Language))
    card.add_argument("--no-cache", action="store_true", help="keep nothing: the store in memory for this run only")

    ask = command("ask", "ask a question about one pull request, or a repository's recent ones")
    ask.add_argument(
        "ref",
        metavar="OWNER/REPO#N",
        help='owner/repo#123 or a PR URL; or owner/repo for a question across days ("what merged this week?")',
    )
    # Several words are one question, so quotes are optional (but keep the shell off `?` and `*`).
    ask.add_argument("question", nargs="+", metavar="QUESTION", help='such as "what changed in the workflow?"')
    ask.add_argument("--format", choices=("text", "json"), default="text")
    ask.add_argument("--lang", choices=get_args(Language), help="language of the answer (default: config language)")
    ask.add_argument("--no-cache", action="store_true", help="keep nothing: the store in memory for this run only")

    _release_and_eval(command)

    serve = command("serve", "run the Slack app and the daily scheduler")
    mode = serve.add_mutually_exclusive_group()
    mode.add_argument("--http", action="store_true", help="serve POST /slack/events (the default)")
    mode.add_argument("--socket", action="store_true", help="Socket Mode with SLACK_APP_TOKEN (development)")
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="HTTP address to bind (default: %(default)s, this machine only; 0.0.0.0 for every interface)",
    )
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

    worker = command("worker", "make cards from the shared queue, without the Slack server")
    worker.add_argument(
        "--host",
        default="127.0.0.1",
        help="address --metrics-port binds (default: %(default)s, this machine only; 0.0.0.0 for every interface)",
    )
    worker.add_argument(
        "--metrics-port", type=_port, metavar="P", help="serve GET /metrics and /healthz on this port, at --host"
    )
    worker.add_argument("--threads", type=int, metavar="N", help="cards made at once (default: [queue] worker_threads)")

    doctor = command("doctor", "check config, Redis, GitHub, the model endpoint and Slack")
    doctor.add_argument(
        "--team", metavar="T…", help="OAuth mode: check this workspace's token with auth.test and show its own tokens"
    )

    following = command("following", "every channel's subscriptions, their sources and changes")
    following.add_argument("--format", choices=("text", "json"), default="text")
    following.add_argument("--team", metavar="T…", help="OAuth mode: this workspace's channels")
    return parser


def _configure_logging(debug: bool, log_format: str = "plain") -> None:
    # Logs only: errors told to the user (main below) stay one plain line in either format.
    from bot.ops.logs import JsonFormatter, PlainFormatter, quiet_libraries

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else PlainFormatter())
    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING, handlers=[handler])
    # Library chatter (retries, connection pools) is for --debug only.
    quiet_libraries(debug)
    if not debug:
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


# What a shell reports for a program stopped by SIGPIPE (128 + 13), as `yes | head -1` ends.
EXIT_STDOUT_CLOSED = 141


def _stdout_closed() -> int:
    """The reader of stdout went away: end quietly, as a program killed by SIGPIPE would.

    Python ignores SIGPIPE, so the write raised; the rest of what is buffered would raise again
    when the interpreter flushes at exit ("Exception ignored … BrokenPipeError"), so stdout is
    pointed at /dev/null first (the recipe of Python's signal module documentation)."""
    with contextlib.suppress(OSError, ValueError):  # ValueError: a stdout with no file (tests)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return EXIT_STDOUT_CLOSED


def _say_config(settings: Settings, language: Language, notes: StartNotes) -> None:
    """The config file in use, or where none was found: on stderr, once a machine (bot/cli/start_notes.py).
    Run outside the checkout, config/prdigest.toml is not there, and its channels and defaults
    silently were not."""
    from bot.settings import DEFAULT_CONFIG_PATH

    if settings.config_path is not None:
        line = text(language, "cli.config_file", path=os.path.abspath(settings.config_path))
    else:
        line = text(language, "cli.no_config_file", path=os.path.abspath(DEFAULT_CONFIG_PATH))
    notes.say(line)


# Commands whose setup lines are said at every start: their logs are read long after.
LONG_RUNNING = ("serve", "worker")


# The README's section that starts the fakes: where someone offline can try every command.
README_FAKES = "Try it against the bundled fakes"


def error_line(error: PrdigestError, language: Language) -> str:
    """The line an error ends a command with; GitHub out of reach says how to try prdigest offline."""
    said = error.in_language(language)
    if isinstance(error, SourceUnreachable):
        return text(language, "cli.github_unreachable", error=said, section=README_FAKES)
    return said


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if not arguments:  # bare `prdigest`: the help, as pip and docker give it, and success
        parser.print_help()
        return 0
    args = parser.parse_args(arguments)
    _configure_logging(args.debug, args.log_format)
    # English until the config is read: a ConfigError is English anyway (bot/errors.py).
    language: Language = "en"
    try:
        from bot.cli.commands import dispatch, language_of
        from bot.cli.start_notes import StartNotes
        from bot.settings import load_settings

        settings = load_settings()
        language = language_of(args, settings)
        notes = StartNotes.beside(
            settings.cache,
            always=args.verbose or args.debug or args.command in LONG_RUNNING,
            own_directory=not settings.cache_named,
        )
        _say_config(settings, language, notes)
        code = dispatch(args, settings, notes)
        sys.stdout.flush()  # a reader gone (`| head -1`) is found here, not in the interpreter's exit
        return code
    except PrdigestError as exc:
        if args.debug:
            raise
        print(f"prdigest: {one_line(error_line(exc, language))}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return _stdout_closed()
    except KeyboardInterrupt:
        print(f"prdigest: {text(language, 'cli.interrupted')}", file=sys.stderr)
        return 130


def run() -> NoReturn:
    """The `prdigest` command: `main`, then the process ends without the interpreter's teardown
    once nothing of it still runs (bot/ops/stopping.py leave). `main` stays callable in process."""
    code = main()
    from bot.ops.stopping import leave

    leave(code)


if __name__ == "__main__":
    run()
