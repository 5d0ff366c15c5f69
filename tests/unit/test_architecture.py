"""The shape of the code, checked: which package may import which vendor, who builds clients,
and which way our own layers' imports point.

Policy (core, services, store) stays testable without any vendor; each vendor sits behind one
thin adapter; every client is made by bot/wiring/ through its adapter's one factory. Services
never read the settings (they are given values), and the ports, models and stores never import a
service, so an adapter may import a port without pulling the service layer in.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parents[2] / "bot"

# Where each vendor may be imported (paths relative to bot/).
VENDORS = {
    "openai": ("llm/",),
    "httpx2": ("llm/",),
    "httpcore2": ("llm/",),
    "github": ("sources/",),
    "requests": ("sources/",),
    "redis": ("store/redis_store.py", "queue/"),
    "dramatiq": ("queue/",),
    "prometheus_client": ("metrics.py",),
    "slack_bolt": ("slack/", "store/installations.py"),
    "slack_sdk": ("slack/", "render/", "store/installations.py"),
    "waitress": ("slack/",),
    "cryptography": ("store/sealed.py",),
}
VENDOR_FREE = ("core/", "services/", "ports/", "store/kv.py", "store/cards.py", "models/", "errors.py")
# Each client's constructor, the one module that calls it, and the factory the builder uses.
CONSTRUCTORS = {
    "OpenAI": "llm/",
    "WebClient": "slack/clients.py",
    "Github": "sources/github.py",
    "Redis": "store/redis_store.py",
    "RedisBroker": "queue/broker.py",
}
FACTORIES = ("build_openai", "build_web_client", "build_github", "RedisKV.from_url", "CardQueue", "card_queue")


def modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(BOT.rglob("*.py")):
        yield path.relative_to(BOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def imported(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def ours(tree: ast.Module) -> set[str]:
    """Every bot module imported, however spelled: `import bot.settings`, `from bot.settings import
    …` and `from bot import settings` all give "bot.settings" (function-local and type-only too)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names if alias.name.startswith("bot.")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("bot."):
                names.add(node.module)
            package = BOT.parent.joinpath(*node.module.split("."))
            if node.module.split(".")[0] == "bot" and package.is_dir():  # `from bot.services import qa`
                names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def importers(package: str, target: str) -> list[tuple[str, str]]:
    """(module, what it imports) for each module under `package` (a path under bot/) that imports
    `target` or a module inside it (a dotted name)."""
    return [
        (name, module)
        for name, tree in modules()
        if name.startswith(package)
        for module in sorted(ours(tree))
        if module == target or module.startswith(f"{target}.")
    ]


def dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else "?"


def called(tree: ast.Module) -> set[str]:
    """Every callee as written, dotted: `openai.OpenAI`, `redis.Redis.from_url`, `WebClient`."""
    return {dotted(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}


def calls(tree: ast.Module, name: str) -> bool:
    """Whether `name` (a class or function, maybe with its attribute: `Redis.from_url`) is called."""
    return any(callee == name or callee.endswith(f".{name}") or f".{name}." in callee for callee in called(tree))


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_each_vendor_is_imported_only_by_its_adapter(vendor: str) -> None:
    allowed = VENDORS[vendor]
    offenders = [
        name
        for name, tree in modules()
        if any(module.split(".")[0] == vendor for module in imported(tree)) and not name.startswith(allowed)
    ]
    assert offenders == []


def test_policy_imports_no_vendor() -> None:
    offenders = [
        (name, module)
        for name, tree in modules()
        if name.startswith(VENDOR_FREE)
        for module in imported(tree)
        if module.split(".")[0] in VENDORS
    ]
    assert offenders == []


def test_render_imports_nothing_from_services() -> None:
    offenders = [
        name
        for name, tree in modules()
        if name.startswith("render/") and any(module.startswith("bot.services") for module in imported(tree))
    ]
    assert offenders == []


@pytest.mark.parametrize("constructor", sorted(CONSTRUCTORS))
def test_each_client_is_constructed_in_one_factory(constructor: str) -> None:
    makers = [name for name, tree in modules() if calls(tree, constructor)]
    assert len(makers) == 1 and makers[0].startswith(CONSTRUCTORS[constructor]), makers


def test_only_the_wiring_calls_the_factories() -> None:
    # The model's and GitHub's clients are made at their first request, and Redis's only with
    # REDIS_URL, by their own adapters (llm/lazy.py, sources/lazy.py, store/connect.py,
    # queue/connect.py); the store is chosen in wiring/store.py.
    callers = {name for name, tree in modules() if any(calls(tree, factory) for factory in FACTORIES)}
    assert callers == {
        "wiring/process.py",
        "wiring/slack.py",
        "llm/lazy.py",
        "sources/lazy.py",
        "store/connect.py",
        "queue/connect.py",
    }


def test_the_wiring_imports_everything_at_its_top() -> None:
    # Laziness, where start-up time needs it, lives in an adapter (llm/lazy.py), not in the wiring.
    local = [
        (name, node.lineno)
        for name, tree in modules()
        if name.startswith("wiring/")
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    assert local == []


def module_name(path: str) -> str:
    return "bot." + path.removesuffix(".py").removesuffix("/__init__").replace("/", ".").removesuffix(".__init__")


def import_graph() -> dict[str, set[str]]:
    """Each bot module and the bot modules it imports (function-local and type-only included:
    a cycle hidden by them is still a cycle to the reader)."""
    trees = {module_name(name): tree for name, tree in modules()}
    return {
        name: {module for module in ours(tree) if module in trees and module != name} for name, tree in trees.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_among_bot_modules() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [{"a", "b", "c"}]


def test_the_slack_surface_imports_no_store() -> None:
    # Listeners and the app read state through services and the tenant's parts (services/tenant.py);
    # Slack's installation stores are a store family of their own (store/installations.py).
    assert importers("slack/", "bot.store") == []


# What bot/slack/ holds: the surface (listeners, app assembly, the HTTP server and its guards,
# the runner and the executor, the scheduler that only triggers, which workspace a request is
# from) and the one adapter (web.py, with clients.py that builds its client and tokens.py that
# rotates them; oauth.py hands Bolt our stores). A product rule goes to services/ instead.
SLACK_MODULES = {
    "__init__.py",
    "app.py",
    "clients.py",
    "deps.py",
    "executor.py",
    "guards.py",
    "httpd.py",
    "install_gate.py",
    "oauth.py",
    "runner.py",
    "scheduler.py",
    "server.py",
    "teams.py",
    "tokens.py",
    "web.py",
}


def test_bot_slack_holds_the_surface_and_its_adapter_only() -> None:
    found = {path.name for path in (BOT / "slack").glob("*.py")}
    assert found == SLACK_MODULES


def test_services_never_import_the_settings() -> None:
    # Settings are read once at the edge (bot/settings.py) and handed down as values; the parsers
    # and the config file's models services need live in the pure core (core/parsing.py, core/config.py).
    assert importers("services/", "bot.settings") == []


@pytest.mark.parametrize("layer", ["bot.render", "bot.slack", "bot.settings", "bot.wiring"])
def test_services_import_no_surface_render_settings_or_wiring(layer: str) -> None:
    # The rules hold for every caller (the scheduler, `prdigest digest --post`, a listener): what
    # they say comes in through a port of ours (ports/messages.py, implemented in render/), Slack
    # through ports/slack.py, and their values from whoever builds them.
    assert importers("services/", layer) == []


@pytest.mark.parametrize("package", ["ports/", "models"])
def test_ports_and_models_import_no_service(package: str) -> None:
    # Adapters import the ports (llm/openai_model.py takes Parsed and Schema): a service here
    # would point an adapter's import back up into the service layer.
    assert importers(package, "bot.services") == []


def test_the_stores_import_no_service() -> None:
    # A store keeps our values (bot/models, Vote among them) and is used by services, never the reverse.
    assert importers("store/", "bot.services") == []


# Slack's Web API client and its error translation, by name: only the adapter that speaks to
# Slack for everyone else (SlackWeb, behind ports/slack.py) and the factory that builds its client.
SLACK_ADAPTER = ("slack/web.py", "slack/clients.py")


@pytest.mark.parametrize("name", ["WebClient", "slack_errors"])
def test_only_the_slack_adapter_names_the_web_client_and_its_errors(name: str) -> None:
    offenders = [
        path.relative_to(BOT).as_posix()
        for path in sorted(BOT.rglob("*.py"))
        if name in path.read_text(encoding="utf-8") and path.relative_to(BOT).as_posix() not in SLACK_ADAPTER
    ]
    assert offenders == []


def test_the_slack_port_imports_no_vendor_and_no_service() -> None:
    tree = ast.parse((BOT / "ports" / "slack.py").read_text(encoding="utf-8"))
    assert not any(module.split(".")[0] in VENDORS or module.startswith("bot.services") for module in imported(tree))


# A public function or method takes at most this many parameters besides self/cls: values that
# travel together go as one frozen value (Pacing, CardTiming, DigestOptions…), not one by one.
MAX_PARAMETERS = 6


def parameter_counts() -> Iterator[tuple[str, int]]:
    """(dotted name, parameters besides self/cls) of every public function and method in bot/,
    `__init__` included; a dataclass's generated constructor has no `def`, so it is not counted."""

    def visit(prefix: str, body: list[ast.stmt]) -> Iterator[tuple[str, int]]:
        for node in body:
            if isinstance(node, ast.ClassDef):
                yield from visit(f"{prefix}.{node.name}", node.body)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
                not node.name.startswith("_") or node.name == "__init__"
            ):
                args = node.args
                every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
                yield f"{prefix}.{node.name}", sum(arg.arg not in ("self", "cls") for arg in every)

    for name, tree in modules():
        dotted_name = "bot." + name.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        yield from visit(dotted_name, tree.body)


def test_no_public_function_takes_more_than_six_parameters() -> None:
    over = {name for name, count in parameter_counts() if count > MAX_PARAMETERS}
    assert over == set(), "group the parameters that travel together into one value"
