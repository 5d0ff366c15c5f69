"""The files a deployer copies, in step with prdigest and with each other: docker-compose.yml (ports
for the proxy only, the same grace period as the k8s pods), the Dockerfile's command, .env.example
(every key settings read, and no other), the Slack manifests' usage hint (what `/pr` takes), and
every pointer into docs/ from these files."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.slack.listeners import release, subscribe, watch

REPO_ROOT = Path(__file__).resolve().parents[2]
K8S = REPO_ROOT / "deploy" / "k8s"
MANIFESTS = ("manifest.yml", "manifest.socket.yml", "manifest.oauth.yml")
# Read by settings but the user's own, not prdigest's to document as a key: no-color.org's switch,
# and where a user's cache directory is (XDG's base directories).
USER_ENVIRONMENT = {"NO_COLOR", "XDG_CACHE_HOME", "HOME"}


def compose() -> dict[str, Any]:
    return yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text(encoding="utf-8"))


def k8s_deployments() -> list[dict[str, Any]]:
    """The Deployments the kustomization applies (not the examples beside them)."""
    paths = [path for path in sorted(K8S.glob("*.yaml")) if "example" not in path.name]
    docs = [doc for path in paths for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]
    return [doc for doc in docs if doc["kind"] == "Deployment"]


def seconds(duration: str) -> int:
    """A compose duration such as 150s, 2m30s or 2m."""
    match = re.fullmatch(r"(?:(\d+)m)?(?:(\d+)s)?", duration)
    assert match and duration, f"not a duration compose reads the same way: {duration!r}"
    return int(match[1] or 0) * 60 + int(match[2] or 0)


def test_compose_publishes_every_port_on_loopback_only() -> None:
    """The port is for the HTTPS proxy on the host: "3000:3000" would open it on every interface."""
    for name, service in compose()["services"].items():
        for port in service.get("ports", []):
            assert isinstance(port, str) and port.startswith("127.0.0.1:"), f"{name} publishes {port!r}"


def test_compose_gives_the_bot_the_grace_period_the_k8s_pods_get() -> None:
    graces = {doc["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] for doc in k8s_deployments()}
    assert len(graces) == 1
    bot = compose()["services"]["bot"]
    assert seconds(bot["stop_grace_period"]) == graces.pop()


def dockerfile_command() -> list[str]:
    (line,) = [
        line for line in (REPO_ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines() if line.startswith("CMD ")
    ]
    command: list[str] = json.loads(line.removeprefix("CMD "))
    return command


def test_the_image_and_the_serve_pods_bind_every_interface() -> None:
    """`serve` alone listens on loopback, which nothing outside a container reaches."""
    commands = [dockerfile_command()]
    commands += [doc["spec"]["template"]["spec"]["containers"][0]["command"] for doc in k8s_deployments()]
    serving = [command for command in commands if command[:2] == ["prdigest", "serve"]]
    assert len(serving) == 2
    for command in serving:
        assert command[command.index("--host") + 1] == "0.0.0.0", command
    assert "command" not in compose()["services"]["bot"]  # the image's command, with its --host


def settings_reads() -> set[str]:
    source = (REPO_ROOT / "bot" / "settings.py").read_text(encoding="utf-8")
    names = set(re.findall(r'env\.get\("([A-Z_]+)"', source)) | set(re.findall(r'"([A-Z_]+)" in env\b', source))
    return names - USER_ENVIRONMENT


def env_example_keys() -> set[str]:
    """NAME= lines, set or commented out (`# NAME=`: documented, left unset on purpose)."""
    text = (REPO_ROOT / ".env.example").read_text(encoding="utf-8")
    return set(re.findall(r"^(?:# )?([A-Z][A-Z0-9_]*)=", text, flags=re.MULTILINE))


def test_the_env_example_names_every_variable_settings_read_and_no_other() -> None:
    reads = settings_reads()
    assert {"GITHUB_WEBHOOK_SECRET", "REDIS_URL", "SLACK_SIGNING_SECRET"} <= reads
    keys = env_example_keys()
    assert not reads - keys, f".env.example lacks {sorted(reads - keys)}"
    assert not keys - reads, f".env.example names what settings never read: {sorted(keys - reads)}"


def usage_hint(name: str) -> str:
    manifest = yaml.safe_load((REPO_ROOT / "config" / name).read_text(encoding="utf-8"))
    (command,) = manifest["features"]["slash_commands"]
    hint: str = command["usage_hint"]
    return hint


@pytest.mark.parametrize("name", MANIFESTS)
def test_the_usage_hint_offers_what_the_command_takes(name: str) -> None:
    """Slack shows the hint as people type `/pr `: it names follow and settings, and no word the
    command would read as a PR reference."""
    hint = usage_hint(name)
    assert hint == usage_hint(MANIFESTS[0])
    words = {word.split()[0] for word in re.split(r", (?:or )?", hint) if word.split()[0].isalpha()}
    words -= {"a"}  # "a PR URL"
    handled = set(subscribe.SUBCOMMANDS) | set(watch.SUBCOMMANDS) | set(release.SUBCOMMANDS) | {"help"}
    assert words <= handled, f"{name} offers {sorted(words - handled)}"
    assert {"follow", "following", "settings", "digest", "release", "watch", "help"} <= words


def slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    headings = re.findall(r"^#{1,6} (.+)$", page.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return {slug(heading) for heading in headings}


POINTING_FILES = [
    REPO_ROOT / "docker-compose.yml",
    REPO_ROOT / "Dockerfile",
    REPO_ROOT / ".env.example",
    *sorted(K8S.iterdir()),
    *(REPO_ROOT / "config" / name for name in MANIFESTS),
]


@pytest.mark.parametrize("path", POINTING_FILES, ids=lambda path: path.name)
def test_every_pointer_into_the_docs_names_a_page_and_a_section_that_exist(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert "README" not in text.replace("README.md /src/", ""), "point to the docs page that holds it"
    for page, anchor in re.findall(r"\b(docs/[a-z-]+\.md)(?:#([a-z0-9-]+))?", text):
        assert (REPO_ROOT / page).is_file(), page
        if anchor:
            assert anchor in anchors(REPO_ROOT / page), f"{page} has no section #{anchor}"


def test_the_kustomization_points_to_the_section_with_the_steps() -> None:
    text = (K8S / "kustomization.yaml").read_text(encoding="utf-8")
    (page, anchor) = re.findall(r"\b(docs/[a-z-]+\.md)#([a-z0-9-]+)", text)[0]
    content = (REPO_ROOT / page).read_text(encoding="utf-8")
    sections = re.split(r"^(#{1,6} .+)$", content, flags=re.MULTILINE)
    (body,) = [sections[i + 1] for i in range(1, len(sections), 2) if slug(sections[i].lstrip("#")) == anchor]
    for step in ("kubectl create namespace prdigest", "create secret generic prdigest", "kubectl apply -k deploy/k8s/"):
        assert step in body, f"{page}#{anchor} lacks `{step}`"
