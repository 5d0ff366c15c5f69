"""Model-written text made safe to publish: no mentions, no foreign links, no echo of our prompts (pure).

The output half of the injection defences (B7 in reference/github-openai.md): whatever a PR talked
the model into, a card's headline and points and an answer lose every Slack mention, every link
that does not point into the PR's own repository, and every line that repeats our instructions
(found by core/checks/prompt_echoes.py). What the model wrote loses its chat template's tokens and its thinking
first (core/checks/templates.py). Escaping for Slack stays render/'s job; whether the text is true is not
judged here. The model's output is untrusted text: every pattern here runs in time linear in it.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from urllib.parse import unquote, urlsplit

from bot.core.checks.prompt_echoes import without_echoes
from bot.core.checks.prose import is_data
from bot.core.checks.templates import without_template
from bot.core.strings.patterns import lazy
from bot.core.strings.text import clean_text
from bot.models import Card

# The version of the rules of this module and of those it uses (echoes, templates, text): a
# card records the version it was sanitized under (Card.sanitized), and one sanitized under
# these rules is served as stored instead of being sanitized again (20 ms of a warm digest of
# 150 PRs). Raise it with any change to what a card keeps; tests/unit/test_sanitize_rules.py
# fingerprints those modules to remind. Our prompts are left out on purpose: a card could only
# have been talked into reciting the prompts of its own day, which it was checked against.
SANITIZE_RULES = 2

# Slack parses `<!here>`, `<!channel>`, `<!everyone>`, `<!subteam^S1|@team>`, `<@U1>` and `<#C1|name>`
# (formatting reference; slack-platform.md §5). They go whole, and so does any `<` that would open one.
# A Slack section holds 3,000 characters; answers are asked to be short, this is the backstop.
ANSWER_MAX_CHARS = 2900
_TOKEN_SIGILS = "!@#"
_TOKEN_OPENER = lazy(r"<(?=[!@#])")

# What people type to ping a channel. Matched on NFKC case-folded text, so `@HERE` and a
# full-width `＠ｈｅｒｅ` count too; a following letter makes another word (`@hereford`).
_MASS_MENTION = lazy(r"@(?:here|channel|everyone)(?!\w)")
# The characters whose NFKC form is `@`: text without them skips the (slower) folding.
_AT_SIGNS = ("@", "\uff20", "\ufe6b")

# What opens a URL: a scheme with `//`; the schemes a browser or Slack opens without it
# (`http:evil.example` is http://evil.example to a browser, WHATWG URL "special" schemes);
# `www.`; and a host after two slashes or backslashes (`//evil.example`, `\\evil.example`,
# `/\evil.example`: a browser reads `\` as `/` in a web address).
_SCHEME = r"[a-z][a-z0-9+.\-]*+://"
_SCHEMES_WITHOUT_SLASHES = (
    "https?|wss?|ftps?|sftp|ssh|git|file|blob|data|javascript|vbscript|mailto|tel|sms|irc|news|slack"
)
_OTHER_URL_STARTS = (
    rf"\b(?:{_SCHEMES_WITHOUT_SLASHES}):(?=\S)"
    r"|www\.(?=\w)"
    # Two or more slashes or backslashes, however mixed (`//`, `\//`, `///`): a browser reads
    # each as the start of a host.
    r"|(?<![\w/:\\])[/\\]{2,}(?=[\w-]+\.\w)"
)
# For match() at one place only: tried at every place of a line, the scheme's run of letters
# is scanned to its end from each of its letters (quadratic in the run).
_LOOKS_LIKE_URL = lazy(f"(?:{_SCHEME}|{_OTHER_URL_STARTS})", re.IGNORECASE)
# What makes the target of `<target|label>` or `[label](target)` a link, beyond a URL's start:
# any scheme at all (RFC 3986: a letter, then letters, digits, `+.-`, then `:`; in angle brackets
# without white space, as CommonMark's autolinks, so `<std::string, int>` stays code), an email
# address, and, in Markdown's parentheses, any path or host (`/x`, `\x`, `evil.example/y`):
# a browser resolves each against some host, never ours to choose. For match() at one place.
_ANY_SCHEME = r"[a-z][a-z0-9+.\-]{0,31}:"
_LINK_TARGET = lazy(rf"(?:{_ANY_SCHEME}\S*+\Z|[^\s@<>|]++@[\w-]+\.\w)", re.IGNORECASE)
_MARKDOWN_TARGET = lazy(rf"(?:{_ANY_SCHEME}|[/\\]|[\w-]++(?:\.[\w-]++)++(?:[/?#:]|$))", re.IGNORECASE)
# A Markdown reference definition (`[1]: http:evil.example/ref "title"`): it makes every
# `[docs][1]` of the text a link to its target, so the line goes whole (CommonMark §4.7: up to
# three spaces of indent, a destination, an optional quoted or parenthesised title).
_REFERENCE_DEFINITION = lazy(
    r" {0,3}\[[^\[\]\n]++\]:[ \t]*+"
    r"(?:(?:<[^<>\n]*+>|\S++)(?:[ \t]++(?:\"[^\"\n]*+\"|'[^'\n]*+'|\([^()\n]*+\)))?+)?+[ \t]*+"
)
# A URL runs to whitespace or to a character it cannot hold unencoded (RFC 3986 leaves out
# `<>"` and backquotes; `|` ends the URL of a Slack link). Brackets end it too, so that
# "(see https://x)" keeps its parenthesis. A scheme is tried only where a run of scheme
# characters begins, `lead` taking the digits and signs that open it ("1+http://x" has the
# scheme "http"): linear, and the same URLs as trying each letter.
_BARE_URL = lazy(
    rf"(?:(?<![a-z0-9+.\-])(?P<lead>[0-9+.\-]*+){_SCHEME}|{_OTHER_URL_STARTS})" r"[^\s<>|\"'`()\[\]{}]*+",
    re.IGNORECASE,
)
# A script or data URL is code, not an address: it runs to whitespace, parentheses and all
# (`javascript:alert(document.cookie)`).
_SCRIPT_URL = lazy(r"\b(?:javascript|vbscript|data):\S+", re.IGNORECASE)
# Punctuation after a URL belongs to the sentence around it.
_SENTENCE_PUNCTUATION = ".,;:!?*_~"
# Slack's `<url|label>` and `<url>`; only a target that looks like a URL makes it a link (`List<T>` is code).
_SLACK_LINK = lazy(r"<([^<>|\n]*+)(?:\|([^<>\n]*+))?>")
# Markdown `[label](target "title")` and images `![alt](target)`, one level of parentheses in the target.
_MARKDOWN_LINK = lazy(r"!?\[([^\[\]\n]*+)\]\(([^()\n]*+(?:\([^()\n]*+\)[^()\n]*+)*+)\)")

# A removal can join the halves of another attack (`<<!here>!channel>`): passes repeat until
# nothing changes. A line still changing after this many is hostile by construction and goes.
MAX_PASSES = 50
# The same for the template's tokens and this module's rules taken in turn: a few rounds end any
# text a model writes; one still changing after these is built to, and nothing of it is kept.
MAX_MODEL_TEXT_ROUNDS = 4

_RUNS_OF_SPACES = lazy(r"(?<=\S)[ \t]{2,}")
# Only from where the spaces begin: tried inside them, each place scans the rest of the run.
_SPACE_BEFORE_PUNCTUATION = lazy(r"(?<![ \t])[ \t]++(?=[,.;:?])")
_BLANK_LINES = lazy(r"\n{3,}")


@dataclass(frozen=True)
class _Repo:
    scheme: str
    host: str  # with the port, if the address names one
    path: str  # "/owner/name", lower-cased: GitHub ignores the case of both


def _parse_repo(url: str) -> _Repo | None:
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    path = parts.path.rstrip("/").lower()
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or "@" in parts.netloc:
        return None
    if len([segment for segment in path.split("/") if segment]) < 2:
        return None  # a host alone would let every repository through
    return _Repo(parts.scheme.lower(), parts.netloc.lower(), path)


def repo_url(pr_url: str) -> str:
    """The repository's web address from its PR's: `https://host/o/r/pull/7` → `https://host/o/r`.

    The host is the PR's own, so GitHub Enterprise works as github.com does. "" when the address
    is not a PR's: sanitize_text then lets no link through.
    """
    base, separator, _ = pr_url.rpartition("/pull/")
    return base if separator and _parse_repo(base) else ""


def _points_into(url: str, repos: Sequence[_Repo]) -> bool:
    """True for a URL of one of the repositories: same scheme and host, a path inside the repository."""
    # A second scheme or a backslash is how look-alikes smuggle another host past a parser.
    if "://" in url.partition("://")[2] or "\\" in url:
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    path = unquote(parts.path)
    if any(segment in (".", "..") for segment in path.split("/")):
        return False  # /o/r/../../evil/x leaves the repository
    lowered = path.lower()
    return any(
        parts.scheme.lower() == repo.scheme
        and parts.netloc.lower() == repo.host
        and (lowered == repo.path or lowered.startswith(repo.path + "/"))
        for repo in repos
    )


def _link(label: str, target: str, repos: Sequence[_Repo]) -> str:
    """A link as plain text: its label, and its URL only when that points into the repository."""
    words = target.strip().strip("<>").split()
    url = words[0] if words else ""
    label = label.strip()
    if url and _points_into(url, repos):
        return url if label in ("", url) else f"{label} ({url})"
    return label


def _fold(text: str) -> tuple[str, Sequence[int]]:
    """`text` NFKC-normalised and case-folded, with the index in `text` of each folded character."""
    if text.isascii():
        return text.lower(), range(len(text))
    parts: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        folded = unicodedata.normalize("NFKC", char).casefold()
        parts.append(folded)
        origin.extend([index] * len(folded))
    return "".join(parts), origin


def _without_mass_mentions(line: str) -> str:
    if not any(sign in line for sign in _AT_SIGNS):
        return line
    folded, origin = _fold(line)
    kept: list[str] = []
    start = 0
    for match in _MASS_MENTION.finditer(folded):
        begin, end = max(origin[match.start()], start), origin[match.end() - 1] + 1
        kept.append(line[start:begin])
        start = end
    kept.append(line[start:])
    return "".join(kept)


def _without_slack_tokens(line: str) -> str:
    """`line` without `<!…>`, `<@…>` and `<#…>`, nested ones whole: `<<!here>!channel>` goes entirely.

    One pass with a stack of the `<` that may still open a token (removing the inner token lets
    the outer one close), where a substitution repeated until nothing changes took one pass of
    the line per level of nesting.
    """
    kept: list[str] = []
    opens: list[int] = []  # where in `kept` each such `<` stands, innermost last
    for char in line:
        if char == ">" and opens and len(kept) > opens[-1] + 1 and kept[opens[-1] + 1] in _TOKEN_SIGILS:
            del kept[opens.pop() :]
            continue
        if char in ">\n":
            opens.clear()  # a token holds neither: no `<` before this one can open one any more
        elif char == "<":
            opens.append(len(kept))
        kept.append(char)
    return "".join(kept)


def _strip_once(line: str, repos: Sequence[_Repo]) -> str:
    """One pass of every rule over one line."""
    # Nested tokens (`<<!here>!channel>`) go whole before a stray `<` is dropped from them.
    line = _without_slack_tokens(line)

    def slack_link(match: re.Match[str]) -> str:
        target = match[1].strip()
        if not (_LOOKS_LIKE_URL.match(target) or _LINK_TARGET.match(target)):
            return match[0]  # `List<T>` is code, not a link
        return _link(match[2] or "", match[1], repos)

    def markdown_link(match: re.Match[str]) -> str:
        target = match[2].strip().lstrip("<")
        if not (_LOOKS_LIKE_URL.match(target) or _LINK_TARGET.match(target) or _MARKDOWN_TARGET.match(target)):
            return match[0]  # `handlers[name](event)` is code, not a link
        return _link(match[1], match[2], repos)

    def bare_url(match: re.Match[str]) -> str:
        lead = match["lead"] or ""
        found = match[0][len(lead) :]
        url = found.rstrip(_SENTENCE_PUNCTUATION)
        return lead + (found if _points_into(url, repos) else found[len(url) :])

    line = _SLACK_LINK.sub(slack_link, line)
    line = _MARKDOWN_LINK.sub(markdown_link, line)
    line = _SCRIPT_URL.sub("", line)
    line = _BARE_URL.sub(bare_url, line)
    line = _without_mass_mentions(line)
    return _TOKEN_OPENER.sub("", line)


def _tidy(line: str, indent: str) -> str:
    """What a removal leaves: doubled spaces, a space before a comma; the line keeps its indent."""
    line = _SPACE_BEFORE_PUNCTUATION.sub("", _RUNS_OF_SPACES.sub(" ", line))
    return indent + line.strip()


def _sanitize_line(line: str, repos: Sequence[_Repo]) -> str | None:
    """The line made safe, or None when nothing of it may be shown."""
    if _REFERENCE_DEFINITION.fullmatch(line):
        return None
    indent = line[: len(line) - len(line.lstrip())]
    current = line
    for _ in range(MAX_PASSES):
        stripped = _strip_once(current, repos)
        if stripped == current:
            break
        current = _tidy(stripped, indent)
    else:
        return None
    if current != line and not any(char.isalnum() for char in current):
        return None  # only the punctuation around what was removed is left
    return current


def sanitize_text(text: str, repo_url: str, *more_repo_urls: str) -> str:
    """Model-written text without mentions, foreign links or prompt echoes.

    Links survive only into the repositories given by their web address
    (`https://github.com/owner/name`); a removed link leaves its label.
    """
    repos = tuple(repo for repo in map(_parse_repo, (repo_url, *more_repo_urls)) if repo is not None)
    lines = [
        line for line in (_sanitize_line(line, repos) for line in clean_text(text).split("\n")) if line is not None
    ]
    kept = (line for line in without_echoes(lines) if line is not None)
    return _BLANK_LINES.sub("\n\n", "\n".join(kept)).strip()


def _model_text(text: str, repo_url: str, *more_repo_urls: str) -> str:
    """sanitize_text of what the model wrote, without its template's tokens and thinking first
    (core/checks/templates.py); "" when that leaves nothing usable. Both rules run until neither changes
    anything, since a removal by one can join the halves of the other's (`<<bos>!here>`, `<|im_<!here>end|>`)."""
    current = text
    for _ in range(MAX_MODEL_TEXT_ROUNDS):
        cleaned = sanitize_text(without_template(clean_text(current)), repo_url, *more_repo_urls)
        if cleaned == current:
            return cleaned
        current = cleaned
    return ""


def sanitize_answer(text: str, repo_url: str, *more_repo_urls: str) -> str | None:
    """A model's whole answer made safe to post, or None when nothing usable is left of it: empty
    once sanitized, mostly chat-template tokens (core/checks/templates.py), or data rather than words (a
    JSON value, a card: core/checks/prose.py)."""
    cleaned = sanitize_sentence(text, repo_url, *more_repo_urls)
    return None if cleaned is None or is_data(cleaned) else cleaned


def sanitize_sentence(text: str, repo_url: str, *more_repo_urls: str) -> str | None:
    """One part of a model's answer made safe to post (a streamed sentence, core/checks/sentence_release.py), or
    None when nothing is left of it. A part may quote JSON: only a whole answer is held to be prose.
    Capped after cleaning, so the cap never splits a token the cleaning would have removed whole."""
    cleaned = _model_text(text, repo_url, *more_repo_urls)
    return cleaned[:ANSWER_MAX_CHARS].rstrip() or None


def _one_line(text: str, repo_url: str, *, model_written: bool = True) -> str:
    # Collapse whitespace after sanitizing too: a removed character can leave two spaces, and
    # sanitizing a card twice must give the same card.
    line = " ".join(text.split())
    return " ".join((_model_text(line, repo_url) if model_written else sanitize_text(line, repo_url)).split())


def sanitize_card(card: Card, repo_url: str, *, untitled: str, fallback_headline: str = "") -> Card:
    """The card with its headline and every point sanitized; points left empty are dropped.

    A model's card loses its chat template's tokens too; a heuristic card's text is ours and the
    PR's (a title may well name `<think>`), so it keeps them. A headline left empty becomes
    `fallback_headline` (the PR's title: sanitized, never stripped of tokens), else `untitled`, the
    card language's placeholder as the caller words it (the card's slot must not be empty).
    """
    model_written = card.source == "llm"
    headline = _one_line(card.headline, repo_url, model_written=model_written)
    why, caveats, watch = (
        [_one_line(item, repo_url, model_written=model_written) for item in items]
        for items in (card.why, card.caveats, card.watch)
    )
    # A recital spread over the headline and the points is still one: the card is checked whole.
    kept = without_echoes([headline, *why, *caveats, *watch])
    rest = iter(kept[1:])

    def take(count: int) -> tuple[str, ...]:
        return tuple(point for point in itertools.islice(rest, count) if point)

    return replace(
        card,
        headline=kept[0] or _one_line(fallback_headline, repo_url, model_written=False) or untitled,
        why=take(len(why)),
        caveats=take(len(caveats)),
        watch=take(len(watch)),
        sanitized=SANITIZE_RULES,
    )


def sanitized_card(card: Card, repo_url: str, *, untitled: str, fallback_headline: str = "") -> Card:
    """The card as readers may see it: as it is when it was sanitized under today's rules (its
    repository and title are those of its key, so the result would be the same), else sanitize_card."""
    if card.sanitized == SANITIZE_RULES:
        return card
    return sanitize_card(card, repo_url, untitled=untitled, fallback_headline=fallback_headline)
