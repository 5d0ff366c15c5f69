"""The README and docs/: a README a newcomer reads (short, the two commands first), links that
land, and reference pages that keep up with the code (every config key and environment variable,
every Redis key family with its TTL)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from bot.core.config import ChannelConfig, Defaults, ModelConfig, QueueConfig, SlackConfig

REPO_ROOT = Path(__file__).resolve().parents[2]
README = REPO_ROOT / "README.md"
DOCS = REPO_ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
MAX_README_LINES = 200
# The two commands that work on a fresh machine; .ci/run runs the second.
COMMANDS = (
    "make run      # set up .venv and print today's digest of vllm-project/vllm (no keys needed)",
    "make check    # set up .venv, redis-server and rabbitmq-server, then format check, lint, types and tests",
)
# Pages the README links to: one per subject a newcomer looks for.
LINKED_PAGES = {
    "cli.md",
    "configuration.md",
    "slack-app.md",
    "deployment.md",
    "operations.md",
    "models.md",
    "reliability.md",
    "benchmarks.md",
    "architecture.md",
}


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_the_readme_is_short_and_opens_with_the_two_commands() -> None:
    lines = text(README).splitlines()
    assert len(lines) <= MAX_README_LINES
    assert lines[:6] == ["# prdigest", "", "```sh", *COMMANDS, "```"]
    assert re.search(r"^make check$", text(REPO_ROOT / ".ci" / "run"), flags=re.MULTILINE)


def test_no_keys_needed_says_what_a_token_and_a_model_key_change() -> None:
    section = text(README).split("## No keys needed", 1)[1].split("\n## ", 1)[0]
    assert "60 requests an hour without a token" in section and "5,000 with one" in section
    assert "with a model key, cards are written by the model" in section
    assert "from the PR's\n  metadata" in section or "from the PR's metadata" in section


def test_the_readme_links_every_docs_page() -> None:
    linked = set(re.findall(r"\]\(docs/([a-z-]+\.md)[)#]", text(README)))
    assert linked >= LINKED_PAGES
    assert linked <= {path.name for path in DOCS.glob("*.md")}


def slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    heading = re.sub(r"`", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", heading).replace(" ", "-")


def outside_code(page: str) -> str:
    """The page without its fenced blocks, whose `#` lines are comments, not headings."""
    return re.sub(r"^```.*?^```", "", page, flags=re.MULTILINE | re.DOTALL)


def anchors(path: Path) -> set[str]:
    return {slug(h) for h in re.findall(r"^#{1,6} (.+)$", outside_code(text(path)), flags=re.MULTILINE)}


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.name)
def test_every_relative_link_lands_on_a_file_and_a_section(page: Path) -> None:
    for target in re.findall(r"\]\(([^)\s]+)\)", outside_code(text(page))):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.exists(), f"{page.name}: {target}"
        if anchor and resolved.suffix == ".md":
            assert anchor in anchors(resolved), f"{page.name}: {target}: no such section"


CONFIG_TABLES: list[tuple[str, type[BaseModel]]] = [
    ("defaults", Defaults),
    ("slack", SlackConfig),
    ("queue", QueueConfig),
    ("channels", ChannelConfig),
    ("models", ModelConfig),
]


@pytest.mark.parametrize(("table", "model"), CONFIG_TABLES, ids=[table for table, _ in CONFIG_TABLES])
def test_every_config_key_is_documented(table: str, model: type[BaseModel]) -> None:
    page = text(DOCS / "configuration.md")
    missing = [key for key in model.model_fields if f"`{key}`" not in page]
    assert missing == [], f"docs/configuration.md does not document [{table}] {missing}"


def test_every_environment_variable_settings_read_is_documented() -> None:
    source = text(REPO_ROOT / "bot" / "settings.py")
    names = set(re.findall(r'env\.get\("([A-Z_]+)"', source)) | set(re.findall(r'"([A-Z_]+)" in env\b', source))
    page = text(DOCS / "configuration.md").split("## Environment", 1)[1].split("\n## ", 1)[0]
    names -= {"HOME", "XDG_CACHE_HOME"}  # where a user's cache directory is: named with the cache, not a key
    assert names and [name for name in sorted(names) if f"`{name}`" not in page] == []


# Strings that look like a key's first segment but are not keys: ledger fields and token
# scopes (documented with their key), a log line's request id, URLs.
NOT_KEY_FAMILIES = {"for", "repo", "part", "pending", "replying", "https", "prdigest", "job"}


# The feature packages (tests/unit/test_architecture.py FEATURES).
FEATURES = (
    *("access", "across", "cards", "channels", "digests", "eval"),
    *("questions", "releases", "unfurls", "watches", "workspaces"),
)


def key_families() -> set[str]:
    # The stores and the queue, and the features, which name a few keys of their own.
    sources = [*(REPO_ROOT / "bot" / "store").rglob("*.py"), *(REPO_ROOT / "bot" / "queue").glob("*.py")]
    sources += [path for feature in FEATURES for path in (REPO_ROOT / "bot" / feature).glob("*.py")]
    found = {name for path in sources for name in re.findall(r'f?"([a-z_]+):', text(path))}
    return found - NOT_KEY_FAMILIES


def test_the_operations_page_lists_every_redis_key_family_with_its_ttl() -> None:
    page = text(DOCS / "operations.md")
    families = key_families()
    assert {"card", "snapshot", "ledger", "seen", "tokens"} <= families
    assert [name for name in sorted(families) if not re.search(rf"`[^`]*\b{name}:", page)] == []
    table = page.split("## Redis keys", 1)[1].split("### The card queue", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| family")]
    assert len(rows) > 20
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split(" | ")]
        if set(cells[0]) <= {"-", " "}:
            continue  # the header's rule
        family, key, ttl = cells[:3]
        assert key.startswith("`") and ttl, f"{family}: no key or no TTL"
