"""The Kubernetes manifests under deploy/k8s/: valid for Kubernetes, offline (kubernetes-validate
ships the schemas), and in step with prdigest: its commands, port, probes, environment, config
loader and shutdown time."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from bot.cli.main import build_parser
from bot.settings import load_settings

REPO_ROOT = Path(__file__).resolve().parents[2]
K8S = REPO_ROOT / "deploy" / "k8s"
# The oldest Kubernetes the manifests are for, and a newer one, so a field or an API version
# that one of them lacks shows either way.
KUBERNETES_VERSIONS = ("1.30", "1.33")
SECRET = "prdigest"
PLACEHOLDER = "REPLACE_ME"
APP_PORT = 3000  # `prdigest serve --port`'s default, and docker-compose's
SECRET_NAME = re.compile(r"TOKEN|SECRET|KEY|PASSWORD|REDIS_URL")

Doc = dict[str, Any]


def load(path: Path) -> list[Doc]:
    return [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]


KUSTOMIZATION: Doc = load(K8S / "kustomization.yaml")[0]


def env_file(path: Path) -> dict[str, str]:
    """A kustomize `envs` file: NAME=value lines; blank lines and `#` comments skipped."""
    pairs = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            pairs[name.strip()] = value
    return pairs


def generated_configmaps() -> list[Doc]:
    """The ConfigMaps kustomization.yaml's configMapGenerator makes (before the hash suffix)."""
    made = []
    for generator in KUSTOMIZATION.get("configMapGenerator", []):
        data: dict[str, str] = {}
        for name in generator.get("files", []):
            data[Path(name).name] = (K8S / name).read_text(encoding="utf-8")
        for name in generator.get("envs", []):
            data.update(env_file(K8S / name))
        for literal in generator.get("literals", []):
            key, _, value = literal.partition("=")
            data[key] = value
        made.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": generator["name"]}, "data": data})
    return made


APPLIED: list[Doc] = [doc for name in KUSTOMIZATION["resources"] for doc in load(K8S / name)] + generated_configmaps()
EXAMPLES: list[Doc] = [doc for path in sorted(K8S.glob("*example*.yaml")) for doc in load(path)]


def one(kind: str, name: str, docs: list[Doc] = APPLIED) -> Doc:
    found = [doc for doc in docs if doc["kind"] == kind and doc["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind} {name}, found {len(found)}"
    return found[0]


def deployments() -> list[Doc]:
    return [doc for doc in APPLIED if doc["kind"] == "Deployment"]


def container(deployment: Doc) -> Doc:
    (only,) = deployment["spec"]["template"]["spec"]["containers"]
    return only


def port_number(spec: Doc, port: int | str) -> int:
    """A probe's or a Service's target port: a number, or the name of one of the container's ports."""
    if isinstance(port, int):
        return port
    (number,) = [item["containerPort"] for item in spec.get("ports", []) if item["name"] == port]
    return int(number)


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def env_refs(spec: Doc, kind: str) -> list[Doc]:
    return [item["valueFrom"][kind] for item in spec.get("env", []) if kind in item.get("valueFrom", {})]


SERVE = one("Deployment", "prdigest-serve")
WORKER = one("Deployment", "prdigest-worker")
SECRET_TEMPLATE = one("Secret", SECRET, EXAMPLES)


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_manifest_is_valid_kubernetes(version: str) -> None:
    problems = []
    for doc in APPLIED + EXAMPLES:
        try:
            kubernetes_validate.validate(doc, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            where = ".".join(str(part) for part in error.path)
            problems.append(f"{doc['kind']} {doc['metadata']['name']}: {where}: {error.message}")
    assert problems == []


def test_the_validator_refuses_a_misspelled_field() -> None:
    broken = copy.deepcopy(SERVE)
    spec = container(broken)
    spec["readinesProbe"] = spec.pop("readinessProbe")
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSIONS[0], strict=True)


def test_every_manifest_file_is_applied_or_an_example() -> None:
    files = {path.name for path in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    examples = {name for name in files if "example" in name}
    assert set(KUSTOMIZATION["resources"]) == files - examples
    assert examples == {"secret.example.yaml", "redis-external-example.yaml"}


def test_serve_serves_slack_only_with_readiness_on_healthz() -> None:
    spec = container(SERVE)
    command = spec["command"]
    assert command[:2] == ["prdigest", "serve"]
    assert "--no-worker" in command and "--socket" not in command
    port = int(option(command, "--port"))
    assert port == port_number(spec, "http") == APP_PORT
    for probe in ("readinessProbe", "livenessProbe"):
        assert spec[probe]["httpGet"]["path"] == "/healthz"
        assert port_number(spec, spec[probe]["httpGet"]["port"]) == port
    assert SERVE["spec"]["replicas"] >= 2


def test_worker_runs_the_worker_and_is_probed_on_its_metrics_port() -> None:
    spec = container(WORKER)
    command = spec["command"]
    assert command[:2] == ["prdigest", "worker"]
    port = int(option(command, "--metrics-port"))
    assert port_number(spec, "metrics") == port
    assert "readinessProbe" not in spec  # no Service sends it traffic
    assert spec["livenessProbe"]["httpGet"]["path"] == "/metrics"
    assert port_number(spec, spec["livenessProbe"]["httpGet"]["port"]) == port


def test_the_commands_parse_with_prdigests_own_parser() -> None:
    parser = build_parser()
    commands = next(action for action in parser._actions if action.dest == "command").choices
    assert isinstance(commands, dict)
    if "worker" not in commands or "--no-worker" not in commands["serve"]._option_string_actions:
        pytest.skip("prdigest has no `worker` command or `serve --no-worker` yet")
    for deployment in deployments():
        parser.parse_args(container(deployment)["command"][1:])


def test_every_secret_and_configmap_the_pods_read_exists() -> None:
    configmaps = {doc["metadata"]["name"]: doc for doc in APPLIED if doc["kind"] == "ConfigMap"}
    template = (K8S / "secret.example.yaml").read_text(encoding="utf-8")
    for deployment in deployments():
        pod = deployment["spec"]["template"]["spec"]
        spec = container(deployment)
        for ref in env_refs(spec, "secretKeyRef"):
            assert ref["name"] == SECRET
            if ref.get("optional"):
                assert ref["key"] in template, f"{ref['key']} is not named in secret.example.yaml"
            else:
                assert ref["key"] in SECRET_TEMPLATE["stringData"]
        for ref in env_refs(spec, "configMapKeyRef"):
            assert ref["key"] in configmaps[ref["name"]]["data"]
        for source in spec.get("envFrom", []):
            assert "secretRef" not in source  # each secret is named, so a pod gets only those it needs
            assert source["configMapRef"]["name"] in configmaps
        for volume in pod.get("volumes", []):
            if "configMap" in volume:
                assert volume["configMap"]["name"] in configmaps


def known_environment() -> set[str]:
    settings = (REPO_ROOT / "bot" / "settings.py").read_text(encoding="utf-8")
    return set(re.findall(r'env\.get\("([A-Z_]+)"\)', settings))


def test_every_environment_variable_is_one_prdigest_reads() -> None:
    known = known_environment()
    assert {"REDIS_URL", "SLACK_SIGNING_SECRET", "PRDIGEST_CONFIG"} <= known
    env_map = one("ConfigMap", "prdigest-env")["data"]
    for name in env_map:
        assert name in known
        assert not SECRET_NAME.search(name), f"{name} belongs in the Secret"
    for name in SECRET_TEMPLATE["stringData"]:
        assert name in known
    for deployment in deployments():
        for item in container(deployment)["env"]:
            assert item["name"] in known
            if SECRET_NAME.search(item["name"]):
                assert "secretKeyRef" in item.get("valueFrom", {}), f"{item['name']} must come from the Secret"


# The one-workspace install's bot token: optional to the pods only because OAuth mode replaces it
# with its three keys (settings refuse both at once), so the template, made for one workspace,
# asks for it and shows OAuth mode's keys commented out.
ONE_WORKSPACE_TOKEN = "SLACK_BOT_TOKEN"


def test_the_secret_template_holds_placeholders_for_the_required_secrets_only() -> None:
    """A deployer who fills every REPLACE_ME ships no optional key as the text REPLACE_ME (a
    GITHUB_TOKEN of "REPLACE_ME" is a token GitHub refuses, not the keyless limit)."""
    assert "data" not in SECRET_TEMPLATE
    assert set(SECRET_TEMPLATE["stringData"].values()) == {PLACEHOLDER}
    required = {
        ref["key"] for d in deployments() for ref in env_refs(container(d), "secretKeyRef") if not ref.get("optional")
    }
    assert set(SECRET_TEMPLATE["stringData"]) == required | {ONE_WORKSPACE_TOKEN}
    optional = {
        ref["key"] for d in deployments() for ref in env_refs(container(d), "secretKeyRef") if ref.get("optional")
    }
    template = (K8S / "secret.example.yaml").read_text(encoding="utf-8")
    for key in optional - {ONE_WORKSPACE_TOKEN}:
        assert re.search(rf"^  # {key}: {PLACEHOLDER}\b", template, flags=re.MULTILINE), f"{key} is not commented out"


def config_path(deployment: Doc) -> Path:
    """PRDIGEST_CONFIG, checked to name a file of the config ConfigMap where it is mounted."""
    pod = deployment["spec"]["template"]["spec"]
    spec = container(deployment)
    (value,) = [item["value"] for item in spec["env"] if item["name"] == "PRDIGEST_CONFIG"]
    path = Path(value)
    (mount,) = [item for item in spec["volumeMounts"] if item["mountPath"] == str(path.parent)]
    (volume,) = [item for item in pod["volumes"] if item["name"] == mount["name"]]
    assert path.name in one("ConfigMap", volume["configMap"]["name"])["data"]
    return path


def test_the_config_file_loads_with_prdigests_loader(tmp_path: Path) -> None:
    configs = {config_path(deployment) for deployment in deployments()}
    assert len(configs) == 1  # serve and the workers read the same file
    path = tmp_path / configs.pop().name
    path.write_text(one("ConfigMap", "prdigest-config")["data"][path.name], encoding="utf-8")
    environment = one("ConfigMap", "prdigest-env")["data"] | {"PRDIGEST_CONFIG": str(path)}
    settings = load_settings(environment)
    assert settings.config_path == str(path)
    assert settings.config.channels


def test_pods_may_finish_a_model_call_before_they_are_killed(tmp_path: Path) -> None:
    path = tmp_path / "prdigest.toml"
    path.write_text(one("ConfigMap", "prdigest-config")["data"]["prdigest.toml"], encoding="utf-8")
    model_timeout = load_settings({"PRDIGEST_CONFIG": str(path)}).defaults.model_timeout
    for deployment in deployments():
        pre_stop = container(deployment).get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", [])
        pause = int(pre_stop[1]) if pre_stop[:1] == ["sleep"] else 0
        grace = deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
        assert grace >= pause + model_timeout + 10, deployment["metadata"]["name"]


def selects(selector: dict[str, str], deployment: Doc) -> bool:
    return selector.items() <= deployment["spec"]["template"]["metadata"]["labels"].items()


def test_the_service_and_the_disruption_budget_select_the_serve_pods_only() -> None:
    service = one("Service", "prdigest")
    assert selects(service["spec"]["selector"], SERVE) and not selects(service["spec"]["selector"], WORKER)
    (port,) = service["spec"]["ports"]
    assert port["port"] == APP_PORT == port_number(container(SERVE), port["targetPort"])
    (budget,) = [doc for doc in APPLIED if doc["kind"] == "PodDisruptionBudget"]
    selector = budget["spec"]["selector"]["matchLabels"]
    assert selects(selector, SERVE) and not selects(selector, WORKER)
    assert budget["spec"]["minAvailable"] == 1 < SERVE["spec"]["replicas"]


def test_the_ingress_serves_slack_and_github_over_tls_and_nothing_else() -> None:
    (ingress,) = [doc for doc in APPLIED if doc["kind"] == "Ingress"]
    service = one("Service", "prdigest")
    tls_hosts = {host for entry in ingress["spec"]["tls"] for host in entry["hosts"] if entry["secretName"]}
    paths = set()
    for rule in ingress["spec"]["rules"]:
        assert rule["host"] in tls_hosts
        for path in rule["http"]["paths"]:
            backend = path["backend"]["service"]
            assert backend["name"] == service["metadata"]["name"]
            assert backend["port"]["name"] in {port["name"] for port in service["spec"]["ports"]}
            assert path["pathType"] == "Exact"
            paths.add(path["path"])
    assert paths == {"/slack/events", "/slack/install", "/slack/oauth_redirect", "/github/webhook"}


def test_containers_run_unprivileged_on_a_read_only_root_with_bounded_resources() -> None:
    for doc in deployments() + [doc for doc in EXAMPLES if doc["kind"] == "Deployment"]:
        pod = doc["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["automountServiceAccountToken"] is False
        for spec in pod["containers"]:
            security = spec["securityContext"]
            assert security["readOnlyRootFilesystem"] is True
            assert security["allowPrivilegeEscalation"] is False
            assert security["capabilities"]["drop"] == ["ALL"]
            assert {"cpu", "memory"} <= spec["resources"]["requests"].keys()
            assert "memory" in spec["resources"]["limits"]
    for deployment in deployments():
        # waitress keeps a large request body in a temporary file while it arrives.
        assert "/tmp" in {mount["mountPath"] for mount in container(deployment)["volumeMounts"]}


def test_prometheus_scrapes_each_pod_on_its_metrics_port_and_no_service_carries_it() -> None:
    """GET /metrics is on --metrics-port only (the Slack port, which the Ingress opens, has none):
    the scrape annotations name that port, and the Service behind the Ingress does not carry it."""
    for deployment in deployments():
        spec = container(deployment)
        annotations = deployment["spec"]["template"]["metadata"]["annotations"]
        port = int(option(spec["command"], "--metrics-port"))
        # --metrics-port binds --host, 127.0.0.1 unless told: the scraper and the kubelet's probes
        # reach the pod's own address.
        assert "--host" in spec["command"] and option(spec["command"], "--host") == "0.0.0.0", spec["command"]
        assert annotations["prometheus.io/scrape"] == "true" and annotations["prometheus.io/path"] == "/metrics"
        assert int(annotations["prometheus.io/port"]) == port == port_number(spec, "metrics")
        assert port != APP_PORT
    for service in (doc for doc in APPLIED if doc["kind"] == "Service"):
        targets = {port_number(container(SERVE), port["targetPort"]) for port in service["spec"]["ports"]}
        assert int(option(container(SERVE)["command"], "--metrics-port")) not in targets
