"""The shape of the code, checked: which package may import which vendor, who builds clients,
and which way our own layers' imports point.

Policy (core, the feature packages, store) stays testable without any vendor; each vendor sits
behind one thin adapter; every client is made by bot/wiring/ through its adapter's one factory.
Core, below every feature, imports the standard library, pydantic, our values and errors only:
no words (bot/words) and no vendor.
Features never read the settings (they are given values), and the ports, models and stores never
import a feature, so an adapter may import a port without pulling a feature in. The root of bot/
holds the settings and the errors alone: every other module lives in the package of its job.
"""

from __future__ import annotations

import ast
import sys
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
    "redis": ("store/backends/redis_store.py", "store/backends/redis_client.py", "queue/"),
    "dramatiq": ("queue/",),
    "pika": ("queue/backends.py",),
    "prometheus_client": ("ops/metrics.py",),
    # http/server.py serves Bolt's app over WSGI and checks Slack's signatures before Bolt does.
    "slack_bolt": ("slack/", "http/server.py", "store/installations.py"),
    "slack_sdk": ("slack/", "http/server.py", "render/", "store/installations.py"),
    "waitress": ("http/",),
    # The store seals workspace tokens; the GitHub adapter reads a GitHub App's private key.
    "cryptography": ("store/sealed.py", "sources/github_app.py"),
}
# The feature packages: each a product capability, its rules and its steps (docs/architecture.md).
FEATURES = (
    "access/",
    "spending/",
    "cards/",
    "channels/",
    "digests/",
    "eval/",
    "questions/",
    "releases/",
    "unfurls/",
    "watches/",
    "workspaces/",
)
FEATURE_PACKAGES = tuple("bot." + feature.rstrip("/") for feature in FEATURES)
VENDOR_FREE = ("core/", *FEATURES, "ports/", "store/kv.py", "store/repos/cards.py", "models/", "errors.py")
# Each client's constructor, the one module that calls it, and the factory the builder uses.
CONSTRUCTORS = {
    "OpenAI": "llm/",
    "WebClient": "slack/clients.py",
    "Github": "sources/github.py",
    "GithubIntegration": "sources/github_app.py",
    "Redis": "store/backends/redis_client.py",
    "RedisCluster": "store/backends/redis_client.py",
    "RedisBroker": "queue/backends.py",
    "RabbitmqBroker": "queue/backends.py",
}
FACTORIES = (
    "build_openai",
    "build_web_client",
    "build_github",
    "build_github_app",
    "RedisKV.from_url",
    "CardQueue",
    "card_queue",
)


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
            if node.module.split(".")[0] == "bot" and package.is_dir():  # `from bot.questions import qa`
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


# What bot/core/ may import besides the standard library: pydantic (the card's schema, the config
# file's models) and the values and errors below it. No words: a sentence core needs (a card's
# "untitled", the file count as a card says it) is worded by its caller, or the part that words a
# card lives in its feature (cards/heuristic/). No vendor: core is the rules every layer shares.
CORE_THIRD_PARTY = frozenset({"pydantic", "pydantic_core"})
CORE_OURS = ("bot.core", "bot.models", "bot.errors")


def core_may_import(module: str) -> bool:
    top = module.partition(".")[0]
    if top == "bot":  # `from bot import x` is judged by what it names (ours() spells it bot.x)
        return module == "bot" or any(module == allowed or module.startswith(f"{allowed}.") for allowed in CORE_OURS)
    return top in sys.stdlib_module_names or top in CORE_THIRD_PARTY


def test_core_imports_neither_words_nor_a_vendor() -> None:
    offenders = [
        (name, module)
        for name, tree in modules()
        if name.startswith("core/")
        for module in sorted(imported(tree) | ours(tree))
        if not core_may_import(module)
    ]
    assert offenders == []


def test_render_imports_nothing_from_features() -> None:
    offenders = [
        name
        for name, tree in modules()
        if name.startswith("render/") and any(module.startswith(FEATURE_PACKAGES) for module in imported(tree))
    ]
    assert offenders == []


# The root of bot/ holds what every package shares and nothing else.
ROOT_MODULES = {"__init__.py", "settings.py", "errors.py"}


def test_the_root_holds_the_settings_and_the_errors_only() -> None:
    assert {path.name for path in BOT.glob("*.py")} == ROOT_MODULES


@pytest.mark.parametrize("constructor", sorted(CONSTRUCTORS))
def test_each_client_is_constructed_in_one_factory(constructor: str) -> None:
    makers = [name for name, tree in modules() if calls(tree, constructor)]
    assert len(makers) == 1 and makers[0].startswith(CONSTRUCTORS[constructor]), makers


def test_only_the_wiring_calls_the_factories() -> None:
    # The model's and GitHub's clients are made at their first request, and Redis's only with
    # REDIS_URL, by their own adapters (llm/lazy.py, sources/lazy.py, store/backends/connect.py,
    # queue/connect.py); the store is chosen in wiring/store.py.
    callers = {name for name, tree in modules() if any(calls(tree, factory) for factory in FACTORIES)}
    assert callers == {
        "wiring/process.py",
        "wiring/slack.py",
        "llm/lazy.py",
        "sources/lazy.py",
        "store/backends/connect.py",
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
    # Listeners and the app read state through services and the tenant's parts (workspaces/tenant.py);
    # Slack's installation stores are a store family of their own (store/installations.py).
    assert importers("slack/", "bot.store") == []


# What bot/slack/ holds: the surface (listeners, app assembly, its guards, the runner and the
# executor, which workspace a request is from) and the one adapter (web.py, with clients.py that
# builds its client and tokens.py that rotates them; oauth.py hands Bolt our stores). The HTTP
# server is bot/http/'s, the scheduler bot/jobs/'s; a product rule goes to its feature instead.
SLACK_MODULES = {
    "__init__.py",
    "app.py",
    "clients.py",
    "deps.py",
    "executor.py",
    "guards.py",
    "oauth.py",
    "tokens.py",
    "web.py",
}


def test_bot_slack_holds_the_surface_and_its_adapter_only() -> None:
    found = {path.name for path in (BOT / "slack").glob("*.py")}
    assert found == SLACK_MODULES


@pytest.mark.parametrize("feature", FEATURES)
def test_features_never_import_the_settings(feature: str) -> None:
    # Settings are read once at the edge (bot/settings.py) and handed down as values; the parsers
    # and the config file's models features need live in the pure core (core/strings/parsing.py, core/config.py).
    assert importers(feature, "bot.settings") == []


@pytest.mark.parametrize(
    "layer", ["bot.render", "bot.slack", "bot.settings", "bot.wiring", "bot.cli", "bot.http", "bot.jobs"]
)
@pytest.mark.parametrize("feature", FEATURES)
def test_features_import_no_surface_render_settings_or_wiring(feature: str, layer: str) -> None:
    # The rules hold for every caller (the scheduler, `prdigest digest --post`, a listener): what
    # they say comes in through a port of ours (ports/messages.py, implemented in render/), Slack
    # through ports/slack.py, and their values from whoever builds them.
    assert importers(feature, layer) == []


@pytest.mark.parametrize("feature", FEATURE_PACKAGES)
@pytest.mark.parametrize("package", ["ports/", "models", "store/", "core/"])
def test_ports_models_stores_and_core_import_no_feature(package: str, feature: str) -> None:
    # Adapters import the ports (llm/openai_model.py takes Parsed and Schema): a feature here
    # would point an adapter's import back up into the features; a store keeps our values (bot/models,
    # Vote among them) and is used by features, never the reverse; core is below them all.
    assert importers(package, feature) == []


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
    assert not any(module.split(".")[0] in VENDORS or module.startswith(FEATURE_PACKAGES) for module in imported(tree))


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


# -- the doors ---------------------------------------------------------------------------------


def tenant_fields() -> dict[str, str]:
    """Each field of the Tenant (workspaces/tenant.py), and the module its type comes from."""
    tree = ast.parse((BOT / "workspaces" / "tenant.py").read_text(encoding="utf-8"))
    origin = {
        alias.asname or alias.name: node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    (tenant,) = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Tenant"]
    fields: dict[str, str] = {}
    for item in tenant.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            named = [node.id for node in ast.walk(item.annotation) if isinstance(node, ast.Name) and node.id in origin]
            fields[item.target.id] = origin[named[0]] if named else "builtins"
        elif isinstance(item, ast.FunctionDef):
            fields[item.name] = "bot.workspaces.tenant"
    return fields


def test_the_tenant_holds_doors_not_stores() -> None:
    # A surface reaches a workspace's state through a feature's call, never a store's.
    stores = {name: module for name, module in tenant_fields().items() if module.startswith("bot.store")}
    assert stores == {}


def test_nothing_below_the_composition_root_sees_the_tenant() -> None:
    # The Tenant is the wiring's bundle of one workspace's doors, handed to the surfaces; a
    # feature given it (or a function returning it) would call back up into the composition root.
    users = [
        name
        for name, tree in modules()
        if name.startswith(tuple(FEATURES))
        and name not in ("workspaces/tenant.py", "workspaces/__init__.py")
        and "bot.workspaces.tenant" in ours(tree)
    ]
    assert users == []


def _body(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """The nodes of `function`'s own body (lambdas included, nested functions not)."""
    stack: list[ast.AST] = [node for node in function.body if not isinstance(node, ast.FunctionDef | ast.ClassDef)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(
            child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.FunctionDef | ast.ClassDef)
        )


def _chain(node: ast.expr) -> list[str]:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return parts[::-1]


def listener_callees(tree: ast.Module) -> dict[str, set[str]]:
    """Per function of a listener module, the bot/ modules it calls (outside bot/slack/, and
    besides bot/words, bot/models and bot/errors): a name
    imported from a module (a module imported by name counts as itself), and a call through one
    of the Tenant's doors (`deps.tenant.lookup.card(…)`, or a local bound to `….tenant` or to a
    door) as the door's module."""
    fields = tenant_fields()
    origin: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bot"):
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                is_module = (BOT.parent / (submodule.replace(".", "/") + ".py")).exists()
                origin[alias.asname or alias.name] = submodule if is_module else node.module
    found: dict[str, set[str]] = {}
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        doors: dict[str, str] = {}  # locals bound to a door, or to the tenant ("")
        for node in _body(function):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = _chain(node.value) if isinstance(node.value, ast.Attribute | ast.Name) else []
                if value[-1:] == ["tenant"]:
                    doors[node.targets[0].id] = ""
                elif len(value) >= 2 and value[-2] == "tenant" and value[-1] in fields:
                    doors[node.targets[0].id] = fields[value[-1]]
        modules_called: set[str] = set()
        for node in _body(function):
            if not isinstance(node, ast.Call):
                continue
            parts = _chain(node.func)
            if not parts:
                continue
            if parts[0] in doors and doors[parts[0]]:
                modules_called.add(doors[parts[0]])
            elif "tenant" in parts or (parts[0] in doors and doors[parts[0]] == ""):
                at = parts.index("tenant") + 1 if "tenant" in parts else 1
                if at < len(parts) and parts[at] in fields:
                    modules_called.add(fields[parts[at]])
            elif parts[0] in origin:
                modules_called.add(origin[parts[0]])
        # Sentences, values and errors are what a surface may import freely: not steps.
        free = ("bot.slack", "bot.words", "bot.models", "bot.errors")
        found[function.name] = {module for module in modules_called if not module.startswith(free)}
    return found


def listeners() -> Iterator[tuple[str, dict[str, set[str]]]]:
    for name, tree in modules():
        if name.startswith("slack/listeners/") and name != "slack/listeners/__init__.py":
            yield name.removeprefix("slack/listeners/"), listener_callees(tree)


# A listener reads Slack's payload, calls a door, renders and responds: at most this many bot/
# modules (outside bot/slack/) called from one listener function.
MAX_LISTENER_CALLEES = 3


def test_no_listener_calls_more_than_three_project_modules() -> None:
    counts = {
        f"{module}:{function}": len(called)
        for module, functions in listeners()
        for function, called in functions.items()
    }
    over = {name: count for name, count in counts.items() if count > MAX_LISTENER_CALLEES}
    assert over == {}, "move the coordination behind the feature's door"


def test_the_pr_command_calls_three_project_modules() -> None:
    # `/pr owner/repo#N`, from the payload to the response_url: the door, the words, the count.
    (functions,) = [functions for module, functions in listeners() if module == "commands.py"]
    assert set().union(*functions.values()) == {"bot.cards", "bot.render.slack.replies", "bot.ops.telemetry"}


def test_the_listener_rule_sees_calls_through_doors() -> None:
    tree = ast.parse(
        "from bot.render.slack import replies\n"
        "from bot.core.refs import parse_ref\n"
        "def on(deps):\n"
        "    lookup = deps.tenant.lookup\n"
        "    tenant = deps.tenant\n"
        "    lookup.card(1)\n"
        "    tenant.votes.vote(2)\n"
        "    replies.say('en', 'x')\n"
        "    parse_ref('#1', None)\n"
        "    deps.tenant.directory.language('C1')\n"
    )
    # A door counts as one module, whichever of its calls is made.
    assert listener_callees(tree)["on"] == {
        "bot.cards",
        "bot.digests",
        "bot.render.slack.replies",
        "bot.core.refs",
        "bot.channels",
    }


def doors_passed(name: str, tree: ast.Module) -> list[str]:
    """The feature modules `name` imports past their door (`bot.cards.service` rather than
    `bot.cards`), other than its own feature's."""
    own = name.split("/", maxsplit=1)[0]
    found = []
    for node in ast.walk(tree):
        modules_named = (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module]
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
            else []
        )
        for module in modules_named:
            parts = module.split(".")
            if len(parts) > 2 and parts[0] == "bot" and f"{parts[1]}/" in FEATURES and parts[1] != own:
                found.append(module)
    return found


@pytest.mark.parametrize("surface", ["slack/", "cli/", "http/", "jobs/"])
def test_surfaces_reach_a_feature_only_through_its_door(surface: str) -> None:
    # A feature's __init__ exports the calls others may make; what is behind it may change freely.
    passed = {
        name: found for name, tree in modules() if name.startswith(surface) if (found := doors_passed(name, tree))
    }
    assert passed == {}


def test_features_reach_each_other_only_through_their_doors() -> None:
    passed = {
        name: found for name, tree in modules() if name.startswith(FEATURES) if (found := doors_passed(name, tree))
    }
    assert passed == {}


def feature_graph() -> dict[str, set[str]]:
    """Which feature imports which (through its door), from every module of each."""
    graph: dict[str, set[str]] = {feature.rstrip("/"): set() for feature in FEATURES}
    for name, tree in modules():
        own = name.split("/")[0]
        if own not in graph:
            continue
        for module in ours(tree):
            other = module.split(".")[1] if module.count(".") >= 1 else ""
            if other in graph and other != own:
                graph[own].add(other)
    return graph


def test_the_features_import_each_other_without_a_cycle() -> None:
    # A door imports its feature's modules when it is first imported: two features that import
    # each other's doors would find one of them half built.
    graph = {f"bot.{feature}": {f"bot.{other}" for other in others} for feature, others in feature_graph().items()}
    assert cycles(graph) == []
